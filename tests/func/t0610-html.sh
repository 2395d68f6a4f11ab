#!/bin/sh
# report.html: self-contained, with the verdicts, the timeline in lanes
# (components, other faults, owners, tables with DDL), throughput and
# latency plots with the fault windows shaded, a legend on each; rendered
# by headless Chromium.
. "$(dirname "$0")/test-lib.sh"

need mariadbd etcd chromium

test_cluster_setup 'set up a cluster to attach to'

cat >"$TRASH/html.yaml" <<EOF
name: html
duration: 6s
seed: 4
database: html
tables:
  - name: t_{1..2}
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
  - name: p
    columns: "id INT AUTO_INCREMENT PRIMARY KEY, data VARCHAR(255)"
    partition: "RANGE (id) (PARTITION p0 VALUES LESS THAN (100), PARTITION p1 VALUES LESS THAN MAXVALUE)"
workloads:
  - kind: insert
    tables: ["t_{1..2}", p]
    rate: 300
    ignore_errors: true
  - kind: partition_ddl
    tables: p
    ops: [truncate]
    every: 2s
    ignore_errors: true
faults:
  - kind: kill
    target: cdc
    at: [1s, 3s]
    down: 1s
checks:
  - kind: consistency
    sync_timeout: 30s
EOF

R="$TRASH/r"

test_expect_success 'a run with two kills writes report.html' '
	"$TICHAOS" run "$TRASH/html.yaml" --cluster "$C/topology.yaml" --out "$R" >tap 2>err ||
	{ cat err; false; } &&
	test -s "$R/report.html"
'

test_expect_success 'it is self-contained: no script, no stylesheet or image from elsewhere' '
	! grep -Eqi "<script|<link|<img|src=|url\(" "$R/report.html" &&
	test "$(grep -o "https\{0,1\}://[^\"]*" "$R/report.html" | sort -u)" = "http://www.w3.org/2000/svg"
'

test_expect_success 'the verdict table has every item with its verdict' '
	for row in "workload 1 insert</td><td class=\"v-pass\">pass" \
		"workload 2 partition_ddl</td><td class=\"v-pass\">pass" \
		"fault 1 kill</td><td class=\"v-pass\">pass" \
		"consistency</td><td class=\"v-pass\">pass"; do
		grep -q "$row" "$R/report.html" || { echo "no row: $row"; return 1; }
	done
'

test_expect_success 'the killed component has a lane, down until each restart; the DDL table has its own' '
	# cdc on the local cluster: the replicating downstream server
	test "$(grep -c "<rect [^>]*class=\"seg s-down\"><title>down-0: down, [0-9.]*s to [0-9.]*s (kill cdc)</title>" "$R/report.html")" = 2 &&
	grep -o "class=\"lane\" text-anchor=\"end\">[^<]*<" "$R/report.html" |
		sed -e "s/.*>//" -e "s/<\$//" >lanes.out &&
	printf "%s\n" down-0 owners html.p >expect &&
	test_cmp expect lanes.out &&
	test "$(grep -c "<circle [^>]*class=\"ddl\"><title>[0-9.]*s truncate html.p</title>" "$R/report.html")" = 2
'

# The inserts' two plots, the partition DDL's one plot of points (its
# operation every 2 s): each shades both kills, and labels them.
test_expect_success 'every plot shades each kill to its restart, labelled' '
	test "$(grep -c "<rect [^>]*class=\"fault s-down\"><title>kill cdc, [0-9.]*s to [0-9.]*s</title>" "$R/report.html")" = 6 &&
	test "$(grep -c "<text [^>]*class=\"flabel\">kill cdc</text>" "$R/report.html")" = 8
'

