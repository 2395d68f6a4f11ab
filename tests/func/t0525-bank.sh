#!/bin/sh
# The bank check on the stored runs of tests/data/histories/bank-*: offline
# (the reads only; the rest skipped), then attached to a real local
# cluster whose final balances the test sets upstream (replicated to the
# downstream): a clean run, a read that saw a changed total, an ok
# transfer that did not apply, an unknown transfer that did and one that
# did not, two that cannot be resolved, a downstream balance changed.
# Then the bank suite on the local cluster, its counts against its
# history, and a downstream balance tampered after it.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd

H="$DATA/histories"

# stored NAME DIR [TOPOLOGY]: copy stored run bank-NAME to $TRASH/DIR,
# attached to the cluster of TOPOLOGY when given.
stored() {
	rm -rf "$TRASH/$2" && cp -R "$H/bank-$1" "$TRASH/$2" &&
	if [ $# = 3 ]; then cp "$3" "$TRASH/$2/topology.yaml"; fi
}

# check DIR: tichaos check DIR, stdout in DIR.out; its exit code.
check() {
	"$TICHAOS" check "$1" >"$1.out" 2>"$1.err"
}

test_expect_success 'offline, clean: the reads pass, the rest is skipped with the reason' '
	stored clean off-clean &&
	check off-clean &&
	grep -qx "ok 1 - bank # SKIP 2 reads saw the total 400; the balances and the downstream are not checked: the cluster is not up" off-clean.out &&
	expect_result off-clean "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=0"
'

TOTAL_MSG="1 of 2 reads saw other than 400 in 4 accounts; first: read of 395 (4 accounts) (line 14, process 1, up-0, 4.000s..4.010s); between: kill cdc from 1.500s to 1.540s, kill cdc in effect from 1.540s to 3.500s, restart cdc from 3.000s to 3.500s"

test_expect_success 'offline, a read saw 395: fails naming the read and the kill around it' '
	stored total off-total &&
	{ check off-total; test $? = 1; } &&
	expect_result off-total "\$c->{verdict}" fail &&
	expect_result off-total "\$c->{message}" "$TOTAL_MSG" &&
	expect_result off-total "\$c->{details}{first_bad_reads}[0]{text}" "read of 395 (4 accounts) (line 14, process 1, up-0, 4.000s..4.010s)" &&
	expect_result off-total "\$c->{details}{first_bad_reads}[0]{between}" "[\"kill cdc from 1.500s to 1.540s\",\"kill cdc in effect from 1.540s to 3.500s\",\"restart cdc from 3.000s to 3.500s\"]"
'

test_expect_success 'offline, a read that saw 400 in 3 accounts fails too' '
	stored clean off-three &&
	sed -i -e "4s/\"accounts\":4/\"accounts\":3/" off-three/history.jsonl &&
	{ check off-three; test $? = 1; } &&
	expect_result off-three "\$c->{message}" "1 of 2 reads saw other than 400 in 4 accounts; first: read of 400 (3 accounts) (line 4, process 1, up-0, 1.100s..1.110s)" &&
	expect_result off-three "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=1"
'

test_expect_success 'offline, a read of the replica that saw 390 fails naming the replica' '
	stored clean off-replica &&
	sed -i -e "3,4s/\"f\":\"read\"/\"f\":\"replica_read\"/" \
		-e "3s/\"node\":\"up-0\"}/\"node\":\"up-0\",\"value\":{\"replica\":\"down-0\"}}/" \
		-e "4s/\"value\":{\"total\":400,/\"value\":{\"replica\":\"down-0\",\"total\":390,/" \
		off-replica/history.jsonl &&
	{ check off-replica; test $? = 1; } &&
	expect_result off-replica "\$c->{message}" "1 of 2 reads saw other than 400 in 4 accounts; first: replica read of 390 (4 accounts) (line 4, process 1, down-0, 1.100s..1.110s)" &&
	expect_result off-replica "\$c->{numbers}" "reads=2 replica_reads=1 bad_reads=1"
'

test_cluster_setup 'set up a cluster to attach to'

# balances A1 A2 A3 A4: the final balances upstream, replicated.
balances() {
	sql "$UP" "DROP DATABASE IF EXISTS bank; CREATE DATABASE bank;
		CREATE TABLE bank.acc_a (id INT PRIMARY KEY, balance BIGINT NOT NULL);
		CREATE TABLE bank.acc_b (id INT PRIMARY KEY, balance BIGINT NOT NULL);
		INSERT INTO bank.acc_a VALUES (1, $1), (3, $3);
		INSERT INTO bank.acc_b VALUES (2, $2), (4, $4)"
}

test_expect_success 'clean: passes with the counts of the history' '
	balances 90 110 95 105 &&
	stored clean clean "$T" &&
	check clean &&
	expect_result clean "\$c->{verdict}" pass &&
	expect_result clean "\$c->{message}" "2 reads saw the total 400; 2 ok transfers and 0 of 0 unknown ones applied fit the final balances, equal downstream (0 unresolved)" &&
	expect_result clean "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=0 transfers=2 failed=1 unknown=0 applied=0 not_applied=0 unresolved=0 downstream_differing=0" &&
	expect_result clean "[@{\$c->{details}}{qw(upstream_total downstream_total fitting_ways)}]" "[400,400,1]"
'

test_expect_success 'a changed total in a read fails though the balances fit' '
	stored total total "$T" &&
	{ check total; test $? = 1; } &&
	expect_result total "\$c->{message}" "$TOTAL_MSG" &&
	expect_result total "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=1 transfers=2 failed=1 unknown=0 applied=0 not_applied=0 unresolved=0 downstream_differing=0"
'

test_expect_success 'a lost ok transfer: the accounts and the transfer named, the kill in effect' '
	balances 90 110 100 100 &&
	stored clean lost "$T" &&
	{ check lost; test $? = 1; } &&
	expect_result lost "\$c->{message}" "the final balances do not fit the transfers: account 3 holds 100, expected 95, account 4 holds 100, expected 105 (2 accounts differ); an ok transfer that did not apply would explain it: transfer 3 -> 4 of 5 (line 8, process 0, up-0, 2.000s..2.010s); between: kill cdc in effect from 1.540s to 3.500s" &&
	expect_result lost "\$c->{details}{differing_accounts}" "[{\"account\":3,\"expected\":95,\"final\":100,\"table\":\"acc_a\"},{\"account\":4,\"expected\":105,\"final\":100,\"table\":\"acc_b\"}]" &&
	expect_result lost "\$c->{details}{fitting_ways}" 0
'

test_expect_success 'a failed transfer that applied is named as such' '
	balances 90 103 102 105 &&
	stored clean applied-fail "$T" &&
	{ check applied-fail; test $? = 1; } &&
	expect_result applied-fail "\$c->{details}{explained_by}" "[{\"applied_fail\":\"transfer 2 -> 3 of 7 (line 10, process 1, up-0, 2.100s..2.110s)\",\"between\":[\"kill cdc in effect from 1.540s to 3.500s\"]}]"
'

test_expect_success 'an unknown transfer that applied, and one never completed that did not' '
	balances 70 110 95 125 &&
	stored info info-applied "$T" &&
	check info-applied &&
	expect_result info-applied "\$c->{message}" "2 reads saw the total 400; 2 ok transfers and 1 of 2 unknown ones applied fit the final balances, equal downstream (0 unresolved)" &&
	expect_result info-applied "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=0 transfers=2 failed=1 unknown=2 applied=1 not_applied=1 unresolved=0 downstream_differing=0" &&
	expect_result info-applied "[map { \"\$_->{line}:\$_->{resolved}\" } @{\$c->{details}{unknown}}]" "[\"16:applied\",\"17:not applied\"]"
'

test_expect_success 'an unknown transfer that did not apply' '
	balances 90 110 95 105 &&
	stored info info-not "$T" &&
	check info-not &&
	expect_result info-not "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=0 transfers=2 failed=1 unknown=2 applied=0 not_applied=2 unresolved=0 downstream_differing=0" &&
	expect_result info-not "[map { \"\$_->{line}:\$_->{resolved}\" } @{\$c->{details}{unknown}}]" "[\"16:not applied\",\"17:not applied\"]"
'

test_expect_success 'an unknown transfer that fits no final state fails naming the accounts' '
	balances 80 110 95 115 &&
	stored info info-none "$T" &&
	{ check info-none; test $? = 1; } &&
	expect_result info-none "\$c->{message}" "the final balances fit no outcome of the 2 unknown transfers: account 1 holds 80, expected 90, account 4 holds 115, expected 105 (2 accounts differ)"
'

test_expect_success 'two unknown transfers that cancel out cannot be resolved: named, not failed' '
	balances 90 110 95 105 &&
	stored unresolved unresolved "$T" &&
	check unresolved &&
	expect_result unresolved "\$c->{message}" "2 reads saw the total 400; 2 ok transfers and 0 of 2 unknown ones applied fit the final balances, equal downstream; 2 unresolved, first: transfer 1 -> 4 of 20 (line 16, process 2, up-0, 4.500s..4.600s)" &&
	expect_result unresolved "\$c->{numbers}" "reads=2 replica_reads=0 bad_reads=0 transfers=2 failed=1 unknown=2 applied=0 not_applied=0 unresolved=2 downstream_differing=0" &&
	expect_result unresolved "\$c->{details}{fitting_ways}" 2
'

test_expect_success 'more unknown transfers than the check resolves: unknown, saying so' '
	balances 90 110 95 105 &&
	stored clean many "$T" &&
	for i in $(seq 1 21); do
		printf "{\"time\":%d,\"process\":%d,\"type\":\"invoke\",\"f\":\"transfer\",\"table\":\"bank.acc_a\",\"node\":\"up-0\",\"value\":{\"from\":1,\"to\":2,\"amount\":1}}\n" $((5000000000 + i)) $((i + 1))
	done >>many/history.jsonl &&
	{ check many; test $? = 3; } &&
	expect_result many "\$c->{verdict}" unknown &&
	expect_result many "\$c->{message}" "21 unknown transfers, more than the 20 the check resolves"
'

test_expect_success 'a downstream balance changed: fails naming the account and both totals' '
	balances 90 110 95 105 &&
	wait_for_condition 30 "test \"\$(sql $DOWN \"SELECT SUM(balance) FROM bank.acc_b\")\" = 215" &&
	sql "$DOWN" "UPDATE bank.acc_b SET balance = 99 WHERE id = 4" &&
	stored clean down "$T" &&
	{ check down; test $? = 1; } &&
	expect_result down "\$c->{message}" "the downstream differs: account 4 (acc_b) is 99 downstream, 105 upstream (1 accounts differ; totals 394 downstream, 400 upstream)" &&
	expect_result down "\$c->{details}{downstream_differing}" "[{\"account\":4,\"downstream\":99,\"table\":\"acc_b\",\"upstream\":105}]"
'

# counts DIR: "reads transfers failed unknown failed_reads replica_reads"
# of DIR's history: ok reads (of the replica too); ok, fail and info
# transfers (with invokes never completed); failed reads (of the replica
# too); ok reads of the replica.
counts() {
	perl -MJSON::PP -ne '
		my $l = decode_json($_);
		next unless $l->{process} =~ /^\d+$/;
		$n{"$l->{f} $l->{type}"}++;
		END {
			printf "%d %d %d %d %d %d\n",
				($n{"read ok"} // 0) + ($n{"replica_read ok"} // 0),
				$n{"transfer ok"} // 0, $n{"transfer fail"} // 0,
				($n{"transfer invoke"} // 0) - ($n{"transfer ok"} // 0)
				- ($n{"transfer fail"} // 0),
				($n{"read fail"} // 0) + ($n{"replica_read fail"} // 0),
				$n{"replica_read ok"} // 0;
		}
	' "$1/history.jsonl"
}

# The kill takes the replica (the cdc role) down, never the upstream the
# workers use: no transfer's outcome is unknown. A transfer refused
# because it would overdraw is a normal outcome, counted as refused; the
# failed reads of the killed replica are what the suite ignores.
test_expect_success 'the bank suite passes on the local cluster, its counts those of its history' '
	sql "$UP" "DROP DATABASE IF EXISTS bank" &&
	"$TICHAOS" run "$ROOT/suites/bank.yaml" --cluster "$T" --duration 15s \
		--out "$TRASH/run" >run.tap 2>run.err || { tail -5 run.err; false; }
	grep -c "^ok " run.tap >oks && echo 6 >expect && test_cmp expect oks &&
	set -- $(counts "$TRASH/run") &&
	test "$1" -gt 0 && test "$2" -gt 0 && test "$4" = 0 && test "$6" -gt 0 &&
	if [ "$5" = 0 ]; then ignored=; else ignored=", errors ignored"; fi &&
	grep -qx "ok 1 - workload 1 bank: $(($1 + $2)) ok, $5 fail, 0 info, $3 refused$ignored" run.tap &&
	test "$(perl -MJSON::PP -e "print decode_json(do { local \$/; <STDIN> })->{workloads}[0]{refused}" <"$TRASH/run/results.json")" = "$3" &&
	grep -qx "ok 3 - bank: $1 reads saw the total 2000; $2 ok transfers and 0 of 0 unknown ones applied fit the final balances, equal downstream (0 unresolved)" run.tap &&
	expect_result "$TRASH/run" "\$c->{numbers}" "reads=$1 replica_reads=$6 bad_reads=0 transfers=$2 failed=$3 unknown=0 applied=0 not_applied=0 unresolved=0 downstream_differing=0" &&
	expect_result "$TRASH/run" "[@{\$c->{details}}{qw(upstream_total downstream_total)}]" "[2000,2000]" &&
	test "$(grep -c "\"process\":\"nemesis\",\"type\":\"info\",\"f\":\"kill\"" "$TRASH/run/history.jsonl")" = 1 &&
	test "$(grep -c "\"type\":\"fail\",\"f\":\"transfer\".*\"error\":\"refused: account [0-9]* holds [0-9]*, less than [0-9]*\"" "$TRASH/run/history.jsonl")" = "$3"
'

test_expect_success 'a downstream balance tampered after the run: the check fails naming the account' '
	v=$(sql "$UP" "SELECT balance FROM bank.accounts_parted WHERE id = 6") &&
	sql "$DOWN" "UPDATE bank.accounts_parted SET balance = balance + 1 WHERE id = 6" &&
	{ "$TICHAOS" check "$TRASH/run" >check.out 2>check.err; test $? = 1; } &&
	grep -qx "not ok 1 - bank" check.out &&
	grep -qx "  message: \"the downstream differs: account 6 (accounts_parted) is $((v + 1)) downstream, $v upstream (1 accounts differ; totals 2001 downstream, 2000 upstream)\"" check.out
'

cat >"$TRASH/within.yaml" <<EOF
name: within
duration: 3s
seed: 7
database: within
tables:
  - name: w_{1..3}
    columns: "id INT PRIMARY KEY, balance BIGINT NOT NULL"
workloads:
  - kind: bank
    tables: w_{1..3}
    accounts: 7
    initial: 50
    cross_tables: false
    threads: 2
    rate: 100
checks:
  - kind: bank
    sync_timeout: 60s
EOF

# No ignore_errors: its transfers refused (accounts of 50, transfers up
# to 5) fail nothing.
test_expect_success 'cross_tables false: accounts round robin over three tables, every transfer within one' '
	"$TICHAOS" run "$TRASH/within.yaml" --cluster "$T" --out "$TRASH/within" \
		>within.tap 2>within.err || { tail -5 within.err; false; }
	sql "$UP" "SELECT GROUP_CONCAT(id ORDER BY id) FROM within.w_1;
		SELECT GROUP_CONCAT(id ORDER BY id) FROM within.w_2;
		SELECT GROUP_CONCAT(id ORDER BY id) FROM within.w_3;
		SELECT (SELECT SUM(balance) FROM within.w_1) + (SELECT SUM(balance) FROM within.w_2) + (SELECT SUM(balance) FROM within.w_3)" >got &&
	printf "%s\n" 1,4,7 2,5 3,6 350 >expect && test_cmp expect got &&
	perl -MJSON::PP -ne "
		my \$l = decode_json(\$_);
		next unless \$l->{f} eq q(transfer);
		my (\$f, \$t) = @{\$l->{value}}{qw(from to)};
		\$n++;
		die qq(line \$.: \$f -> \$t across tables\n) if (\$f - 1) % 3 != (\$t - 1) % 3 || \$f == \$t;
		die qq(line \$.: table \$l->{table} for account \$f\n)
			if \$l->{table} ne q(within.w_) . ((\$f - 1) % 3 + 1);
		END { die qq(no transfer\n) unless \$n }
	" "$TRASH/within/history.jsonl" &&
	grep -q "^ok 2 - bank: [0-9]* reads saw the total 350; " within.tap &&
	refused=$(grep -c "\"type\":\"fail\",\"f\":\"transfer\".*\"error\":\"refused: " "$TRASH/within/history.jsonl") &&
	test "$refused" -gt 0 &&
	grep -Eqx "ok 1 - workload 1 bank: [0-9]+ ok, 0 fail, 0 info, $refused refused" within.tap
'

test_done
