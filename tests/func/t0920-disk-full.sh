#!/bin/sh
# A full disk, the commonest way a nightly CI machine fails, ends a run at
# once and says so. The run directory lives on a small tmpfs of its own
# that the test fills up (dd) once the run is where the test wants it
# (its history shows the kill): the first write that fails stops the run
# like an interrupt — faults healed, every heal reported, the cluster
# torn down (or, attached, left running healed) — exit 3, the reason in
# one line on stderr, and a TAP Bail out on stdout. The space the run
# held back from its start (RUN/.reserve) takes the end of the history and
# the reports. A disk too small to start on fails before the run, with a
# Bail out too.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd
[ "$(id -u)" = 0 ] || skip_machine "mounting a small file system (tmpfs) needs root"

# small NAME SIZE: a tmpfs of SIZE at $TRASH/NAME, unmounted when the file
# ends (after the clusters on it are down).
mounts=
small() {
	mkdir -p "$TRASH/$1" &&
	mount -t tmpfs -o "size=$2" tichaos-test "$TRASH/$1" &&
	mounts="$mounts $TRASH/$1"
}
small_cleanup() {
	for d in $test_clusters; do
		"$TICHAOS" cluster down --dir "$d" >/dev/null 2>&1
	done
	for m in $mounts; do
		umount -l "$m"
	done
	test_cleanup
}
trap small_cleanup EXIT

# fill DIR: write zeros into DIR until its file system is full, which dd
# says. Its free space is not asked after: the run, hitting the full disk
# meanwhile, gives back the space it held (RUN/.reserve), and a loaded
# machine showed df that space before this looked (the run went on, the
# test failed without a word).
fill() {
	dd if=/dev/zero of="$1/fill" bs=1M >/dev/null 2>"$1.dd"
	grep -q "No space left on device" "$1.dd"
}

# ended PID SECONDS: the process ended within SECONDS (else it went on
# blind after the disk filled); its exit code in $code.
ended() {
	wait_for_condition "$2" "! alive $1" ||
	{ echo "still running $2 s after the disk filled"; return 1; }
	wait "$1"
	code=$?
}

# whole_lines FILE: every line of FILE is a JSON object, the last one too.
whole_lines() {
	test "$(tail -c 1 "$1" | od -An -c | tr -d " ")" = "\\n" &&
	perl -MJSON::PP -ne 'decode_json($_)' "$1"
}

# suite NAME: $TRASH/NAME.yaml: three tables of inserts for 60 s and a
# kill of the cdc role at 1 s, whose heal is due after DOWN (stdin: more).
suite() {
	cat >"$TRASH/$1.yaml" <<-END
	name: $1
	duration: 60s
	seed: 5
	database: full
	tables:
	  - name: t1
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	  - name: t2
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	  - name: t3
	    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
	workloads:
	  - kind: insert
	    tables: [t1, t2, t3]
	    rate: 300
	faults:
	  - kind: kill
	    target: cdc
	    $2
	    down: $3
	checks:
	  - kind: consistency
	END
}

C="$TRASH/c"

# An attached cluster on the big disk, only the run directory on the
# small one: the history is the first file to fail (the heal is due only
# after 30 s, no progress line before 10 s), at its next flush.
suite attached "at: [1s]" 30s

test_expect_success 'the run directory'\''s disk fills: stopped at once, healed, exit 3, Bail out' '
	small a 16m && test_cluster_up "$C" &&
	{ "$TICHAOS" run "$TRASH/attached.yaml" --cluster "$C/topology.yaml" \
		--out "$TRASH/a/run" >a.tap 2>a.err & } &&
	run=$! && test_track_pid $run &&
	R="$TRASH/a/run" &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"kill\\\"\" \"$R/history.jsonl\"" &&
	fill "$TRASH/a" && ended $run 120 &&
	{ test $code = 3 || { echo "exit $code"; tail -n 20 a.err; false; }; } &&
	why="cannot write '\''$R/history.jsonl'\'': No space left on device" &&
	echo "tichaos: $why" >expect && tail -n 1 a.err | test_cmp expect - &&
	grep -Eqx "ok 1 - workload 1 insert: [0-9]+ ok, 0 fail, 0 info" a.tap &&
	grep -qx "ok 2 - fault 1 kill: 1 of 1 injected, 1 healed" a.tap &&
	grep -qx "ok 3 - consistency # SKIP the run stopped before its checks" a.tap &&
	echo "Bail out! aborted: $why; what was recorded is in $R" >expect &&
	tail -n 1 a.tap | test_cmp expect - &&
	test_cmp a.tap "$R/report.tap" ||
	{ tail -n 20 a.err; cat a.tap; false; }
'