# Faults that overlap: a kill, a pause, then the kill's restart before
# the pause's continue. Each heal closes its own window (its fault item,
# its target), not the last one opened. Records that name no component
# put the fault on its target's lane.
test_expect_success 'overlapping faults: each heal closes its own window' '
	mkdir over && cp "$R/results.json" over/ &&
	cat >over/history.jsonl <<-\EOF &&
	{"time":1000000000,"process":"nemesis","type":"invoke","f":"kill","target":"cdc","fault":0}
	{"time":1000000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"holds":"down","fault":0}
	{"time":2000000000,"process":"nemesis","type":"info","f":"pause","target":"upstream","value":{},"holds":"paused","fault":1}
	{"time":3000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{},"heal":true,"fault":0}
	{"time":3500000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"holds":"down","fault":0}
	{"time":4000000000,"process":"nemesis","type":"info","f":"continue","target":"upstream","value":{},"heal":true,"fault":1}
	EOF
	"$TICHAOS" report over >/dev/null &&
	grep -o "class=\"fault [^\"]*\"><title>[^<]*</title>" over/report.html | sort -u >windows &&
	printf "%s\n" "class=\"fault s-down\"><title>kill cdc, 1.0s to 3.0s</title>" \
		"class=\"fault s-down\"><title>kill cdc, 3.5s, not healed</title>" \
		"class=\"fault s-paused\"><title>pause upstream, 2.0s to 4.0s</title>" >expect &&
	test_cmp expect windows &&
	grep -o "class=\"seg [^\"]*\"><title>[^<]*</title>" over/report.html >segments &&
	printf "%s\n" "class=\"seg s-down\"><title>cdc: down, 1.0s to 3.0s (kill cdc)</title>" \
		"class=\"seg s-down\"><title>cdc: down, 3.5s, not healed (kill cdc)</title>" \
		"class=\"seg s-paused\"><title>upstream: paused, 2.0s to 4.0s (pause upstream)</title>" >expect &&
	test_cmp expect segments
'

# Two kill items on the same target: the second item's heal (due first)
# closes its own window, not the oldest open one of the kind.
test_expect_success 'two items of one kind on one target: each heal closes its item'"'"'s window' '
	mkdir same && cp "$R/results.json" same/ &&
	cat >same/history.jsonl <<-\EOF &&
	{"time":1000000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"holds":"down","fault":0}
	{"time":2000000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"holds":"down","fault":1}
	{"time":3000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{},"heal":true,"fault":1}
	{"time":5000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{},"heal":true,"fault":0}
	EOF
	"$TICHAOS" report same >/dev/null &&
	grep -o "class=\"fault [^\"]*\"><title>[^<]*</title>" same/report.html | sort -u >windows &&
	printf "%s\n" "class=\"fault s-down\"><title>kill cdc, 1.0s to 5.0s</title>" \
		"class=\"fault s-down\"><title>kill cdc, 2.0s to 3.0s</title>" >expect &&
	test_cmp expect windows
'

# A history with one of each fault that holds components, owner changes
# and DDL on two tables, written by hand as the faults and the monitor
# write them (faults/*.c, runner/nemesis.c): a run of 10 s.
mkdir lanes
cat >lanes/results.json <<\EOF
{"suite":"lanes","seed":1,"duration_ns":10000000000,"duration":"10s","verdict":"pass",
 "workloads":[{"name":"workload 1 insert","verdict":"pass","per_step":{"step_s":1,
  "ok":[10,20,30,40,50,60,70,80,90,100],"errors":[0,1,0,0,0,0,0,0,0,0],
  "p50_us":[100,200,300,300,300,300,300,300,300,300],
  "p99_us":[900,800,700,700,700,700,700,700,700,700]}}],
 "faults":[],"checks":[]}
