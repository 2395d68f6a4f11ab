#!/bin/sh
# The ids checker offline (`tichaos check RUN_DIR`) on the stored runs of
# tests/data/histories/: TiDB issue 52600 (4003 then 5 after the autoid
# leader moves away and back), a clean run, a duplicate id, one the
# primary key refused, overlapping
# inserts, a truncated table, a cut last line, a broken line, the options,
# and a generated history of a million inserts.
. "$(dirname "$0")/test-lib.sh"

H="$DATA/histories"

# run NAME [DIR]: copy stored run NAME (check writes results.json into it)
# to $TRASH/DIR (default NAME).
run() {
	rm -rf "$TRASH/${2:-$1}" && cp -R "$H/$1" "$TRASH/${2:-$1}"
}

# check DIR: tichaos check DIR, stdout in DIR.out; its exit code.
check() {
	"$TICHAOS" check "$1" >"$1.out" 2>"$1.err"
}

# with_checks DIR YAML: replace the checks of DIR's suite with YAML.
with_checks() {
	sed -e '/^checks:/,$d' "$1/suite.yaml" >"$1/suite.new" &&
	printf 'checks:\n%s\n' "$2" >>"$1/suite.new" &&
	mv "$1/suite.new" "$1/suite.yaml"
}

test_expect_success '52600: 4003 then 5 fails, naming both and what moved between' '
	run autoid-52600 &&
	{ check autoid-52600; test $? = 1; } &&
	grep -q "^not ok 1 - ids$" autoid-52600.out &&
	expect_result autoid-52600 "\$c->{verdict}" fail &&
	expect_result autoid-52600 "\$c->{message}" "test.t: id 5 (tidb-0, invoked 3.600s) after id 4003 (tidb-1, done 3.410s); between: owner tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s, resign autoid tidb-0 -> tidb-1 -> tidb-0 at 3.550s" &&
	grep -Fq "message: \"test.t: id 5 (tidb-0, invoked 3.600s) after id 4003" autoid-52600.out &&
	expect_result autoid-52600 "\$c->{numbers}" "inserts=10 violations=3 duplicates=0 refused=0"
'

test_expect_success '52600: every violation against 4003, with the events in its window' '
	expect_result autoid-52600 "[@{\$c->{details}}{qw(tables inserts violations duplicates)}]" "[1,10,3,0]" &&
	expect_result autoid-52600 "\$c->{details}{first}[0]" "{\"a\":{\"complete\":3.41,\"id\":4003,\"invoke\":3.4,\"line\":18,\"node\":\"tidb-1\",\"process\":1},\"b\":{\"complete\":3.61,\"id\":5,\"invoke\":3.6,\"line\":21,\"node\":\"tidb-0\",\"process\":0},\"between\":[\"owner tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s\",\"resign autoid tidb-0 -> tidb-1 -> tidb-0 at 3.550s\"],\"table\":\"test.t\"}" &&
	expect_result autoid-52600 "join q( ), map { \"\$_->{a}{id}>\$_->{b}{id}\" } @{\$c->{details}{first}}" "4003>5 4003>6 4003>7" &&
	expect_result autoid-52600 "\$c->{details}{excluded}" "[]" &&
	expect_result autoid-52600 "\$c->{details}{duplicate_ids}" "[]"
'

test_expect_success '52600: report.html plots each server'"'"'s ids, the pairs joined, the moves marked' '
	h=autoid-52600/report.html &&
	test "$(grep -c "<svg [^>]*class=\"idsplot\"" $h)" = 1 &&
	grep -q "<h4>test.t: ids over time, per server</h4>" $h &&
	grep -o "<g class=\"viol\"><title>[^<]*</title>" $h >viol &&
	printf "%s\n" "<g class=\"viol\"><title>id 5 (tidb-0, 3.610s) after id 4003 (tidb-1, 3.410s)</title>" \
		"<g class=\"viol\"><title>id 6 (tidb-0, 3.710s) after id 4003 (tidb-1, 3.410s)</title>" \
		"<g class=\"viol\"><title>id 7 (tidb-0, 3.810s) after id 4003 (tidb-1, 3.410s)</title>" >expect &&
	test_cmp expect viol &&
	test "$(grep -o "<circle [^>]*r=\"2\" class=\"n0\"/>" $h | wc -l)" = 7 &&
	sed -n "/class=\"idsplot\"/,/<\/svg>/p" $h >plot &&
	grep -o "class=\"tick\" text-anchor=\"end\">[0-9]*<" plot | sed "s/.*>\([0-9]*\)</\1/" >yticks &&
	printf "%s\n" 0 2000 4000 6000 >expect && test_cmp expect yticks &&
	grep -q "class=\"flabel\">resign autoid</text>" plot &&
	test "$(grep -o "<circle [^>]*r=\"2\" class=\"n1\"/>" $h | wc -l)" = 3 &&
	grep -o "class=\"at-[a-z]*\"><title>[^<]*" $h >marks &&
	printf "%s\n" "class=\"at-owner\"><title>0.500s tidb/autoid/leader: tidb-0, was none" \
		"class=\"at-instant\"><title>3.550s resign autoid" \
		"class=\"at-owner\"><title>3.100s tidb/autoid/leader: tidb-1, was tidb-0" \
		"class=\"at-owner\"><title>3.500s tidb/autoid/leader: tidb-0, was tidb-1" >expect &&
	test_cmp expect marks