test_expect_success 'its results are the run'\''s, not the start-up stub; no line of the history lost' '
	perl -MJSON::PP -e "
		local \$/; my \$r = decode_json(<STDIN>);
		print \"\$r->{verdict}|\$r->{aborted}|\$r->{faults}[0]{healed}\n\";
	" <"$R/results.json" >got &&
	echo "error|cannot write '\''$R/history.jsonl'\'': No space left on device|1" >expect &&
	test_cmp expect got &&
	whole_lines "$R/history.jsonl" &&
	grep -q "\"type\":\"info\",\"f\":\"restart\",\"target\":\"cdc\"" "$R/history.jsonl" &&
	ok=$(grep -c "\"type\":\"ok\"" "$R/history.jsonl") &&
	grep -qx "ok 1 - workload 1 insert: $ok ok, 0 fail, 0 info" a.tap &&
	test ! -e "$R/.reserve" && test -s "$R/report.html" && test -s "$R/junit.xml"
'

test_expect_success 'the log says why it stopped and that the heal was done; the cluster runs healed' '
	grep -q "error cannot write '\''$R/history.jsonl'\'': No space left on device: stopping the run$" "$R/logs/tichaos.log" &&
	grep -q "info  restart cdc: {\"restarted\":\[{\"component\":\"down-0\"" "$R/logs/tichaos.log" &&
	"$TICHAOS" cluster status --dir "$C" >st &&
	test "$(grep -c " running " st)" = 3
'

# The local cluster inside the run directory, on the small disk: its
# servers meet the full disk too (MariaDB waits for space), so either the
# history or the run log may be the first file to fail, and the kill's
# heal may be done or fail — reported either way.
suite local "every: 4s
    start_after: 1s" 3s

test_expect_success 'the disk under the run and its cluster fills: stopped, torn down, exit 3' '
	small b 400m &&
	R="$TRASH/b/run" && test_clusters="$test_clusters $R/cluster" &&
	{ "$TICHAOS" run "$TRASH/local.yaml" --port-base auto --out "$R" \
		>b.tap 2>b.err & } &&
	run=$! && test_track_pid $run &&
	wait_for_condition 60 "grep -q \"\\\"type\\\":\\\"info\\\",\\\"f\\\":\\\"kill\\\"\" \"$R/history.jsonl\"" &&
	base=$(cat "$R/cluster/port-base") &&
	fill "$TRASH/b" && ended $run 120 &&
	{ test $code = 3 || { echo "exit $code"; tail -n 20 b.err; false; }; } &&
	why="cannot write '\''$R/(history\.jsonl|logs/tichaos\.log)'\'': No space left on device" &&
	tail -n 1 b.err | grep -Eqx "tichaos: $why" &&
	tail -n 1 b.tap | grep -Eqx "Bail out! aborted: $why; what was recorded is in $R" &&
	for f in /proc/[0-9]*/cmdline; do
		if { tr "\0" " " <"$f"; } 2>/dev/null | grep -q "$R/"; then
			echo "left running: $f"; return 1
		fi
	done &&
	for p in 0 1 2 3; do ! listening $((base + p)) || return 1; done
'

test_expect_success 'every heal is reported, done or failed, in the history and the results' '
	whole_lines "$R/history.jsonl" &&
	perl -MJSON::PP -e "
		local \$/; my \$r = decode_json(<STDIN>); my \$f = \$r->{faults}[0];
		print \"\$r->{verdict} \", \$f->{injected} - \$f->{healed} - \$f->{heal_failed}, \"\n\";
	" <"$R/results.json" >got &&
	echo "error 0" >expect && test_cmp expect got &&
	invoked=$(grep -c "\"type\":\"invoke\",\"f\":\"restart\"" "$R/history.jsonl") &&
	ended=$(grep -Ec "\"type\":\"(info|fail)\",\"f\":\"restart\"" "$R/history.jsonl") &&
	test "$invoked" -ge 1 && test "$invoked" = "$ended" &&
	test ! -e "$R/.reserve"
'

# Its directory was made: its verdict and why go in it, as far as the
# space there takes them (here they fit), and nothing ran.
test_expect_success 'a disk too small to start on: exit 3 before the run, a Bail out, its reason recorded' '
	small tiny 4m &&
	"$TICHAOS" run "$TRASH/local.yaml" --port-base auto --out "$TRASH/tiny/run" \
		>t.tap 2>t.err; test $? = 3 &&
	why="cannot reserve 8 MiB in '\''$TRASH/tiny/run'\'' for the end of the run: No space left on device" &&
	echo "tichaos: $why" >expect && tail -n 1 t.err | test_cmp expect - &&
	echo "Bail out! aborted: $why; what was recorded is in $TRASH/tiny/run" >expect &&
	tail -n 1 t.tap | test_cmp expect - &&
	grep -qx "ok 1 - workload 1 insert: 0 ok, 0 fail, 0 info # SKIP the run stopped before its workloads" t.tap &&
	test ! -e "$TRASH/tiny/run/history.jsonl" &&
	grep -qx "aborted: $why" "$TRASH/tiny/run/summary.txt"
'

test_done
