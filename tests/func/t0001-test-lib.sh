#!/bin/sh
# The harness itself: a file that skips for want of a server or a tool
# (need, skip_all) fails under CI (CI=true), where `make test` has
# installed them all; a skip for what the kernel cannot do (skip_machine)
# stays a skip; test_skip_missing fails its test point under CI; a
# cluster test_cluster_setup cannot bring up fails the file, CI or not;
# test_when_finished cleans up after its test, however it ended.
. "$(dirname "$0")/test-lib.sh"

# inner BODY: a test file of its own, $TRASH/inner.sh, sourcing the
# harness, then BODY. It is run from $TRASH/t/func, so the harness takes
# $TRASH for the tree: the tichaos there is a link to the one built.
mkdir -p "$TRASH/t/func" && ln -s "$TICHAOS" "$TRASH/tichaos" ||
	{ echo "Bail out! cannot make $TRASH/t/func"; exit 1; }
inner() {
	printf 'unset TICHAOS_TEST_FAILURES\n. "%s/test-lib.sh"\n%s\n' "$TEST_DIR" "$1" >"$TRASH/t/func/inner.sh"
}

test_expect_success 'need: a missing server skips the file off CI' '
	inner "need sh tichaos-no-such-server" &&
	(unset CI; sh "$TRASH/t/func/inner.sh") >out; test $? = 0 &&
	echo "1..0 # SKIP tichaos-no-such-server is not installed (make deps)" >expect &&
	test_cmp expect out
'

test_expect_success 'need: the same file fails under CI=true, saying why' '
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 1 &&
	printf "%s\n" "1..1" "not ok 1 - skipped: tichaos-no-such-server is not installed (make deps) (CI=true runs every test)" >expect &&
	test_cmp expect out
'

test_expect_success 'need: what is installed goes on, under CI=true too' '
	inner "need sh; test_done" &&
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 0 &&
	echo "1..0" >expect &&
	test_cmp expect out
'

test_expect_success 'skip_machine: a skip under CI=true too' '
	inner "skip_machine \"this kernel has no net_cls controller\"" &&
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 0 &&
	echo "1..0 # SKIP this kernel has no net_cls controller" >expect &&
	test_cmp expect out
'

test_expect_success 'test_skip_missing: a skip off CI, a failed point under CI=true' '
	inner "test_skip_missing \"clock over SSH\" \"faketime is not installed (make deps)\"; test_done" &&
	(unset CI; sh "$TRASH/t/func/inner.sh") >out; test $? = 0 &&
	printf "%s\n" "ok 1 - clock over SSH # SKIP faketime is not installed (make deps)" "1..1" >expect &&
	test_cmp expect out &&
	CI=true sh "$TRASH/t/func/inner.sh" >out; test $? = 1 &&
	printf "%s\n" "not ok 1 - clock over SSH: skipped: faketime is not installed (make deps) (CI=true runs every test)" "1..1" >expect &&
	test_cmp expect out
'

test_expect_success 'test_when_finished: run after the test, passed or failed, the last first; its failure fails the test' '
	inner "test_expect_success passes \"test_when_finished \\\"echo one >>log\\\" && test_when_finished \\\"echo two >>log\\\" && true\"
test_expect_success fails \"test_when_finished \\\"echo three >>log\\\" && false\"
test_expect_success cleanup-fails \"test_when_finished false && true\"
test_expect_success after \"true\"
cp log \"$TRASH/log\"
test_done" &&
	(unset CI; sh "$TRASH/t/func/inner.sh") >out 2>/dev/null; test $? = 1 &&
	printf "%s\n" "ok 1 - passes" "not ok 2 - fails" "not ok 3 - cleanup-fails" "ok 4 - after" "1..4" >expect &&
	test_cmp expect out &&
	printf "%s\n" two one three >expect &&
	test_cmp expect "$TRASH/log"
'

test_expect_success 'test_cluster_setup: a cluster that cannot come up bails out, CI or not' '
	base=$(free_port_base) || return 1
	perl -MIO::Socket::INET -e "\$s = IO::Socket::INET->new(LocalAddr => qq(127.0.0.1:\$ARGV[0]), Listen => 1, ReuseAddr => 1) or die; sleep 600" "$base" &
	listener=$! && test_track_pid $listener &&
	test_when_finished "kill $listener && wait $listener; ! alive $listener" &&
	wait_for_condition 10 "listening $base" &&
	inner "test_cluster_setup \"set up a cluster to attach to\" \"\" --port-base $base
test_expect_success \"never run\" true
test_done" &&
	printf "%s\n" "not ok 1 - set up a cluster to attach to" \
		"Bail out! the set-up of the cluster in C failed: no test here can run" >expect &&
	for ci in true false; do
		CI=$ci sh "$TRASH/t/func/inner.sh" >out 2>err; test $? = 1 &&
		sed -e "s|in /[^ ]*/c failed|in C failed|" out >actual &&
		test_cmp expect actual &&
		grep -q "^# tichaos: port $base of up-0 is already in use" err ||
		return 1
	done
'

test_done