'

test_expect_success '52600: a fault still running at B is shown from its invoke' '
	run autoid-52600 span &&
	sed -i -e "s/^{\"time\":3550000000,\"process\":\"nemesis\"/{\"time\":3650000000,\"process\":\"nemesis\"/" span/history.jsonl &&
	{ check span; test $? = 1; } &&
	expect_result span "\$c->{details}{first}[0]{between}" "[\"resign autoid tidb-0 -> tidb-1 -> tidb-0 from 3.000s to 3.650s\",\"owner tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s\"]"
'

test_expect_success '52600: a fault never completed is shown as unfinished' '
	run autoid-52600 open &&
	sed -i -e "/\"process\":\"nemesis\",\"type\":\"info\"/d" open/history.jsonl &&
	{ check open; test $? = 1; } &&
	expect_result open "\$c->{details}{first}[0]{between}" "[\"resign autoid from 3.000s, unfinished\",\"owner tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s\"]"
'

test_expect_success 'max_report limits the list, not the count' '
	run autoid-52600 one &&
	with_checks one "  - kind: ids
    max_report: 1" &&
	{ check one; test $? = 1; } &&
	expect_result one "\$c->{numbers}" "inserts=10 violations=3 duplicates=0 refused=0" &&
	expect_result one "scalar @{\$c->{details}{first}}" 1
'

test_expect_success 'monotonic: false passes 52600 on uniqueness alone' '
	run autoid-52600 nomono &&
	with_checks nomono "  - kind: ids
    monotonic: false" &&
	check nomono &&
	expect_result nomono "\$c->{message}" "1 table, 10 inserts: ids unique"
'

test_expect_success 'monotonic and unique both false: the suite is refused' '
	run clean neither &&
	with_checks neither "  - kind: ids
    monotonic: false
    unique: false" &&
	{ "$TICHAOS" validate neither/suite.yaml 2>err; test $? = 2; } &&
	grep -q "suite.yaml:[0-9]*:[0-9]*: check .ids.: monotonic and unique are both false, nothing to check$" err
'

test_expect_success 'clean: ids that only increase pass; failed and unknown inserts say nothing' '
	run clean &&
	check clean &&
	grep -q "^ok 1 - ids" clean.out &&
	expect_result clean "\$c->{verdict}" pass &&
	expect_result clean "\$c->{message}" "1 table, 10 inserts: ids unique and increasing" &&
	expect_result clean "\$c->{numbers}" "inserts=10 violations=0 duplicates=0 refused=0"
'

test_expect_success 'duplicate: the same id from two nodes fails unique, naming both' '
	run duplicate &&
	{ check duplicate; test $? = 1; } &&
	expect_result duplicate "\$c->{message}" "test.t: id 3 returned twice: tidb-1 (done 2.040s), tidb-0 (done 2.050s)" &&
	expect_result duplicate "\$c->{numbers}" "inserts=6 violations=0 duplicates=1 refused=0" &&
	expect_result duplicate "\$c->{details}{duplicate_ids}" "[{\"count\":2,\"id\":3,\"ops\":[{\"complete\":2.04,\"id\":3,\"invoke\":2.01,\"line\":11,\"node\":\"tidb-1\",\"process\":1},{\"complete\":2.05,\"id\":3,\"invoke\":2,\"line\":7,\"node\":\"tidb-0\",\"process\":0}],\"table\":\"test.t\"}]"