EOF
cat >lanes/history.jsonl <<\EOF
{"time":500000000,"process":"monitor","type":"info","f":"owner","target":"etcd/leader","value":{"from":null,"to":"etcd-0","to_component":"etcd-0"}}
{"time":1000000000,"process":"nemesis","type":"invoke","f":"kill","target":"cdc","fault":0}
{"time":1100000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{"signal":"KILL","killed":[{"component":"down-0","pid":10}],"took_ms":100},"holds":"down","fault":0}
{"time":1500000000,"process":"nemesis","type":"invoke","f":"pause","target":"upstream","fault":1}
{"time":1500000000,"process":"nemesis","type":"info","f":"pause","target":"upstream","value":{"paused":[{"component":"up-0","pid":11}],"took_ms":0},"holds":"paused","fault":1}
{"time":2000000000,"process":"nemesis","type":"invoke","f":"partition","target":"down-0","fault":2}
{"time":2500000000,"process":"monitor","type":"info","f":"owner","target":"/tidb/ddl/fg/owner","value":{"from":"abc","to":"def","to_component":"tidb-1"}}
{"time":3000000000,"process":"nemesis","type":"info","f":"partition","target":"down-0","value":{"shape":"one","direction":"both","sides":[["down-0"],["etcd-0","up-0"]],"cuts":[{"host":"down-0","drops":["etcd-0","up-0"]},{"host":"etcd-0","drops":["down-0"]},{"host":"up-0","drops":["down-0"]}],"took_ms":1000},"holds":"cut","fault":2}
{"time":3000000000,"process":"nemesis","type":"invoke","f":"restart","target":"cdc","heal":true,"fault":0}
{"time":3000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{"restarted":[{"component":"down-0","pid":12,"ready_ms":0}],"took_ms":0},"heal":true,"fault":0}
{"time":3500000000,"process":"nemesis","type":"info","f":"continue","target":"upstream","value":{"continued":[{"component":"up-0","pid":11}],"took_ms":0},"heal":true,"fault":1}
{"time":4000000000,"process":"nemesis","type":"invoke","f":"netem","target":"etcd-0","fault":3}
{"time":4200000000,"process":"monitor","type":"info","f":"owner","target":"etcd/leader","value":{"from":"etcd-0","to":null,"to_component":null}}
{"time":4500000000,"process":"nemesis","type":"info","f":"netem","target":"etcd-0","value":{"delay":"100ms","loss":5,"degraded":[{"component":"etcd-0","connect":{}}],"took_ms":500},"holds":"degraded","fault":3}
{"time":5000000000,"process":"nemesis","type":"invoke","f":"clock","target":"up-0","fault":4}
{"time":6000000000,"process":"nemesis","type":"info","f":"clock","target":"up-0","value":{"offset":"+1h","rate":2,"moved":[{"component":"up-0","pid":13,"skew_ms":3600000}],"took_ms":1000},"holds":"skewed","fault":4}
{"time":6000000000,"process":"nemesis","type":"invoke","f":"rejoin","target":"down-0","heal":true,"fault":2}
{"time":6000000000,"process":"nemesis","type":"info","f":"rejoin","target":"down-0","value":{"rejoined":["down-0","etcd-0","up-0"]},"heal":true,"fault":2}
{"time":6500000000,"process":"nemesis","type":"invoke","f":"partition","target":"up-0","fault":5}
{"time":6500000000,"process":"nemesis","type":"info","f":"partition","target":"up-0","value":{"shape":"one","direction":"in","sides":[["up-0"],["down-0","etcd-0"]],"cuts":[{"host":"up-0","drops":["down-0","etcd-0"]}],"took_ms":0},"holds":"cut","fault":5}
{"time":7000000000,"process":"nemesis","type":"info","f":"restore_link","target":"etcd-0","value":{"restored":[{"component":"etcd-0"}]},"heal":true,"fault":3}
{"time":7000000000,"process":0,"type":"invoke","f":"truncate","table":"db.p","ddl":true}
{"time":7100000000,"process":0,"type":"ok","f":"truncate","table":"db.p","ddl":true}
{"time":7500000000,"process":"nemesis","type":"info","f":"rejoin","target":"up-0","value":{"rejoined":["up-0"]},"heal":true,"fault":5}
{"time":7500000000,"process":0,"type":"invoke","f":"add_partition","table":"db.p","ddl":true}
{"time":8000000000,"process":1,"type":"invoke","f":"create_table","table":"db.a","ddl":true}
{"time":8200000000,"process":0,"type":"invoke","f":"truncate","table":"db.p","ddl":true}
EOF

