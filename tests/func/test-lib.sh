# test-lib.sh — a small TAP harness for the functional tests (after git's
# t/test-lib.sh). Source it from tests/func/tNNNN-name.sh:
#
#   . "$(dirname "$0")/test-lib.sh"
#   test_expect_success 'what it checks' '
#           commands; the last status is the verdict
#   '
#   test_done
#
# Every test file gets its own scratch directory ($TRASH) and cleans up
# what it started: clusters registered with test_cluster_up (which
# test_cluster_setup calls) are brought down, pids registered with
# test_track_pid are killed, by pid.
#
# The shell has one namespace: every variable of this file's own is named
# test_* (or ends in _), so that a test file's variables (out, dir, base,
# end, port, ...) never overwrite them, nor they a test's.

set -u

TEST_DIR=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$TEST_DIR/../.." && pwd)
TICHAOS="$ROOT/tichaos"
DATA="$ROOT/tests/data"
TRASH=$(mktemp -d "${TMPDIR:-/tmp}/tichaos-test.XXXXXX")
export TICHAOS ROOT DATA TRASH
# Local clusters put every component on 127.0.0.1 (the tests' addresses
# and messages name it) unless a test asks for hosts of their own
# (--hosts on, tests t044x); TICHAOS_HOSTS=auto in the environment runs
# every test's clusters on hosts where namespaces can be made.
TICHAOS_HOSTS=${TICHAOS_HOSTS-off}
export TICHAOS_HOSTS
test_file_=$(basename "$0" .sh)
# The records a fault keeps for the next run's sweep (a hog, a skew, a
# failpoint, a disk's placement; lib/proc.h), in the file's own state
# root: a run of a test file beside it (prove -j) never sweeps what this
# file's killed runs left for its own next run to find.
TICHAOS_STATE_DIR=$TRASH/state
export TICHAOS_STATE_DIR

test_count=0
test_failed=0
test_clusters=
test_pids=
test_groups=
test_mounts=

test_cleanup() {
	for test_d_ in $test_clusters; do
		"$TICHAOS" cluster down --dir "$test_d_" >/dev/null 2>&1
	done
	for test_p_ in $test_pids; do
		kill -9 "$test_p_" 2>/dev/null
		wait "$test_p_" 2>/dev/null
	done
	for test_g_ in $test_groups; do
		kill -9 "-$test_g_" 2>/dev/null
		wait "$test_g_" 2>/dev/null
	done
	# A FUSE mount whose server was killed stays, refusing every access
	# (mountpoint(1) too), the trash's removal as well: detached.
	for test_m_ in $test_mounts; do
		! grep -q " $test_m_ " /proc/mounts || umount -l "$test_m_"
	done
	test_leaked_=$(test_leaked_)
	if [ -n "${TEST_KEEP_TRASH:-}" ]; then
		echo "# kept $TRASH"
	else
		rm -rf "$TRASH"
	fi
	[ -z "$test_leaked_" ] || exit 1
}

# test_leaks_: the pids of the processes whose command line names a path
# in $TRASH (a server that a test, or tichaos for it, started), but
# grep's own, whose pattern [/] keeps it from matching itself.
test_leaks_() {
	grep -laE -- "$TRASH[/]" /proc/[0-9]*/cmdline 2>/dev/null |
		sed -e 's#^/proc/##' -e 's#/cmdline$##'
}

# test_leaked_: once the file's clusters are down and its pids killed, a
# process still naming $TRASH after 10 s is one nobody stopped: each is
# said (on stderr and in TICHAOS_TEST_FAILURES), killed by its pid, and
# printed; the file then fails (exit 1), as any leak does.
test_leaked_() {
	wait_for_condition 10 'test -z "$(test_leaks_)"' 2>/dev/null && return 0
	for test_x_ in $(test_leaks_); do
		test_c_=$(tr '\0' ' ' <"/proc/$test_x_/cmdline" 2>/dev/null) ||
			continue
		echo "# leaked: pid $test_x_: $test_c_" >&2
		[ -z "${TICHAOS_TEST_FAILURES:-}" ] ||
			echo "$test_file_: leaked pid $test_x_: $test_c_" \
				>>"$TICHAOS_TEST_FAILURES/$test_file_.log"
		kill -9 "$test_x_" 2>/dev/null
		echo "$test_x_"
	done
}
trap 'test_cleanup' EXIT
trap 'exit 130' INT TERM