'

test_expect_success 'refused: an id the primary key refused (1062) is an id given out: both checks see it' '
	run refused &&
	{ check refused; test $? = 1; } &&
	expect_result refused "\$c->{message}" "test.t: id 3 (tidb-0, invoked 3.600s, refused by the primary key) after id 4003 (tidb-1, done 3.410s); between: owner tidb/autoid/leader tidb-1 -> tidb-0 at 3.500s, resign autoid tidb-0 -> tidb-1 -> tidb-0 at 3.550s" &&
	expect_result refused "\$c->{numbers}" "inserts=11 violations=1 duplicates=1 refused=1" &&
	# The plot: 10 ok inserts and the refused one, each a dot.
	test "$(grep -o "<circle [^>]*r=\"2\" class=\"n[01]\"" refused/report.html | wc -l)" = 11 &&
	expect_result refused "\$c->{details}{duplicate_ids}" "[{\"count\":2,\"id\":3,\"ops\":[{\"complete\":1.21,\"id\":3,\"invoke\":1.2,\"line\":7,\"node\":\"tidb-0\",\"process\":0},{\"complete\":3.61,\"id\":3,\"invoke\":3.6,\"line\":25,\"node\":\"tidb-0\",\"process\":0,\"refused\":true}],\"table\":\"test.t\"}]" &&
	run refused nomono &&
	with_checks nomono "  - kind: ids
    monotonic: false" &&
	{ check nomono; test $? = 1; } &&
	expect_result nomono "\$c->{message}" "test.t: id 3 returned twice: tidb-0 (done 1.210s), tidb-0 (refused by the primary key 3.610s)"
'

test_expect_success 'duplicate: unique: false lets it pass' '
	run duplicate nouniq &&
	with_checks nouniq "  - kind: ids
    unique: false" &&
	check nouniq &&
	expect_result nouniq "\$c->{message}" "1 table, 6 inserts: ids increasing"
'

test_expect_success 'concurrent: a lower id from an overlapping insert is no violation' '
	run concurrent &&
	check concurrent &&
	expect_result concurrent "\$c->{message}" "1 table, 5 inserts: ids unique and increasing"
'

test_expect_success 'concurrent: the same history ordered in real time fails' '
	run concurrent ordered &&
	sed -i -e "s/\"time\":1050000000,/\"time\":1101000000,/" ordered/history.jsonl &&
	{ check ordered; test $? = 1; } &&
	expect_result ordered "\$c->{message}" "test.t: id 7 (tidb-0, invoked 1.101s) after id 10 (tidb-1, done 1.100s); no fault or owner change between" &&
	expect_result ordered "\$c->{numbers}" "inserts=5 violations=1 duplicates=0 refused=0"
'

test_expect_success 'ddl: a truncated table is excluded, the other one checked' '
	run ddl &&
	check ddl &&
	expect_result ddl "\$c->{message}" "1 table, 6 inserts: ids unique and increasing; 1 table excluded after DDL" &&
	expect_result ddl "\$c->{details}{excluded}" "[{\"at\":2.05,\"because\":\"truncate\",\"inserts\":6,\"table\":\"test.t\",\"type\":\"ok\"}]"
'

test_expect_success 'ddl: an unknown (info) truncate excludes the table too' '
	run ddl info &&
	sed -i -e "s/\"type\":\"ok\",\"f\":\"truncate\"/\"type\":\"info\",\"f\":\"truncate\"/" info/history.jsonl &&
	check info &&
	expect_result info "\$c->{details}{excluded}" "[{\"at\":2.05,\"because\":\"truncate\",\"inserts\":6,\"table\":\"test.t\",\"type\":\"info\"}]"
'

test_expect_success 'ddl: so does a truncate the history ends in' '
	run ddl open-ddl &&
	sed -i -e "/\"type\":\"ok\",\"f\":\"truncate\"/d" open-ddl/history.jsonl &&
	check open-ddl &&
	expect_result open-ddl "\$c->{details}{excluded}" "[{\"at\":2,\"because\":\"truncate\",\"inserts\":6,\"table\":\"test.t\",\"type\":\"invoke\"}]"
'

