#!/bin/sh
# report.html: self-contained, with the verdicts, the timeline with fault
# windows, throughput and latency plots; rendered by headless Chromium.
. "$(dirname "$0")/test-lib.sh"

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v etcd >/dev/null 2>&1 || skip_all "etcd is not installed (make deps)"
command -v chromium >/dev/null 2>&1 || skip_all "chromium is not installed (make deps)"

C="$TRASH/c"
test_expect_success 'set up a cluster to attach to' '
	test_cluster_up "$C"
'

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
	{ cat err; false; }
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

test_expect_success 'the timeline shades each kill to its restart, and marks the DDL' '
	# 2 windows on the timeline and on both plots of both workloads
	test "$(grep -c "<rect [^>]*class=\"fault\"><title>kill cdc, [0-9.]*s to [0-9.]*s</title>" "$R/report.html")" = 10 &&
	test "$(grep -c "<circle [^>]*class=\"ddl\"><title>[0-9.]*s truncate html.p</title>" "$R/report.html")" = 2
'

# Faults that overlap: a kill, a pause, then the kill's restart before
# the pause's continue. Each heal closes its own window (its fault item,
# its target), not the last one opened.
test_expect_success 'overlapping faults: each heal closes its own window' '
	mkdir over && cp "$R/results.json" over/ &&
	cat >over/history.jsonl <<-\EOF &&
	{"time":1000000000,"process":"nemesis","type":"invoke","f":"kill","target":"cdc","fault":0}
	{"time":1000000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"fault":0}
	{"time":2000000000,"process":"nemesis","type":"info","f":"pause","target":"upstream","value":{},"fault":1}
	{"time":3000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{},"fault":0}
	{"time":3500000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"fault":0}
	{"time":4000000000,"process":"nemesis","type":"info","f":"continue","target":"upstream","value":{},"fault":1}
	EOF
	"$TICHAOS" report over >/dev/null &&
	grep -o "class=\"fault\"><title>[^<]*</title>" over/report.html | sort -u >windows &&
	printf "%s\n" "class=\"fault\"><title>kill cdc, 1.0s to 3.0s</title>" \
		"class=\"fault\"><title>kill cdc, 3.5s, never healed</title>" \
		"class=\"fault\"><title>pause upstream, 2.0s to 4.0s</title>" >expect &&
	test_cmp expect windows
'

# Two kill items on the same target: the second item's heal (due first)
# closes its own window, not the oldest open one of the kind.
test_expect_success 'two items of one kind on one target: each heal closes its item'"'"'s window' '
	mkdir same && cp "$R/results.json" same/ &&
	cat >same/history.jsonl <<-\EOF &&
	{"time":1000000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"fault":0}
	{"time":2000000000,"process":"nemesis","type":"info","f":"kill","target":"cdc","value":{},"fault":1}
	{"time":3000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{},"fault":1}
	{"time":5000000000,"process":"nemesis","type":"info","f":"restart","target":"cdc","value":{},"fault":0}
	EOF
	"$TICHAOS" report same >/dev/null &&
	grep -o "class=\"fault\"><title>[^<]*</title>" same/report.html | sort -u >windows &&
	printf "%s\n" "class=\"fault\"><title>kill cdc, 1.0s to 5.0s</title>" \
		"class=\"fault\"><title>kill cdc, 2.0s to 3.0s</title>" >expect &&
	test_cmp expect windows
'

test_expect_success 'throughput and latency plots for each looping workload' '
	test "$(grep -c "<polyline class=\"ops\"" "$R/report.html")" = 2 &&
	test "$(grep -c "<polyline class=\"p50\"" "$R/report.html")" = 2 &&
	test "$(grep -c "<polyline class=\"p99\"" "$R/report.html")" = 2 &&
	test "$(grep -c "<polyline class=\"errors\"" "$R/report.html")" = 2 &&
	grep -q ">operations per second (ok, errors)<" "$R/report.html"
'

test_expect_success 'tichaos report rebuilds it byte for byte' '
	cp "$R/report.html" before.html &&
	"$TICHAOS" report "$R" >/dev/null &&
	test_cmp before.html "$R/report.html"
'

test_expect_success 'headless Chromium renders it' '
	timeout 120 chromium --headless --no-sandbox --disable-gpu --disable-quic \
		--no-first-run --disable-background-networking \
		--disable-component-update --disable-sync \
		--user-data-dir="$TRASH/chromium" --window-size=1000,1400 \
		--screenshot="$TRASH/report.png" "file://$R/report.html" \
		>chromium.out 2>&1 ||
	{ tail -5 chromium.out; false; }
	test "$(head -c 8 "$TRASH/report.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a &&
	test "$(wc -c <"$TRASH/report.png")" -gt 20000
'

test_done