# skip_all REASON: nothing here can run, for want of a server or a tool
# that `make deps` installs, or for a set-up that failed. Under CI
# (CI=true) that fails the file: CI runs on a machine made to run every
# test, so a skip there would pass a run that tested nothing.
skip_all() {
	if [ "${CI:-}" = true ]; then
		echo "1..1"
		echo "not ok 1 - skipped: $* (CI=true runs every test)"
		[ -z "${TICHAOS_TEST_FAILURES:-}" ] ||
			echo "$test_file_: not ok 1 - skipped: $*" \
				>>"$TICHAOS_TEST_FAILURES/$test_file_.log"
		exit 1
	fi
	echo "1..0 # SKIP $*"
	exit 0
}

# skip_machine REASON: nothing here can run on this kernel or as this
# user (root, network namespaces, nftables inside one, net_cls): what no
# package installs. A skip everywhere, CI included; prove shows it.
skip_machine() {
	echo "1..0 # SKIP $*"
	exit 0
}

# need NAME...: skip_all unless each server or tool NAME is installed
# (make deps installs them all); mariadbd and sshd are also looked for in
# /usr/sbin, off a user's PATH.
need() {
	for test_need_ in "$@"; do
		command -v "$test_need_" >/dev/null 2>&1 ||
		[ -x "/usr/sbin/$test_need_" ] ||
			skip_all "$test_need_ is not installed (make deps)"
	done
}

# Run a test's script in a function of its own, so that a `return` in it
# ends the script, not the harness.
test_run_() {
	eval "$1"
}

# test_when_finished SCRIPT: in a test's script, SCRIPT run once that
# script ends, whether it passed or not, the last registered first (git's
# test_when_finished): what a test started, it stops itself, where a
# later test or the file's end would otherwise meet it. A SCRIPT that
# fails fails the test.
test_when_finished() {
	test_finally_="{ $1
} && (exit \"\$test_rc_\"); test_rc_=\$?; $test_finally_"
}

# test_expect_success DESCRIPTION SCRIPT: run SCRIPT in this shell, in
# $TRASH; chain its commands with && so that any failure fails the test.
test_expect_success() {
	test_count=$((test_count + 1))
	test_out_="$TRASH/.test-output"
	test_finally_=:
	test_run_ "$2" >"$test_out_" 2>&1
	test_rc_=$?
	eval "$test_finally_" >>"$test_out_" 2>&1
	test_finally_=:
	if [ "$test_rc_" = 0 ]; then
		echo "ok $test_count - $1"
	else
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1"
		# On stderr, as Test::More's diag: prove shows it even when
		# it is not verbose, so a CI log says why; and the script,
		# as git's test-lib does, for a failing command that printed
		# nothing.
		test_diag_ "$2" >&2
		# And kept where CI prints it after the summary
		# (.ci/run), where the tail of a long log shows it.
		if [ -n "${TICHAOS_TEST_FAILURES:-}" ]; then
			{ echo "$test_file_: not ok $test_count - $1"
			  test_diag_ "$2"; } >>"$TICHAOS_TEST_FAILURES/$test_file_.log"
		fi
	fi
}

# test_diag_ SCRIPT: a failed test's output, and SCRIPT, as diagnostics.
test_diag_() {
	sed -e 's/^/# /' "$TRASH/.test-output"
	printf '%s\n' "$1" | sed -e '/^[[:space:]]*$/d' -e 's/^/#   | /'
}