test_expect_success 'a lane per component a fault named, sorted; then owners; then a lane per table with DDL' '
	"$TICHAOS" report lanes >/dev/null &&
	grep -o "class=\"lane\" text-anchor=\"end\">[^<]*<" lanes/report.html |
		sed -e "s/.*>//" -e "s/<\$//" >lanes.out &&
	printf "%s\n" down-0 etcd-0 up-0 owners db.a db.p >expect &&
	test_cmp expect lanes.out
'

test_expect_success 'each lane has its states as segments: down, paused, cut off (which way), degraded (how), clock skewed, not healed' '
	grep -o "class=\"seg [^\"]*\"><title>[^<]*</title>" lanes/report.html >segments &&
	cat >expect <<-\EOF &&
	class="seg s-down"><title>down-0: down, 1.0s to 3.0s (kill cdc)</title>
	class="seg s-cut"><title>down-0: cut off from etcd-0, up-0, 2.0s to 6.0s (partition down-0 (down-0 | etcd-0 up-0))</title>
	class="seg s-cut"><title>down-0: nothing it sends reaches up-0, 6.5s to 7.5s (partition up-0 (up-0 | down-0 etcd-0))</title>
	class="seg s-cut"><title>etcd-0: cut off from down-0, 2.0s to 6.0s (partition down-0 (down-0 | etcd-0 up-0))</title>
	class="seg s-degraded"><title>etcd-0: degraded (delay 100ms, loss 5%), 4.0s to 7.0s (netem etcd-0)</title>
	class="seg s-cut"><title>etcd-0: nothing it sends reaches up-0, 6.5s to 7.5s (partition up-0 (up-0 | down-0 etcd-0))</title>
	class="seg s-paused"><title>up-0: paused, 1.5s to 3.5s (pause upstream)</title>
	class="seg s-cut"><title>up-0: cut off from down-0, 2.0s to 6.0s (partition down-0 (down-0 | etcd-0 up-0))</title>
	class="seg s-skewed"><title>up-0: clock skewed (offset +1h, rate 2), 5.0s, not healed (clock up-0)</title>
	class="seg s-cut"><title>up-0: hears nothing from down-0, etcd-0, 6.5s to 7.5s (partition up-0 (up-0 | down-0 etcd-0))</title>
	EOF
	test_cmp expect segments
'

# seg_rows FILE: "LANE X1 X2 Y" for each segment of the timeline.
seg_rows() {
	perl -ne 'print "$4 $1 ", $1 + $3, " $2\n" while /<rect x="([0-9.]+)" y="([0-9]+)" width="([0-9.]+)" height="8" class="seg [^"]*"><title>([^:<]+):/g' "$1"
}

test_expect_success 'states that overlap on one component are stacked, never drawn over each other' '
	seg_rows lanes/report.html >rows &&
	test "$(wc -l <rows)" = 10 &&
	perl -e '"'"'
		my @s = map { [split] } <STDIN>; my $bad = 0;
		for my $i (0 .. $#s) { for my $j ($i + 1 .. $#s) {
			my ($a, $b) = @s[$i, $j];
			next unless $a->[0] eq $b->[0];
			$bad++, print "@$a over @$b\n"
				if $a->[1] < $b->[2] && $b->[1] < $a->[2] && $a->[3] == $b->[3];
		} }
		exit $bad;
	'"'"' <rows &&
	for lane in down-0 etcd-0 up-0; do
		echo "$lane $(grep "^$lane " rows | cut -d" " -f4 | sort -u | wc -l)"
	done >stacks &&
	printf "%s\n" "down-0 2" "etcd-0 2" "up-0 2" >expect &&
	test_cmp expect stacks