test_expect_success 'ddl: without the truncate the restart at 1 fails' '
	run ddl no-ddl &&
	sed -i -e "/\"f\":\"truncate\"/d" no-ddl/history.jsonl &&
	{ check no-ddl; test $? = 1; } &&
	expect_result no-ddl "\$c->{numbers}" "inserts=12 violations=3 duplicates=3 refused=0" &&
	expect_result no-ddl "\$c->{message}" "test.t: id 1 (tidb-0, invoked 3.000s) after id 3 (tidb-0, done 1.210s); no fault or owner change between"
'

test_expect_success 'tables: only the named tables are checked' '
	run ddl only-u &&
	with_checks only-u "  - kind: ids
    tables: [u]" &&
	check only-u &&
	expect_result only-u "\$c->{message}" "1 table, 6 inserts: ids unique and increasing" &&
	run ddl only-t &&
	with_checks only-t "  - kind: ids
    tables: [t]" &&
	check only-t &&
	expect_result only-t "\$c->{verdict}" skip &&
	expect_result only-t "\$c->{message}" "no table to check: test.t excluded after truncate at 2.050s"
'

test_expect_success 'no ok inserts with ids: skip' '
	run clean empty &&
	grep -v "\"f\":\"insert\"" clean/history.jsonl >empty/history.jsonl &&
	check empty &&
	expect_result empty "\$c->{verdict}" skip &&
	expect_result empty "\$c->{message}" "no ok inserts with ids in the history"
'

test_expect_success 'a cut last line is ignored, the rest judged' '
	run cut-line &&
	check cut-line &&
	expect_result cut-line "\$c->{message}" "1 table, 10 inserts: ids unique and increasing" &&
	expect_result cut-line "\$c->{details}{ignored_last_line}" 31
'

test_expect_success 'a broken line in the middle: unknown, naming the line' '
	run garbage &&
	{ check garbage; test $? = 3; } &&
	expect_result garbage "\$c->{verdict}" unknown &&
	expect_result garbage "\$c->{message}" "history.jsonl:7:96: not JSON: expected '\'','\'' or '\''}'\''"
'

test_expect_success 'an id that is not an integer: unknown' '
	run clean frac &&
	sed -i -e "s/\"id\":4002}/\"id\":4002.5}/" frac/history.jsonl &&
	{ check frac; test $? = 3; } &&
	expect_result frac "\$c->{message}" "history.jsonl:16: \"id\" is not an integer"
'

test_expect_success 'an ok insert without its invoke: unknown' '
	run clean lost &&
	sed -i -e "/\"time\":3300000000,/d" lost/history.jsonl &&
	{ check lost; test $? = 3; } &&
	expect_result lost "\$c->{message}" "history.jsonl:15: ok insert of process 1 without its invoke"
'

test_expect_success 'no history: unknown' '
	run clean gone &&
	rm gone/history.jsonl &&
	{ check gone; test $? = 3; } &&
	expect_result gone "\$c->{message}" "cannot open '\''gone/history.jsonl'\'': No such file or directory"
'

# A million inserts by 8 processes on two nodes, overlapping, ids in
# invoke order, each process's lines together as the history writes them.
test_expect_success 'a million inserts: pass, in seconds' '
	mkdir big && cp "$H/clean/suite.yaml" big/ &&
	perl -e '\''
		for my $i (0 .. 999999) {
			my $p = $i % 8;
			my $node = "tidb-" . ($p % 2);
			my $inv = 1000000000 + $i * 1000;
			my $done = $inv + 500 + ($i % 7) * 1000;
			print qq({"time":$inv,"process":$p,"type":"invoke","f":"insert","table":"test.t","node":"$node"}\n),
			      qq({"time":$done,"process":$p,"type":"ok","f":"insert","table":"test.t","node":"$node","id":), $i + 1, "}\n";
			print qq({"time":@{[$inv + 1]},"process":"monitor","type":"info","f":"owner","target":"tidb/autoid/leader","value":{"from":"tidb-0","to":"tidb-1"}}\n)
				if $i % 100000 == 0;
		}'\'' >big/history.jsonl &&
	start=$(date +%s.%N) &&
	check big &&
	end=$(date +%s.%N) &&
	awk -v s="$start" -v e="$end" "BEGIN { printf \"%.2f\n\", e - s }" >big.seconds &&
	expect_result big "\$c->{message}" "1 table, 1000000 inserts: ids unique and increasing"
'
echo "# tichaos check on 1000000 inserts (2000010 lines): $(cat "$TRASH/big.seconds" 2>/dev/null || echo '?') s"

test_done