# test_done: print the plan; exit non-zero when a test failed.
test_done() {
	echo "1..$test_count"
	[ "$test_failed" = 0 ]
	exit $?
}

# c_files [PATTERN]: the C files of the tree (PATTERN, default '*.c'),
# one a line, relative to $ROOT: the ones git tracks, or outside a git
# checkout (a tarball) those under the source directories.
c_files() {
	test_pat_=${1:-*.c}
	if command -v git >/dev/null 2>&1 &&
	   git -C "$ROOT" rev-parse --is-inside-work-tree >/dev/null 2>&1 &&
	   test -n "$(git -C "$ROOT" ls-files "$test_pat_")"; then
		git -C "$ROOT" ls-files "$test_pat_"
	else
		for test_d_ in lib core clusters workloads faults checkers \
			       reports runner tests; do
			[ -d "$ROOT/$test_d_" ] || continue
			(cd "$ROOT" && find "$test_d_" -type f -name "$test_pat_")
		done | sort
	fi
}

# test_todo DESCRIPTION: a known breakage, declared and shown: a test
# point that fails as TAP's TODO, which prove reports and does not count.
test_todo() {
	test_count=$((test_count + 1))
	echo "not ok $test_count - $1 # TODO known breakage"
}

# test_track_pid PID: kill it (by pid) when the test file ends.
test_track_pid() {
	test_pids="$test_pids $1"
}

# test_track_group PGID: kill its process group (by its id) when the
# test file ends: a supervisor and the process it runs, whose pid changes
# with each restart.
test_track_group() {
	test_groups="$test_groups $1"
}

# test_track_mount DIR: DIR is a mount this file made (a FUSE one): if
# still mounted when the file ends, it is detached (umount -l), after
# the tracked pids are killed.
test_track_mount() {
	test_mounts="$test_mounts $1"
}

# test_cluster_up DIR [ARGS...]: start a local cluster on a free block of
# ports (unless ARGS say otherwise) and bring it down when the file ends.
test_cluster_up() {
	test_dir_=$1
	shift
	test_clusters="$test_clusters $test_dir_"
	if [ $# = 0 ]; then
		set -- --port-base auto
	fi
	"$TICHAOS" cluster up --dir "$test_dir_" "$@" >"$test_dir_.up.out" 2>&1 ||
	{ cat "$test_dir_.up.out"; return 1; }
}

# port_of DIR COMPONENT: the SQL port of up-0 / down-0 of a local cluster.
port_of() {
	test_base_=$(cat "$1/port-base") || return 1
	case $2 in
	up-0) echo "$test_base_" ;;
	down-0) echo $((test_base_ + 1)) ;;
	etcd-0) echo $((test_base_ + 2)) ;;
	*) return 1 ;;
	esac
}

