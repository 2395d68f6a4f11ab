#!/bin/sh
# make stress: what `make test` is too short to show (docs/reliability.md).
#
# 1. cycles: STRESS_CYCLES (100) `cluster up` / `cluster down` of one
#    local cluster; after every down, no process names its directory and
#    no port of it listens (each cycle is its own tichaos process; what
#    one process could leak over many operations, the load run shows).
# 2. load: a run of STRESS_DURATION (30m) with STRESS_THREADS (64)
#    workload threads (STRESS_RATE, 2000 inserts/s in all) and a kill of
#    the CDC role every 5 s; the runner's resident memory, open files and
#    unreaped children are sampled every 5 s. It must pass, its open files
#    must end where they were after the first minute (give or take 8), no
#    sample may see more than one zombie child, and the peak resident
#    memory is reported.
#
# Figures go to stdout and STRESS_OUT (tests/stress/results/latest.txt).
# Every process it starts it stops by pid; ports come from --port-base
# auto.
set -u

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
TICHAOS=$ROOT/tichaos
CYCLES=${STRESS_CYCLES:-100}
DURATION=${STRESS_DURATION:-30m}
THREADS=${STRESS_THREADS:-64}
# Paced: unpaced, 64 threads on 2 cores write faster than the local
# replica (restarted every 5 s) applies, and the checks then fail on its
# lag, not on anything lost (the first full run: 332 s behind).
RATE=${STRESS_RATE:-2000}
OUT=${STRESS_OUT:-$ROOT/tests/stress/results/latest.txt}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/tichaos-stress.XXXXXX") || exit 1
RUN_PID=
KEEP=

cleanup() {
	[ -n "$RUN_PID" ] && kill -TERM "$RUN_PID" 2>/dev/null && wait "$RUN_PID"
	"$TICHAOS" cluster down --dir "$WORK/c" >/dev/null 2>&1
	for d in "$WORK"/load/cluster; do
		[ -d "$d" ] && "$TICHAOS" cluster down --dir "$d" >/dev/null 2>&1
	done
	# A failure keeps its evidence (the run directory, without the
	# servers' data).
	if [ -n "$KEEP" ]; then
		rm -rf "$WORK/c" "$WORK"/load/cluster/*/data
		echo "kept in $WORK"
	else
		rm -rf "$WORK"
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

say() {
	echo "$*"
	echo "$*" >>"$OUT"
}

fail() {
	say "FAIL: $*"
	KEEP=1
	exit 1
}

# left DIR: processes whose command line names DIR.
left() {
	for f in /proc/[0-9]*/cmdline; do
		{ tr '\0' ' ' <"$f"; } 2>/dev/null | grep -q "$1/" &&
			echo "${f%/cmdline}"
	done
}

listening() {
	ss -ltnH "sport = :$1" | grep -q .
}

mkdir -p "$(dirname "$OUT")" && : >"$OUT" || exit 1
say "# make stress, $(date -u +%Y-%m-%dT%H:%M:%SZ), $(nproc) cores, commit $(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo ?)"

# 1. cycles
start=$(date +%s)
for i in $(seq 1 "$CYCLES"); do
	"$TICHAOS" cluster up --dir "$WORK/c" --port-base auto >/dev/null 2>"$WORK/up.err" ||
		fail "cycle $i: cluster up: $(cat "$WORK/up.err")"
	base=$(cat "$WORK/c/port-base")
	"$TICHAOS" cluster down --dir "$WORK/c" >/dev/null 2>"$WORK/down.err" ||
		fail "cycle $i: cluster down: $(cat "$WORK/down.err")"
	[ -z "$(left "$WORK/c")" ] || fail "cycle $i: left running: $(left "$WORK/c")"
	for p in 0 1 2 3; do
		! listening $((base + p)) || fail "cycle $i: port $((base + p)) still listens"
	done
done
say "cycles: $CYCLES up/down cycles in $(( $(date +%s) - start )) s; nothing left after any"

# 2. load
cat >"$WORK/load.yaml" <<EOF
name: stress
duration: $DURATION
seed: 1
database: stress
tables:
  - name: t_{1..8}
    columns: "id BIGINT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
workloads:
  - kind: insert
    tables: t_{1..8}
    threads: $THREADS
    rate: $RATE
    ignore_errors: true
faults:
  - kind: kill
    target: cdc
    every: 5s
    down: 1s
checks:
  - kind: consistency
    sync_timeout: 1800s
  - kind: progress
    timeout: 600s
EOF
"$TICHAOS" run "$WORK/load.yaml" --out "$WORK/load" --port-base auto --quiet \
	>"$WORK/load.tap" 2>"$WORK/load.err" &
RUN_PID=$!
peak=0 fds_1m= fds_end= samples=0 zombies=0
while kill -0 "$RUN_PID" 2>/dev/null; do
	rss=$(awk '/^VmRSS/ { print $2 }' /proc/$RUN_PID/status 2>/dev/null)
	fds=$(ls /proc/$RUN_PID/fd 2>/dev/null | wc -l)
	z=$(ps -o stat= --ppid "$RUN_PID" 2>/dev/null | grep -c '^Z')
	[ "$z" -gt "$zombies" ] && zombies=$z
	[ -n "$rss" ] && [ "$rss" -gt "$peak" ] && peak=$rss
	samples=$((samples + 1))
	[ "$samples" = 12 ] && fds_1m=$fds
	[ "$fds" -gt 0 ] && fds_end=$fds
	sleep 5
done
wait "$RUN_PID"
code=$?
RUN_PID=
kills=$(grep -c '"type":"info","f":"kill"' "$WORK/load/history.jsonl" 2>/dev/null)
ops=$(grep -c '"type":"ok"' "$WORK/load/history.jsonl" 2>/dev/null)
say "load: $DURATION, $THREADS threads, $kills kills survived, $ops ok operations, exit $code, peak RSS $((peak / 1024)) MB, open files after 1 min ${fds_1m:-?}, at the end ${fds_end:-?}, unreaped children at most $zombies"
[ "$code" = 0 ] || fail "the load run did not pass (exit $code): $(grep -A3 "^not ok" "$WORK/load.tap" | tr '\n' ' ')"
if [ -n "$fds_1m" ] && [ -n "$fds_end" ] && [ "$fds_end" -gt $((fds_1m + 8)) ]; then
	fail "open files grew from $fds_1m to $fds_end"
fi
# A server killed by a fault is reaped by the heal; one sample may catch
# it between the two.
[ "$zombies" -le 1 ] || fail "$zombies children of the runner left unreaped (zombies)"
[ -z "$(left "$WORK/load")" ] || fail "left running after the load run: $(left "$WORK/load")"
say "PASS"