'

test_expect_success 'the owners lane marks each owner change with its key and new holder' '
	grep -o "class=\"owner\"><title>[^<]*</title>" lanes/report.html >owners &&
	cat >expect <<-\EOF &&
	class="owner"><title>0.500s etcd/leader: etcd-0, was none</title>
	class="owner"><title>2.500s /tidb/ddl/fg/owner: def (tidb-1), was abc</title>
	class="owner"><title>4.200s etcd/leader: no owner, was etcd-0</title>
	EOF
	test_cmp expect owners
'

test_expect_success 'each table lane marks its DDL (the invokes), with the operation' '
	grep -o "class=\"ddl\"><title>[^<]*</title>" lanes/report.html >ddl &&
	cat >expect <<-\EOF &&
	class="ddl"><title>8.000s create_table db.a</title>
	class="ddl"><title>7.000s truncate db.p</title>
	class="ddl"><title>7.500s add_partition db.p</title>
	class="ddl"><title>8.200s truncate db.p</title>
	EOF
	test_cmp expect ddl
'

# legends FILE: "CLASS:LABEL|..." of each SVG's legend, one SVG a line.
legends() {
	perl -0ne 'while (/<g class="legend">(.*?)<\/g>/sg) { my $g = $1; my @e; push @e, "$1:$2" while $g =~ /class="([^"]*)"\/><text [^>]*>([^<]*)</g; print join("|", @e), "\n" }' "$1"
}

test_expect_success 'a legend on every plot says what each colour is' '
	legends lanes/report.html >legend &&
	cat >expect <<-\EOF &&
	s-down:down|s-paused:paused|s-cut:cut off|s-degraded:degraded|s-skewed:clock skewed|ddl:DDL|owner:owner change
	ops:ok|errors:errors|s-down:down|s-paused:paused|s-cut:cut off|s-degraded:degraded|s-skewed:clock skewed
	p50:p50|p99:p99|s-down:down|s-paused:paused|s-cut:cut off|s-degraded:degraded|s-skewed:clock skewed
	EOF
	test_cmp expect legend &&
	test "$(grep -c "<svg " lanes/report.html)" = 3
'

test_expect_success 'each colour of a legend is drawn in the style sheet' '
	legends lanes/report.html | tr "|" "\n" | sed "s/:.*//" | sort -u >classes &&
	test "$(wc -l <classes)" = 11 &&
	while read -r c; do
		grep -q "\.$c{[^}]*\(fill\|stroke\):#" lanes/report.html ||
		{ echo "no colour for $c"; return 1; }
	done <classes
'

test_expect_success 'every SVG of the page is well-formed XML' '
	perl -0ne '"'"'my $i = 0; while (/(<svg .*?<\/svg>)/sg) { open my $f, ">", "svg" . $i++ . ".xml" or die; print $f $1 }'"'"' lanes/report.html &&
	test -s svg2.xml && xmllint --noout svg0.xml svg1.xml svg2.xml
'

test_expect_success 'the page with lanes is rebuilt byte for byte' '
	cp lanes/report.html lanes-before.html &&
	"$TICHAOS" report lanes >/dev/null &&
	test_cmp lanes-before.html lanes/report.html
'