# test_cluster_setup DESCRIPTION [SCRIPT [ARGS...]]: the set-up of a
# file whose tests attach to one local cluster, as its first test point,
# DESCRIPTION: test_cluster_up "$C" ARGS (C is $TRASH/c unless the file
# set it), then SCRIPT, more set-up in the same point, which may use
# what this sets: T (unless the file set it, $C/topology.yaml), B (the
# port base), UP and DOWN (the SQL ports of up-0 and down-0). When the
# point fails, no test after it has a cluster to run on: the file bails
# out (exit 1), never skips and never goes on. The servers are the
# file's to `need` first, before anything else is printed.
test_cluster_setup() {
	test_desc_=$1
	test_setup_script_=${2:-}
	shift
	[ $# = 0 ] || shift
	C=${C:-$TRASH/c}
	T=${T:-$C/topology.yaml}
	test_failed_before_=$test_failed
	test_expect_success "$test_desc_" '
		test_cluster_up "$C"'"$(test_sq_ "$@")"' &&
		B=$(cat "$C/port-base") &&
		UP=$(port_of "$C" up-0) && DOWN=$(port_of "$C" down-0) &&
		test_run_ "$test_setup_script_"
	'
	if [ "$test_failed" != "$test_failed_before_" ]; then
		echo "Bail out! the set-up of the cluster in $C failed: no test here can run"
		exit 1
	fi
}

# test_sq_ ARGS...: each ARG single-quoted for the shell, each after a
# space, to be pasted into a test's script.
test_sq_() {
	for test_arg_ in "$@"; do
		printf " '%s'" "$(printf '%s' "$test_arg_" | sed -e "s/'/'\\\\''/g")"
	done
}

# probe_cluster: probe.yaml in $TRASH, the file's local cluster ($T) as a
# static topology with one more component, probe-0:
# tests/helpers/go-probe (a Go program on pingcap/failpoint, for the
# faults that reach Go servers) on 127.0.0.1:$probe (a port taken here),
# started, its pid in probe.pid and tracked.
probe_cluster() {
	test_probe_=$ROOT/tests/helpers/go-probe/go-probe
	[ -x "$test_probe_" ] || { echo "$test_probe_ is not built (make unit-tests)"; return 1; }
	take_port probe &&
	sed -e "s/^cluster: local$/cluster: static/" -e "/^port_base:/d" "$T" >"$TRASH/probe.yaml" &&
	cat >>"$TRASH/probe.yaml" <<-EOF &&
	  - name: probe-0
	    http_url: "http://127.0.0.1:$probe/now"
	    start: ["$test_probe_", -addr, "127.0.0.1:$probe"]
	    pidfile: "$TRASH/probe.pid"
	    log: "$TRASH/probe.log"
	EOF
	"$TICHAOS" cluster start probe-0 --cluster "$TRASH/probe.yaml" &&
	test_track_pid "$(cat "$TRASH/probe.pid")"
}

# insert_suite NAME DURATION SEED DATABASE RATE: the head of a suite with
# one table `t` and one insert workload on it at RATE, to which a test
# appends its faults and checks.
insert_suite() {
	cat <<EOF
name: $1
duration: $2
seed: $3
database: $4
tables:
  - name: t
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: insert
    tables: t
    rate: $5
EOF
}

# chromium_dom URL: the DOM headless Chromium parsed from URL, on stdout;
# chromium_shot PNG URL: its screenshot. No network, a profile in $TRASH;
# Chromium's own output in chromium.out, its tail shown on failure.
chromium_run() {
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$TRASH/chromium" "$@" ||
	{ tail -5 chromium.out; return 1; }
}
chromium_dom() {
	chromium_run --dump-dom "$1" 2>chromium.out
}
chromium_shot() {
	chromium_run --window-size=1000,1400 --screenshot="$1" "$2" >chromium.out 2>&1
}

# sql PORT QUERY: run QUERY on 127.0.0.1:PORT as root; tab-separated rows.
sql() {
	mariadb --no-defaults -h127.0.0.1 -P"$1" -uroot -N -B -e "$2"
}

# sqlv PORT QUERY: the same, vertical ("Name: value" lines).
sqlv() {
	mariadb --no-defaults -h127.0.0.1 -P"$1" -uroot -e "$2\G"
}

# test_now_ms_: the wall clock in milliseconds.
test_now_ms_() {
	echo $(( $(date +%s%N) / 1000000 ))
}

# wait_for_condition SECONDS SCRIPT: retry SCRIPT every 0.1 s until it
# succeeds; fail when it has not within SECONDS (whole seconds, counted
# in milliseconds: a deadline of 1 is one second, not what is left of the
# current one), saying on stderr what it waited for and what the last try
# printed.
# test_try_ SCRIPT: SCRIPT eval'ed in a function: a redirection of the
# call that fails is then an error of the call, where on eval, a special
# built-in, it would end the shell (exit 2).
test_try_() {
	eval "$1"
}

wait_for_condition() {
	test_end_=$(( $(test_now_ms_) + $1 * 1000 ))
	while ! test_try_ "$2" >"$TRASH/.wait-output" 2>&1; do
		if [ "$(test_now_ms_)" -ge "$test_end_" ]; then
			# A wait that gives up says what it waited for and
			# what it saw last.
			{ echo "gave up after $1 s waiting for: $2"
			  echo "its last try said: $(tail -c 600 "$TRASH/.wait-output")"
			} >&2
			return 1
		fi
		sleep 0.1
	done
}

# while_held PID SCRIPT: SCRIPT run while the tichaos run PID is frozen
# (SIGSTOP), so that the fault it holds is still held however long the
# test looks on a loaded machine, and its heal, due meanwhile, waits;
# the run is let go (SIGCONT) whatever SCRIPT returns, which is returned.
# The run must still be running when the test sees its fault's record:
# a loaded machine (load 20 and more) took over 8 s to see one, so the
# faults held so are held for 20 s or more.
while_held() {
	kill -STOP "$1" 2>/dev/null || {
		echo "while_held: run $1 had ended before the test could hold it (its fault's hold too short for this machine?)" >&2
		return 1
	}
	test_run_ "$2"
	test_held_rc_=$?
	kill -CONT "$1"
	return $test_held_rc_
}

# alive PID: the process exists and has not exited (a zombie has).
alive() {
	test_state_=$(sed -e 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -c1)
	[ -n "$test_state_" ] && [ "$test_state_" != Z ] && [ "$test_state_" != X ]
}

# need_hosts: skip_all unless the local cluster's hosts can be made here
# (lib/netns.h): root, a network namespace, nftables inside it.
need_hosts() {
	[ "$(id -u)" = 0 ] || skip_machine "network namespaces need root"
	need nft
	test_ns_=tichaos-probe-$$
	ip netns add "$test_ns_" 2>/dev/null ||
		skip_machine "a network namespace cannot be made here"
	ip netns exec "$test_ns_" nft list tables >/dev/null 2>&1
	test_rc_=$?
	ip netns delete "$test_ns_"
	[ "$test_rc_" = 0 ] ||
		skip_machine "nftables does not work in a network namespace here"
}

# netcls_missing: why partitions on 127.0.0.1 (lib/netcls.h) cannot be
# made here, or nothing (and non-zero) when they can: root, nftables and
# the kernel's net_cls controller.
netcls_missing() {
	if [ "$(id -u)" != 0 ]; then
		echo "classes of net_cls need root"
	elif ! [ -x /usr/sbin/nft ] && ! command -v nft >/dev/null; then
		echo "nft not found (nftables)"
	elif ! awk '$1 == "net_cls" && $4 == 1 { f = 1 } END { exit !f }' /proc/cgroups; then
		echo "this kernel has no net_cls controller"
	else
		return 1
	fi
}

# netcls_root: where the net_cls hierarchy is mounted.
netcls_root() {
	awk '$3 == "cgroup" && $4 ~ /(^|,)net_cls(,|$)/ { print $2; exit }' /proc/self/mounts
}

# class_prefix DIR: "tichaos-<tag>-", what the classes and tables of the
# cluster in DIR are named by, the tag the FNV-1a hash of its directory
# (clusters/cluster.c, tag_of).
class_prefix() {
	perl -e '$h = 2166136261;
		$h = (($h ^ $_) * 16777619) % 4294967296 for unpack "C*", $ARGV[0];
		printf "tichaos-%08x-", $h' "$(cd "$1" && pwd -P)"
}

# test_skip DESCRIPTION REASON: a test point counted but not run (TAP's
# SKIP directive), for a test this kernel cannot run (skip_machine's
# reasons), or one that is the other branch of what it can.
test_skip() {
	test_count=$((test_count + 1))
	echo "ok $test_count - $1 # SKIP $2"
}

# test_skip_missing DESCRIPTION REASON: a test point not run for want of
# a tool `make deps` installs: a skip, but a failure under CI (skip_all).
test_skip_missing() {
	if [ "${CI:-}" = true ]; then
		test_count=$((test_count + 1))
		test_failed=$((test_failed + 1))
		echo "not ok $test_count - $1: skipped: $2 (CI=true runs every test)"
		return
	fi
	test_skip "$1" "$2"
}

# addr_of DIR COMPONENT: the address of COMPONENT of the local cluster in
# DIR (its host's, or 127.0.0.1), from DIR/topology.yaml.
addr_of() {
	awk -v name="\"$2\"" '
		$2 == "name:" { on = ($3 == name) }
		on && $1 == "sql:" { gsub(/"/, "", $2); sub(/:[0-9]+$/, "", $2); print $2; exit }
		on && $1 == "etcd_url:" { gsub(/"|http:\/\//, "", $2); sub(/:[0-9]+$/, "", $2); print $2; exit }
	' "$1/topology.yaml"
}

# result DIR PERL: the value of a Perl expression over $c, the first check
# of DIR/results.json; references as canonical JSON.
result() {
	perl -MJSON::PP -e '
		local $/;
		open my $f, "<", "$ARGV[0]/results.json" or die "$!\n";
		my $c = JSON::PP->new->decode(<$f>)->{checks}[0];
		my $v = eval $ARGV[1];
		die $@ if $@;
		print ref $v ? JSON::PP->new->canonical->encode($v) : $v, "\n";
	' "$1" "$2"
}

# expect_result DIR PERL EXPECTED: result DIR PERL is EXPECTED.
expect_result() {
	echo "$3" >"$1.expect" && result "$1" "$2" >"$1.actual" &&
	test_cmp "$1.expect" "$1.actual"
}

# nemesis_value HISTORY F: the value of the first nemesis info record of
# F (partition, rejoin, netem, ...) in HISTORY, without its took_ms.
nemesis_value() {
	grep "\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"$2\"" "$1" |
		head -n 1 | sed -e 's/.*"value":\({.*\),"took_ms":[0-9]*}.*/\1}/'
}

# listening PORT: something listens on 127.0.0.1:PORT.
listening() {
	ss -ltnH "sport = :$1" | grep -q .
}

# free_port_base [AFTER]: the first of a block of eight free ports on
# 127.0.0.1 (a local cluster's, clusters/ports.h: one that a cluster
# starting holds even a port of is passed over), above AFTER when given
# (else from a per-run start), below the kernel's ephemeral range (where
# a client socket could take one after the check), for tests that need a
# specific base of their own.
free_port_base() {
	test_top_=$(cut -f1 /proc/sys/net/ipv4/ip_local_port_range 2>/dev/null)
	[ "${test_top_:-0}" -gt 21000 ] 2>/dev/null || test_top_=32768
	test_b_=${1:-$((20000 + ($$ % ((test_top_ - 20000) / 10 - 1)) * 10))}
	test_n_=0
	while [ "$test_n_" -lt 2000 ]; do
		test_b_=$((test_b_ + 10)) test_n_=$((test_n_ + 1))
		[ $((test_b_ + 7)) -lt "$test_top_" ] || test_b_=20000
		ss -ltnH "sport >= :$test_b_ and sport <= :$((test_b_ + 7))" |
			grep -q . || { echo "$test_b_"; return 0; }
	done
	return 1
}

# test_sshd_up DIR [LINE...]: start a real sshd of our own on 127.0.0.1 at
# a free port, with its own host keys (ed25519, RSA) and config in DIR
# (LINEs are added to it), letting in the current user with a fresh
# ed25519 and a fresh RSA key (SHLVL=1 keeps bash from sourcing the user's
# ~/.bashrc for every command, as it otherwise does under sshd). Exports
# SSHD_PORT, SSH_USER, SSH_KEY (ed25519), SSH_KEY_RSA and SSH_KNOWN_HOSTS
# (DIR/known_hosts: both host keys as "[127.0.0.1]:PORT"). sshd logs to
# DIR/sshd.log and is killed when the file ends. Call it before the first
# test: it skips the whole file when sshd is not installed.
test_sshd_up() {
	test_sshd_dir_=$1
	shift
	need sshd ssh-keygen
	mkdir -p "$test_sshd_dir_" &&
	# The privilege separation directory: sshd refuses to start as
	# root without it, and only a booted openssh-server creates it.
	{ [ "$(id -u)" != 0 ] || mkdir -p /run/sshd; } || return 1
	for test_type_ in ed25519 rsa; do
		ssh-keygen -q -t $test_type_ -N "" -C "tichaos-test-host" \
			-f "$test_sshd_dir_/host_${test_type_}_key" &&
		ssh-keygen -q -t $test_type_ -N "" -C "tichaos-test-user" \
			-f "$test_sshd_dir_/id_$test_type_" || return 1
	done
	cat "$test_sshd_dir_/id_ed25519.pub" "$test_sshd_dir_/id_rsa.pub" \
		>"$test_sshd_dir_/authorized_keys" &&
	SSHD_PORT=$(free_port_base) || return 1
	cat >"$test_sshd_dir_/sshd_config" <<-EOF || return 1
	ListenAddress 127.0.0.1
	Port $SSHD_PORT
	HostKey $test_sshd_dir_/host_ed25519_key
	HostKey $test_sshd_dir_/host_rsa_key
	PidFile $test_sshd_dir_/sshd.pid
	AuthorizedKeysFile $test_sshd_dir_/authorized_keys
	StrictModes no
	PubkeyAuthentication yes
	PasswordAuthentication no
	KbdInteractiveAuthentication no
	UsePAM no
	PermitRootLogin prohibit-password
	LogLevel VERBOSE
	SetEnv SHLVL=1
	EOF
	for test_line_ in "$@"; do
		echo "$test_line_"
	done >>"$test_sshd_dir_/sshd_config" &&
	for test_type_ in ed25519 rsa; do
		echo "[127.0.0.1]:$SSHD_PORT $(cut -d" " -f1,2 \
			"$test_sshd_dir_/host_${test_type_}_key.pub")"
	done >"$test_sshd_dir_/known_hosts" || return 1
	/usr/sbin/sshd -D -e -f "$test_sshd_dir_/sshd_config" \
		>"$test_sshd_dir_/sshd.log" 2>&1 </dev/null &
	test_track_pid $!
	test_sshd_pid_=$!
	wait_for_condition 10 "listening $SSHD_PORT || ! alive $test_sshd_pid_" &&
	alive "$test_sshd_pid_" || { cat "$test_sshd_dir_/sshd.log"; return 1; }
	SSH_USER=$(id -un)
	SSH_KEY=$test_sshd_dir_/id_ed25519
	SSH_KEY_RSA=$test_sshd_dir_/id_rsa
	SSH_KNOWN_HOSTS=$test_sshd_dir_/known_hosts
	export SSHD_PORT SSH_USER SSH_KEY SSH_KEY_RSA SSH_KNOWN_HOSTS
}

# diff_config_toml UP DOWN OUTPUT_DIR THREADS TABLES: sync-diff-
# inspector's configuration as TiCDC's tests write it (pingcap/ticdc
# tests/integration_tests/consistent_fail_over_ddl_mix/conf/
# diff_config.toml at 201619cf3388) on stdout, with the source's and the
# target's ports on 127.0.0.1, output-dir, check-thread-count and the
# inside of target-check-tables given.
diff_config_toml() {
	cat <<EOF
# diff Configuration.
check-thread-count = $4

export-fix-sql = true

check-struct-only = false

[task]
output-dir = "$3"

source-instances = ["tidb0"]

target-instance = "mysql1"

target-check-tables = [$5]

[data-sources]
[data-sources.tidb0]
host = "127.0.0.1"
port = $1
user = "root"
password = ""

[data-sources.mysql1]
host = "127.0.0.1"
port = $2
user = "root"
password = ""
EOF
}

# test_ssh_topology TOPOLOGY: the local cluster's TOPOLOGY with every
# component on host "box", the sshd of test_sshd_up, on stdout.
test_ssh_topology() {
	printf "hosts:\n  - name: box\n    ssh:\n" &&
	printf "      %s\n" "address: 127.0.0.1" "port: $SSHD_PORT" \
		"user: $SSH_USER" "key: $SSH_KEY" \
		"known_hosts: $SSH_KNOWN_HOSTS" &&
	sed -e "s/^    host: \"local\"$/    host: \"box\"/" "$1"
}

# take_port VAR: a port for a fake server, from a base derived from our
# pid below the ephemeral range (where a client socket could take it after
# the check), skipping any port a socket uses, and every port a local
# cluster's block may have: the blocks begin at multiples of ten and are
# eight ports long (clusters/ports.h), so only ports ending in 8 or 9 are
# never one whose server is about to bind it.
test_next_port_=$((20008 + $$ % 600 * 20))
take_port() {
	while [ $((test_next_port_ % 10)) -lt 8 ] ||
	      ss -tanH "sport = :$test_next_port_" | grep -q .; do
		test_next_port_=$((test_next_port_ + 1))
	done
	eval "$1=$test_next_port_"
	test_next_port_=$((test_next_port_ + 1))
}

# fake_http NAME PORT DIR [OPTION...]: (re)start the fake server NAME,
# tests/helpers/fake-http.pl answering on 127.0.0.1:PORT from DIR (with
# its OPTIONs: TiCDC's middleware), with an empty log of its requests
# $TRASH/NAME.log (its own errors in $TRASH/NAME.err); the one started
# before under NAME is stopped first. Returns once it listens; killed
# when the file ends.
fake_http() {
	test_fake_var_=fake_pid_$(echo "$1" | tr - _)
	eval "test_fake_pid_=\${$test_fake_var_:-}"
	if [ -n "$test_fake_pid_" ]; then
		kill -TERM "$test_fake_pid_" 2>/dev/null
		wait "$test_fake_pid_" 2>/dev/null
	fi
	rm -f "$TRASH/$1.log"
	test_fake_port_=$2
	test_fake_dir_=$3
	test_fake_log_=$TRASH/$1
	shift 3
	perl "$ROOT/tests/helpers/fake-http.pl" "$test_fake_port_" \
		"$test_fake_dir_" "$test_fake_log_.log" "$@" \
		>"$test_fake_log_.err" 2>&1 &
	test_fake_pid_=$!
	eval "$test_fake_var_=$test_fake_pid_"
	test_track_pid $test_fake_pid_
	wait_for_condition 5 "listening $test_fake_port_ || ! alive $test_fake_pid_" &&
	alive $test_fake_pid_ || { cat "$test_fake_log_.err"; return 1; }
}

# test_capture_files DIR ID PORT: canned answers in DIR for a TiCDC
# capture ID at 127.0.0.1:PORT, as tichaos asks every capture: GET
# /api/v2/status says v8.5.0 (pingcap/tiflow cdc/api/v2/status.go), GET
# /api/v2/captures lists this capture (its readiness; cdc/api/v2/capture.go).
test_capture_files() {
	printf '200 application/json\n{"version": "v8.5.0", "git_hash": "fake", "id": "%s", "pid": 0, "is_owner": true, "liveness": 0}\n' \
		"$2" >"$1/GET_api_v2_status" &&
	printf '200 application/json\n{"items": [{"id": "%s", "is_owner": true, "address": "127.0.0.1:%s"}], "total": 1}\n' \
		"$2" "$3" >"$1/GET_api_v2_captures"
}

# test_cmp EXPECTED ACTUAL: files are equal; show the diff otherwise.
test_cmp() {
	diff -u "$1" "$2"
}

[ -x "$TICHAOS" ] || { echo "Bail out! $TICHAOS is not built (make)"; exit 1; }
cd "$TRASH" || exit 1
