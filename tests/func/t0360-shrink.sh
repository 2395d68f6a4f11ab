#!/bin/sh
# tichaos shrink RUN_DIR (runner/cmd_shrink.c): a run that fails its data
# check because of one tamper among nine harmless pauses is shrunk to the
# tamper alone, over a shorter duration; the result replays and fails the
# same way; a plan that is no part of the drawn one is refused by replay.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

test_cluster_setup 'set up a cluster every run attaches to'

{
	insert_suite shrinkme 8s 7 shrinkme 100
	cat <<EOF
faults:
  - kind: pause
    target: upstream
    at: [500ms, 1s, 1500ms, 2s, 2500ms, 3s, 5s, 5500ms, 6s]
    down: 100ms
  - kind: tamper
    table: t
    delete: 3
    at: [4s]
checks:
  - kind: consistency
    sync_timeout: 30s
EOF
} >"$TRASH/shrinkme.yaml"

# events DIR: the events of DIR/plan.json, "at_ns kind" a line.
events() {
	perl -MJSON::PP -e '
		local $/; open my $f, "<", "$ARGV[0]/plan.json" or die "$!\n";
		print "$_->{at_ns} $_->{kind}\n" for @{ decode_json(<$f>)->{events} };
	' "$1"
}

test_expect_success 'the run fails its consistency check: ten events' '
	{ "$TICHAOS" run "$TRASH/shrinkme.yaml" --cluster "$T" --out "$TRASH/r" --quiet >tap 2>err; test $? = 1; } &&
	grep -qx "not ok 4 - consistency" tap &&
	test "$(events "$TRASH/r" | wc -l)" = 10 &&
	test "$(events "$TRASH/r" | grep -c " tamper$")" = 1
'

test_expect_success 'shrink finds the tamper alone, over 6s' '
	"$TICHAOS" shrink "$TRASH/r" --cluster "$T" --tries 2 >out 2>err ||
	{ cat err; false; } &&
	echo "4000000000 tamper" >expect &&
	events "$TRASH/r/shrink/smallest" >got &&
	test_cmp expect got &&
	grep -q "\"duration_ns\": 6000000000" "$TRASH/r/shrink/smallest/plan.json" &&
	grep -Eqx "$TRASH/r/shrink/smallest: 1 of 10 events over 6s fail consistency \([0-9]+ candidates; tichaos replay $TRASH/r/shrink/smallest\)" out &&
	cmp "$TRASH/r/suite.yaml" "$TRASH/r/shrink/smallest/suite.yaml"
'

test_expect_success 'shrink.json: every candidate, the first the whole plan' '
	perl -MJSON::PP -e "
		local \$/; my \$j = decode_json(<STDIN>);
		my @c = @{ \$j->{candidates} };
		die qq(first\n) unless \$c[0]{events} == 10 && \$c[0]{fails};
		die qq(empty\n) unless \$c[1]{events} == 0 && !\$c[1]{fails};
		die qq(last\n) unless \$c[-1]{events} == 1 && \$c[-1]{duration_ns} == 6e9 && \$c[-1]{fails};
		die qq(summary\n) unless \$j->{check} eq q(consistency) && \$j->{events}{from} == 10 && \$j->{events}{to} == 1
			&& \$j->{duration_ns}{to} == 6e9 && !\$j->{budget_spent} && \$j->{tries} == 2;
		# a failing candidate stops at its first run, a passing one
		# runs --tries 2 times
		for (@c) { die qq(\$_->{dir}\n) unless -d \$_->{dir} && \$_->{runs} == (\$_->{fails} ? 1 : 2) }
		print scalar(@c), qq(\n);
	" <"$TRASH/r/shrink/shrink.json" >n &&
	test "$(cat n)" -le 12
'

test_expect_success 'replay runs the smallest plan and fails the same check' '
	{ "$TICHAOS" replay "$TRASH/r/shrink/smallest" --cluster "$T" --out "$TRASH/again" --quiet >tap2 2>err2; test $? = 1; } &&
	grep -qx "not ok 4 - consistency" tap2 &&
	grep -qx "ok 2 - fault 1 pause: 0 of 0 injected, 0 healed # SKIP nothing was due" tap2 &&
	grep -q "^ok 3 - fault 2 tamper: 1 of 1 injected" tap2 &&
	echo "4000000000 tamper" >expect && events "$TRASH/again" >got && test_cmp expect got
'

test_expect_success '--budget spent: the smallest failing plan found by then, said' '
	"$TICHAOS" shrink "$TRASH/r" --cluster "$T" --budget 1s --out "$TRASH/b" >out4 2>err4 &&
	grep -Eqx "$TRASH/b/smallest: 10 of 10 events over 8s fail consistency, the budget spent \(2 candidates; tichaos replay $TRASH/b/smallest\)" out4 &&
	test "$(events "$TRASH/b/smallest" | wc -l)" = 10 &&
	grep -q "\"budget_spent\": true" "$TRASH/b/shrink.json"
'

test_expect_success 'a plan with an event the suite does not draw is refused' '
	mkdir bad && cp "$TRASH/r/suite.yaml" bad/ &&
	sed "s/\"at_ns\": 4000000000/\"at_ns\": 4500000000/" "$TRASH/r/shrink/smallest/plan.json" >bad/plan.json &&
	{ "$TICHAOS" replay bad --cluster "$T" --out "$TRASH/bad-run" >out3 2>err3; test $? = 2; } &&
	grep -q "cannot replay .bad.: this build draws another plan from its suite.yaml and seed than the one recorded in plan.json" err3 &&
	test ! -e "$TRASH/bad-run"
'

test_expect_success 'nothing to shrink: a run that failed no check; bad options' '
	{ "$TICHAOS" shrink "$TRASH/again/../again" --tries 0 >o 2>e; test $? = 2; } &&
	grep -q "^tichaos: shrink: --tries: " e &&
	mkdir ok && printf "{\"checks\":[{\"name\":\"ids\",\"verdict\":\"pass\"}]}\n" >ok/results.json &&
	{ "$TICHAOS" shrink ok >o 2>e; test $? = 2; } &&
	test "$(cat e)" = "tichaos: shrink: '\''ok'\'' failed no check (results.json): nothing to shrink"
'

test_done