# A fault that took no effect and broke nothing, instant faults, a
# changefeed paused, a heal that failed, a clock at its own rate (1: not
# said).
test_expect_success 'other faults have a lane; a failed heal leaves the state to the end of the run' '
	mkdir other && cp lanes/results.json other/ &&
	cat >other/history.jsonl <<-\EOF &&
	{"time":1000000000,"process":"nemesis","type":"info","f":"resign","target":"autoid","value":{"took_ms":3},"fault":0}
	{"time":1500000000,"process":"nemesis","type":"info","f":"changefeed","target":"cf-1","value":{"changefeed":"cf-1","action":"pause"},"holds":"other","fault":1}
	{"time":2000000000,"process":"nemesis","type":"fail","f":"kill","target":"cdc","value":{"signal":"KILL","killed":[]},"error":"no running component with role or name '"'"'cdc'"'"'","holds":"down","fault":2}
	{"time":2500000000,"process":"nemesis","type":"info","f":"pause","target":"pd","value":{"paused":[{"component":"pd-0","pid":3}]},"holds":"paused","fault":3}
	{"time":3000000000,"process":"nemesis","type":"fail","f":"continue","target":"pd","value":{"continued":[]},"error":"pd-0 is gone","heal":true,"fault":3}
	{"time":3500000000,"process":"nemesis","type":"info","f":"clock","target":"tidb","value":{"offset":"-30m","rate":1,"moved":[{"component":"tidb-0","pid":4,"skew_ms":-1800000}]},"holds":"skewed","fault":4}
	{"time":4000000000,"process":"nemesis","type":"info","f":"reset_clock","target":"tidb","value":{"restored":[{"component":"tidb-0","pid":5,"skew_ms":0}]},"heal":true,"fault":4}
	{"time":5000000000,"process":"nemesis","type":"info","f":"restore","target":"cf-1","value":{},"heal":true,"fault":1}
	EOF
	"$TICHAOS" report other >/dev/null &&
	grep -o "class=\"lane\" text-anchor=\"end\">[^<]*<" other/report.html |
		sed -e "s/.*>//" -e "s/<\$//" >lanes.out &&
	printf "%s\n" pd-0 tidb-0 "other faults" owners >expect &&
	test_cmp expect lanes.out &&
	grep -o "class=\"\(seg [^\"]*\|instant\)\"><title>[^<]*</title>" other/report.html >other.out &&
	cat >expect <<-\EOF &&
	class="seg s-paused"><title>pd-0: paused, 2.5s, not healed (pause pd; continue failed at 3.0s: pd-0 is gone)</title>
	class="seg s-skewed"><title>tidb-0: clock skewed (offset -30m), 3.5s to 4.0s (clock tidb)</title>
	class="seg s-other"><title>changefeed cf-1, 1.5s to 5.0s</title>
	class="instant"><title>1.000s resign autoid</title>
	class="instant"><title>2.000s kill cdc did not take effect: no running component with role or name '"'"'cdc'"'"'</title>
	EOF
	test_cmp expect other.out
'

test_expect_success 'more than 40 tables with DDL: 40 lanes, and a line says how many more' '
	mkdir many && cp lanes/results.json many/ &&
	for i in $(seq 1 43); do
		echo "{\"time\":$((i * 10000000)),\"process\":0,\"type\":\"invoke\",\"f\":\"truncate\",\"table\":\"db.t$(printf %02d $i)\",\"ddl\":true}"
	done >many/history.jsonl &&
	echo "{\"time\":900000000,\"process\":0,\"type\":\"invoke\",\"f\":\"truncate\",\"table\":\"db.t43\",\"ddl\":true}" >>many/history.jsonl &&
	"$TICHAOS" report many >/dev/null &&
	test "$(grep -c "class=\"lane\" text-anchor=\"end\">db\.t[0-9]*<" many/report.html)" = 40 &&
	grep -q "class=\"lane\" text-anchor=\"end\">db\.t40<" many/report.html &&
	test "$(grep -c "class=\"ddl\"><title>" many/report.html)" = 40 &&
	grep -o "<text [^>]*class=\"more\">.*</text>" many/report.html >more &&
	echo "<text x=\"150\" y=\"$(sed -n "s/.* y=\"\([0-9]*\)\" class=\"more\".*/\1/p" more)\" class=\"more\"><title>db.t41, db.t42, db.t43</title>+3 more tables, with 4 DDL, not drawn</text>" >expect &&
	test_cmp expect more
