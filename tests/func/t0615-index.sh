#!/bin/sh
# tichaos report --index DIR: the trend page of a folder of runs
# (reports/index.c). The runs are written here as runs write them
# (results.json as docs/results.md gives it, suite.yaml as run, seed
# included); the page is checked as written and as headless Chromium
# parses it.
. "$(dirname "$0")/test-lib.sh"

R="$TRASH/runs"

# run SUITE NAME STARTED VERDICT OK DURATION_S SEED [SUITE_TEXT]
run() {
	mkdir -p "$R/$1/$2" &&
	cat >"$R/$1/$2/results.json" <<-EOF &&
	{"suite": "$1", "seed": $7, "duration": "${6}s",
	 "duration_ns": ${6}000000000, "started": "$3", "cluster": "local",
	 "run_dir": "runs/$1/$2",
	 "workloads": [{"index": 1, "kind": "insert", "ok": $5, "fail": 0, "info": 0}],
	 "faults": [], "checks": [], "verdict": "$4"}
	EOF
	printf "name: %s\nseed: %s\nduration: %ss\n%s\n" "$1" "$7" "$6" "${8-}" >"$R/$1/$2/suite.yaml"
}

test_expect_success 'a folder of runs: three suites, one flaky, one with 25 runs' '
	run alpha a1 2026-12-01T01:00:00Z pass 3000 10 11 &&
	run alpha a2 2026-12-01T02:00:00Z fail 2000 10 12 &&
	run alpha a3 2026-12-01T03:00:00Z pass 2500 10 13 &&
	run beta b1 2026-12-01T01:00:00Z pass 100 10 21 "# first" &&
	run beta b2 2026-12-01T02:00:00Z fail 100 10 22 "# changed" &&
	for i in $(seq 10 34); do
		run gamma g$i 2026-11-30T00:$i:00Z pass 500 5 $i || return 1
	done &&
	ln -s g34 "$R/gamma/latest" &&
	mkdir -p "$R/junk/nothing" "$R/empty" &&
	"$TICHAOS" report --index "$R" >out 2>err &&
	test ! -s out && test ! -s err && test -s "$R/index.html"
'

test_expect_success 'the suites table: last verdict and counts; only alpha is flaky' '
	grep -o "<tr class=\"suite\">.*</tr>" "$R/index.html" >suites &&
	cat >expect <<-\EOF &&
	<tr class="suite"><td><a href="#s-alpha">alpha</a> <span class="flaky">flaky</span></td><td class="v-pass">pass</td><td>2026-12-01T03:00:00Z</td><td class="n">3</td><td class="n">2</td><td class="n">1</td></tr>
	<tr class="suite"><td><a href="#s-beta">beta</a></td><td class="v-fail">fail</td><td>2026-12-01T02:00:00Z</td><td class="n">2</td><td class="n">1</td><td class="n">1</td></tr>
	<tr class="suite"><td><a href="#s-gamma">gamma</a></td><td class="v-pass">pass</td><td>2026-11-30T00:34:00Z</td><td class="n">25</td><td class="n">25</td><td class="n">0</td></tr>
	EOF
	test_cmp expect suites
'

test_expect_success 'each suite: its last runs, newest first, with throughput and links' '
	grep -A5 "<h2 id=\"s-alpha\">" "$R/index.html" | grep "<tr class=\"run\">" >alpha &&
	cat >expect <<-\EOF &&
	<tr class="run"><td>2026-12-01T03:00:00Z</td><td class="v-pass">pass</td><td>10s</td><td class="n">13</td><td class="n">250</td><td><a href="alpha/a3/report.html">report</a> <a href="alpha/a3/summary.txt">summary</a></td></tr>
	<tr class="run"><td>2026-12-01T02:00:00Z</td><td class="v-fail">fail</td><td>10s</td><td class="n">12</td><td class="n">200</td><td><a href="alpha/a2/report.html">report</a> <a href="alpha/a2/summary.txt">summary</a></td></tr>
	<tr class="run"><td>2026-12-01T01:00:00Z</td><td class="v-pass">pass</td><td>10s</td><td class="n">11</td><td class="n">300</td><td><a href="alpha/a1/report.html">report</a> <a href="alpha/a1/summary.txt">summary</a></td></tr>
	EOF
	test_cmp expect alpha &&
	grep -qx "<p>the last 20 of 25 runs</p>" "$R/index.html" &&
	test "$(grep -c "href=\"gamma/g[0-9]*/report.html\"" "$R/index.html")" = 20 &&
	grep -q "href=\"gamma/g34/report.html\"" "$R/index.html" &&
	! grep -q "href=\"gamma/g14/report.html\"" "$R/index.html" &&
	! grep -q "latest\|junk\|empty" "$R/index.html"
'

test_expect_success 'self-contained: no script, nothing from elsewhere' '
	! grep -Eqi "<script|<link|<img|src=|url\(|https?://" "$R/index.html"
'

test_expect_success 'a folder that cannot be read: exit 3, one line' '
	{ "$TICHAOS" report --index "$TRASH/none" >out 2>err; test $? = 3; } &&
	test "$(cat err)" = "tichaos: cannot read '\''$TRASH/none'\'': No such file or directory" &&
	{ "$TICHAOS" report --index "$R" somerun >out 2>err; test $? = 2; } &&
	grep -qx "tichaos: report: --index DIR takes no RUN_DIR" err
'

test_expect_success 'headless Chromium: the rows and the flaky marks in its DOM' '
	command -v chromium >/dev/null 2>&1 || { echo "# no chromium (make deps)"; return 1; }
	chromium_dom "file://$R/index.html" >dom.html &&
	test "$(grep -o "<tr class=\"run\">" dom.html | wc -l)" = 25 &&
	test "$(grep -o "<tr class=\"suite\">" dom.html | wc -l)" = 3 &&
	test "$(grep -o "<span class=\"flaky\"[^>]*>flaky</span>" dom.html | wc -l)" = 2 &&
	chromium_shot "$TRASH/index.png" "file://$R/index.html" &&
	test "$(head -c 8 "$TRASH/index.png" | od -An -tx1 | tr -d " \n")" = 89504e470d0a1a0a
'

test_done
