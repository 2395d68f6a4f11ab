# Sourced by the partition fault's tests after test-lib.sh, one body for
# each way to cut (as git's t5559 sources t5551): t0447 between the local
# cluster's hosts, t0451 between classes of net_cls on 127.0.0.1. The
# test file defines, before calling partition_sigint_test:
#   tables    the components that hold a table of cuts, one a line

# suite NAME DURATION DB FAULT-LINES...: inserts at 50/s, the fault, the
# consistency and progress checks.
suite() {
	insert_suite "$1" "$2" 5 "$3" 50
	shift 3
	echo "faults:"
	echo "  - kind: partition"
	for opt_ in "$@"; do
		echo "    $opt_"
	done
	printf 'checks:\n  - kind: consistency\n  - kind: progress\n'
}

# partition_sigint_test OUT COMPONENTS PROBES: a run of int.yaml (which
# it writes: cdc cut off for 20 s) on $C, out to $TRASH/OUT, SIGINTed
# once cut: its COMPONENTS tables made, all gone once it has healed and
# exited 4, the rejoin recorded with PROBES probes, every one answered.
partition_sigint_test() {
	partition_out_=$1 partition_comps_=$2 partition_probes_=$3
	test_expect_success 'SIGINT during a cut: healed (rejoin recorded), exit 4' '
	suite int 30s intdb "target: cdc" "at: [1s]" "down: 20s" >int.yaml || return 1
	"$TICHAOS" run int.yaml --cluster "$C/topology.yaml" --out "$TRASH/$partition_out_" >tap 2>err &
	run=$! &&
	test_track_pid $run &&
	wait_for_condition 120 "nemesis_value $TRASH/$partition_out_/history.jsonl partition 2>/dev/null | grep -q probes" &&
	test "$(tables | wc -l)" = "$partition_comps_" &&
	kill -INT $run &&
	{ wait $run; code=$?; } &&
	test "$code" = 4 &&
	nemesis_value "$TRASH/$partition_out_/history.jsonl" rejoin | grep -q "\"unanswered\":0,\"answered\":$partition_probes_" &&
	tables >after &&
	test ! -s after
	'
}