'

test_expect_success 'throughput and latency plots for the workload of 300 a second' '
	test "$(grep -c "<polyline class=\"ops\"" "$R/report.html")" = 1 &&
	test "$(grep -c "<polyline class=\"p50\"" "$R/report.html")" = 1 &&
	test "$(grep -c "<polyline class=\"p99\"" "$R/report.html")" = 1 &&
	test "$(grep -c "<polyline class=\"errors\"" "$R/report.html")" = 1 &&
	grep -q ">operations per second (ok, errors)<" "$R/report.html"
'

# Jepsen draws each operation (checker/perf.clj, latency-point): a
# workload of one operation every 2 s as rates a second is a square wave.
test_expect_success 'the DDL workload of one operation every 2 s: a point per operation, by outcome' '
	ops=$(grep -c "\"type\":\"\(ok\|fail\|info\)\",\"f\":\"truncate\"" "$R/history.jsonl") &&
	test "$ops" -ge 2 &&
	test "$(grep -c "<circle [^>]*class=\"pt-\(ok\|fail\|info\)\"><title>truncate html.p: " "$R/report.html")" = "$ops" &&
	grep -q ">latency ms of each operation<" "$R/report.html"
'

# Ticks on both axes of every plot: the time below, numbers at the left
# (a log scale of latency for the points).
# (The log scale's decades follow the slowest operation, which a loaded
# machine makes slower: their numbers are checked as decades, not as
# which.)
test_expect_success 'every plot has ticks on both axes' '
	plots=$(grep -c "^<svg " "$R/report.html") &&
	test "$plots" = 4 &&
	grep -o "class=\"tick\" text-anchor=\"end\">[^<]*<" "$R/report.html" |
		sed -e "s/.*>//" -e "s/<\$//" >yticks &&
	head -n 10 yticks | sed -n "1p;6p" >zeros && printf "0\n0\n" >expect &&
	test_cmp expect zeros &&
	sed -n "11,\$p" yticks >decades &&
	test "$(wc -l <decades)" -ge 2 &&
	! grep -vx "0\.0*1\|10*" decades &&
	test "$(grep -c "class=\"tick\">6s</text>" "$R/report.html")" = 4
'

# The tamper of a run, an instant fault: its label beside its dot, the
# kill's over its bar; what headless Chromium sees of them.
test_expect_success 'headless Chromium: the faults labelled on the timeline, kind and target' '
	chromium_dom "file://$R/report.html" >labels.html &&
	test "$(grep -o "<text [^>]*class=\"flabel\">kill cdc</text>" labels.html | wc -l)" = 8 &&
	chromium_dom "file://$TRASH/other/report.html" >other.html &&
	grep -o "<text [^>]*class=\"flabel\">[^<]*</text>" other.html |
		sed -e "s/.*\">//" -e "s/<.*//" | sort -u >flabels &&
	printf "%s\n" "changefeed cf-1" "clock tidb" \
		"kill cdc did not take effect: no running component with role or name '\''cdc'\''" \
		"pause pd" "resign autoid" >expect &&
	test_cmp expect flabels
'

test_expect_success 'tichaos report rebuilds it byte for byte' '
	cp "$R/report.html" before.html &&
	"$TICHAOS" report "$R" >/dev/null &&
	test_cmp before.html "$R/report.html"
'

test_expect_success 'headless Chromium renders it' '
	chromium_shot "$TRASH/report.png" "file://$R/report.html" &&
	test "$(head -c 8 "$TRASH/report.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
	test "$(wc -c <"$TRASH/report.png")" -gt 20000
'

# What Chromium parsed, not only what was written: the lanes, segments,
# marks and legends are in its DOM as SVG elements.
test_expect_success 'headless Chromium has the lanes, segments and legends in its DOM' '
	chromium_dom "file://$TRASH/lanes/report.html" >dom.html &&
	test "$(grep -o "<text [^>]*class=\"lane\"" dom.html | wc -l)" = 6 &&
	test "$(grep -o "<rect [^>]*class=\"seg s-[a-z]*\"><title>" dom.html | wc -l)" = 10 &&
	test "$(grep -o "<circle [^>]*class=\"\(owner\|ddl\)\"><title>" dom.html | wc -l)" = 7 &&
	test "$(grep -o "<g class=\"legend\">" dom.html | wc -l)" = 3
'

# A consistency failure's rows, as the check writes them in details
# (docs/checkers.md): a missing, an extra and a changed row, the changed
# one with a NULL; in Chromium's DOM a table of both sides per row.
mkdir diff
cat >diff/results.json <<\EOF
{"suite":"diff","seed":1,"duration_ns":2000000000,"duration":"2s","verdict":"fail",
 "workloads":[],"faults":[],
 "checks":[{"index":1,"kind":"consistency","name":"consistency","verdict":"fail",
  "message":"1 of 1 tables differ","details":{"tables":[{"table":"db.t",
   "up_rows":3,"down_rows":3,"missing":1,"extra":1,"changed":1,
   "missing_keys":["id=1"],"extra_keys":["id=9"],"changed_keys":["id=2"],
   "columns":["id","data","n"],
   "rows":[
    {"kind":"missing","key":"id=1","up":["1","a<b",null],"down":null,"fix":"REPLACE INTO `db`.`t` (`id`, `data`, `n`) VALUES ('1', 'a<b', NULL);"},
    {"kind":"changed","key":"id=2","up":["2","x","5"],"down":["2","x",null],"fix":"REPLACE INTO `db`.`t` (`id`, `data`, `n`) VALUES ('2', 'x', '5');"},
    {"kind":"extra","key":"id=9","up":null,"down":["9","z","1"],"fix":"DELETE FROM `db`.`t` WHERE `id` <=> '9';"}]}]}}]}
EOF
: >diff/history.jsonl

test_expect_success 'headless Chromium: a consistency failure'"'"'s rows, both sides, the fix' '
	{ "$TICHAOS" report diff >/dev/null; test $? = 1; } &&
	chromium_dom "file://$TRASH/diff/report.html" >dom.html &&
	test "$(grep -o "<tr class=\"diff-row\">" dom.html | wc -l)" = 6 &&
	grep -q "<h4>db.t: 3 of 3 differing rows</h4>" dom.html &&
	test "$(grep -o "<td class=\"d\">" dom.html | wc -l)" = 8 &&
	test "$(grep -o "<td colspan=\"3\" class=\"d\"><i>no row</i></td>" dom.html | wc -l)" = 2 &&
	grep -q "<td class=\"d\">a&lt;b</td>" dom.html &&
	grep -q "<td class=\"d\"><i>NULL</i></td>" dom.html &&
	grep -q "<code>DELETE FROM .db.\..t. WHERE .id. &lt;=&gt; .9.;</code>" dom.html
'

# An ids failure (TiDB issue 52600's history): the plot of each server's
# ids, the pairs out of order joined, parsed by Chromium as SVG.
test_expect_success 'headless Chromium: the ids plot of a failed ids check in its DOM' '
	cp -R "$DATA/histories/autoid-52600" ids &&
	{ "$TICHAOS" check ids >/dev/null 2>&1; test $? = 1; } &&
	chromium_dom "file://$TRASH/ids/report.html" >dom.html &&
	test "$(grep -o "<svg [^>]*class=\"idsplot\"" dom.html | wc -l)" = 1 &&
	test "$(grep -o "<circle [^>]*r=\"2\" class=\"n[01]\"" dom.html | wc -l)" = 10 &&
	test "$(grep -o "<g class=\"viol\">" dom.html | wc -l)" = 3 &&
	test "$(grep -o "<g class=\"legend\">" dom.html | wc -l)" = 2
'

test_done
