#!/bin/sh
# tichaos validate: every suite in tests/data/bad-suites/ is refused with
# exactly the one line of its .err file and exit code 2; the good suites
# pass; docs/suite-format.md documents every option with its default.
. "$(dirname "$0")/test-lib.sh"

BAD=tests/data/bad-suites
GOOD=tests/data/good-suites
DOC=$ROOT/docs/suite-format.md
TAB=$(printf '\t')

# run_validate ARGS...: `tichaos validate ARGS` from the repository root,
# so that paths in messages are the relative ones of the .err files;
# stdout and stderr land in out and err (in $TRASH), the exit code in $rc.
run_validate() {
	cd "$ROOT" || return 1
	"$TICHAOS" validate "$@" >"$TRASH/out" 2>"$TRASH/err"
	rc=$?
	cd "$TRASH"
}

# expect_refused EXPECTED-STDERR-FILE: the last validate exited 2 ($rc),
# printed nothing on stdout and exactly the expected line on stderr.
expect_refused() {
	test "$rc" = 2 || { echo "exit code $rc"; return 1; }
	test ! -s "$TRASH/out" || { echo "stdout:"; cat "$TRASH/out"; return 1; }
	test_cmp "$1" "$TRASH/err"
}

# --- the bad-suite corpus ----------------------------------------------

test_expect_success 'every bad suite has its .err and every .err its suite' '
	(cd "$ROOT/$BAD" && ls) >files &&
	sed -n "s/\.yaml\$//p" files >suites &&
	sed -n "s/\.err\$//p" files >errs &&
	test "$(wc -l <suites)" -ge 90 && test_cmp suites errs &&
	! grep -Ev "\.(yaml|err)\$" files &&
	(cd "$ROOT/$BAD" && grep -c "" *.err) >counts &&
	! grep -v ":1\$" counts
'

for yaml in "$ROOT/$BAD"/*.yaml; do
	name=${yaml##*/}
	name=${name%.yaml}
	test_expect_success "bad suite $name" '
		run_validate "$BAD/$name.yaml" &&
		expect_refused "$ROOT/$BAD/$name.err"
	'
done

test_expect_success 'binary junk (a NUL byte): one line, exit 2' '
	printf "name: x\000\001\002\377\n" >junk.yaml &&
	"$TICHAOS" validate junk.yaml >out 2>err; rc=$? &&
	echo "tichaos: junk.yaml: binary data (a NUL byte) is not YAML" >expect &&
	expect_refused expect
'

test_expect_success 'a file over 16 MiB is refused before it is parsed' '
	head -c 16777217 /dev/zero | tr "\000" "#" >huge.yaml &&
	"$TICHAOS" validate huge.yaml >out 2>err; rc=$? &&
	echo "tichaos: huge.yaml: file is larger than 16777216 bytes" >expect &&
	expect_refused expect
'

test_expect_success 'a file of exactly 16 MiB is read (comments: empty)' '
	head -c 16777216 /dev/zero | tr "\000" "#" >max.yaml &&
	"$TICHAOS" validate max.yaml >out 2>err; rc=$? &&
	echo "tichaos: max.yaml: empty suite" >expect &&
	expect_refused expect
'

test_expect_success 'a missing file: one line, exit 2' '
	run_validate "$BAD/no-such-suite.yaml" &&
	echo "tichaos: cannot open '\''$BAD/no-such-suite.yaml'\'': No such file or directory" >expect &&
	expect_refused expect
'

test_expect_success 'a directory: one line, exit 2' '
	run_validate "$BAD" &&
	echo "tichaos: cannot read '\''$BAD'\'': Is a directory" >expect &&
	expect_refused expect
'

test_expect_success 'no file at all: a usage error' '
	run_validate &&
	echo "tichaos: validate: expected SUITE.yaml... or --cluster TOPOLOGY.yaml (see '\''tichaos help validate'\'')" >expect &&
	expect_refused expect
'

# --- good suites -------------------------------------------------------

for yaml in "$ROOT/$GOOD"/*.yaml; do
	name=${yaml##*/}
	test_expect_success "good suite $name" '
		run_validate "$GOOD/$name" &&
		test "$rc" = 0 && test ! -s err &&
		echo "ok $GOOD/$name" >expect && test_cmp expect out
	'
done

test_expect_success 'every shipped suite validates, the found ones too' '
	n=0 &&
	for yaml in "$ROOT"/suites/*.yaml "$ROOT"/suites/found/*.yaml; do
		rel=${yaml#"$ROOT"/} &&
		run_validate "$rel" &&
		test "$rc" = 0 && test ! -s err ||
		{ echo "$rel"; cat err; return 1; }
		n=$((n + 1))
	done &&
	test "$n" -ge 6
'

test_expect_success 'every found suite is explained in docs/found.md' '
	for yaml in "$ROOT"/suites/found/*.yaml; do
		name=${yaml##*/} &&
		grep -q "^## .*\`suites/found/$name\`" "$ROOT/docs/found.md" ||
		{ echo "docs/found.md has no section for $name"; return 1; }
	done
'

test_expect_success 'several good files: one ok line each, exit 0' '
	run_validate "$GOOD/minimal.yaml" "$GOOD/every-kind.yaml" \
		"$GOOD/fail_over_ddl_mix.yaml" &&
	test "$rc" = 0 && test ! -s err &&
	printf "ok %s\n" "$GOOD/minimal.yaml" "$GOOD/every-kind.yaml" \
		"$GOOD/fail_over_ddl_mix.yaml" >expect &&
	test_cmp expect out
'

test_expect_success 'good and bad files: every file checked, exit 2' '
	run_validate "$GOOD/minimal.yaml" "$BAD/kind-typo.yaml" \
		"$GOOD/every-kind.yaml" "$BAD/key-workload-typo.yaml" &&
	test "$rc" = 2 &&
	printf "ok %s\n" "$GOOD/minimal.yaml" "$GOOD/every-kind.yaml" >expect &&
	test_cmp expect out &&
	cat "$ROOT/$BAD/kind-typo.err" "$ROOT/$BAD/key-workload-typo.err" >expect &&
	test_cmp expect err
'

test_expect_success 'a bad file first does not stop the others' '
	run_validate "$BAD/yaml-empty.yaml" "$GOOD/minimal.yaml" &&
	test "$rc" = 2 &&
	echo "ok $GOOD/minimal.yaml" >expect && test_cmp expect out &&
	test_cmp "$ROOT/$BAD/yaml-empty.err" err
'

# --- the docs against the code -----------------------------------------

# list_options: "registry<TAB>kind<TAB>key<TAB>type<TAB>default" for
# every option of every workload, fault and checker kind (registry:
# workloads, faults, checkers), and "registry<TAB>kind" for each kind, as
# `tichaos list --options` prints them ("  kind  doc" lines, then
# "    key  type  default  doc"). A type is a word, "int MIN..MAX", or
# "list of"/"one of" and its comma-separated choices; a default is a word
# or a "[...]" list.
list_options() {
	"$TICHAOS" list --options | awk -v OFS="$TAB" '
		/^[a-z]+:$/ { reg = substr($1, 1, length($1) - 1); next }
		reg == "clusters" || /^  \(/ { next }
		/^  [^ ]/ { kind = $1; print reg, kind, "", "", ""; next }
		/^    [^ ]/ {
			line = $0
			sub(/^ +/, "", line)
			key = line
			sub(/ .*/, "", key)
			rest = substr(line, length(key) + 1)
			sub(/^ +/, "", rest)
			if (rest ~ /^(list of|one of) /)
				match(rest, /^(list of|one of) [^ ,]+(, [^ ,]+)*/)
			else if (rest ~ /^int /)
				match(rest, /^int -?[0-9]+\.\.-?[0-9]+/)
			else
				match(rest, /^[^ ]+/)
			type = substr(rest, 1, RLENGTH)
			rest = substr(rest, RLENGTH + 1)
			sub(/^ +/, "", rest)
			if (rest ~ /^\[/) {
				# Up to the "]" closing the list, outside quotes:
				# items may hold "]" ('\[FATAL\]').
				q = ""
				for (i = 2; i <= length(rest); i++) {
					c = substr(rest, i, 1)
					if (q != "" && c == q)
						q = ""
					else if (q == "" && (c == "\047" || c == "\""))
						q = c
					else if (q == "" && c == "]")
						break
				}
				def = substr(rest, 1, i)
			} else {
				match(rest, /^[^ ]+/)
				def = substr(rest, 1, RLENGTH)
			}
			print reg, kind, key, type, def
		}'
}

# doc_section HEADING [FILE]: the lines under that exact heading of FILE
# (default: the suite format doc), up to the next heading of level 2 or 3.
doc_section() {
	test ! -e "${2:-$DOC}" ||
	awk -v h="$1" '$0 == h { on = 1; next } /^###? / { on = 0 } on' \
		"${2:-$DOC}"
}

# default_cell DEFAULT: how an option table writes a default: "required"
# and "-" (no default) as the words required and none, others as code.
default_cell() {
	case $1 in
	required) echo required ;;
	-) echo none ;;
	*) echo "\`$1\`" ;;
	esac
}

# check_options REGISTRY FILE: every option that list --options prints for
# the kinds of REGISTRY has its row "| `key` | type | default |" in its
# kind's section ("### `kind`") of FILE; every row in such a section is an
# option of that kind.
check_options() {
	list_options >opts || return 1
	grep -q "^workloads${TAB}insert${TAB}threads${TAB}int 0\.\.1024${TAB}0\$" opts &&
	grep -q "^workloads${TAB}dml${TAB}key_range${TAB}int 1\.\.1000000000${TAB}1000\$" opts &&
	grep -q "^workloads${TAB}table_ddl${TAB}ops${TAB}list of drop_create, drop_recover, truncate${TAB}\[drop_create, drop_recover, truncate\]\$" opts ||
	{ echo "list --options is not parsed as expected:"; cat opts; return 1; }
	grep -q "^$1$TAB" opts || return 0
	test -e "$ROOT/$2" || { echo "$2 does not exist, but there are $1"; return 1; }
	awk -F "$TAB" -v reg="$1" -v doc="$2" '
		FNR == NR {
			if ($1 != reg)
				next
			if ($3 == "") {
				kinds[$2] = 1
				order[++nkinds] = $2
				next
			}
			cell = $5 == "required" ? "required" : $5 == "-" ? "none" : "`" $5 "`"
			want[++n] = $2 SUBSEP "| `" $3 "` | " $4 " | " cell " |"
			known[$2 SUBSEP $3] = 1
			next
		}
		/^###? / {
			kind = ""
			if ($0 ~ /^### `[^`]*`$/ && (substr($0, 6, length($0) - 6) in kinds)) {
				kind = substr($0, 6, length($0) - 6)
				seen[kind] = 1
			}
			next
		}
		kind != "" && /^\| `[^`]*` \|/ {
			rows[kind] = rows[kind] "\n" $0
			key = substr($0, 4)
			sub(/`.*/, "", key)
			if (!((kind SUBSEP key) in known)) {
				print doc ": " kind ": documented `" key "` is no option"
				bad = 1
			}
		}
		END {
			for (i = 1; i <= nkinds; i++)
				if (!(order[i] in seen)) {
					print doc ": no section ### `" order[i] "`"
					bad = 1
				}
			for (i = 1; i <= n; i++) {
				split(want[i], w, SUBSEP)
				if (!index(rows[w[1]] "\n", "\n" w[2])) {
					print doc ": " w[1] ": no row " w[2]
					bad = 1
				}
			}
			exit bad
		}' opts "$ROOT/$2"
}

# suite_specs ARRAY: "key<TAB>default" of the optspec array ARRAY in
# core/suite.c ("-" for NULL, "required" when required).
suite_specs() {
	awk -v a="$1" -v OFS="$TAB" '
		$0 ~ "^static const struct optspec " a "\\[\\] = \\{" { on = 1; next }
		on && /^};/ { on = 0 }
		on && /^\t\{ "/ {
			split($0, f, ", ")
			key = f[1]; sub(/^[\t ]*\{ "/, "", key); sub(/"$/, "", key)
			def = f[3]; gsub(/"/, "", def)
			if (def == "NULL") def = "-"
			if (f[4] == "1") def = "required"
			print key, def
		}' "$ROOT/core/suite.c"
}

# check_suite_keys ARRAY HEADING MIN: each option of ARRAY (at least MIN
# of them) has its row with its default under HEADING.
check_suite_keys() {
	suite_specs "$1" >specs &&
	test "$(wc -l <specs)" -ge "$3" ||
	{ echo "core/suite.c: $1 not parsed"; cat specs; return 1; }
	doc_section "$2" >section
	bad=0
	while IFS="$TAB" read -r key def; do
		cell=$(default_cell "$def")
		grep -F -- "| \`$key\` | " section | grep -qF -- " | $cell | " ||
		{ echo "$2: no row for '$key' with default $cell"; bad=1; }
	done <specs
	return $bad
}

# doc_suites: write each ```yaml block of the doc that is a whole suite
# (it starts with "name:") to doc-N.yaml; print the file names.
doc_suites() {
	awk '/^```yaml$/ { n++; f = "doc-" n ".yaml"; on = 1; next }
	     /^```/ { on = 0 }
	     on { print > f }' "$DOC" &&
	for f in doc-*.yaml; do
		head -n 1 "$f" | grep -q "^name: " && echo "$f"
	done
	return 0
}

test_expect_success 'docs/suite-format.md: every workload option, type, default' '
	check_options workloads docs/suite-format.md
'

test_expect_success 'docs/faults.md: every fault option, type and default' '
	check_options faults docs/faults.md
'

test_expect_success 'docs/checkers.md: every checker option, type and default' '
	check_options checkers docs/checkers.md
'

test_expect_success 'the doc has every top-level key and its default' '
	check_suite_keys top_specs "## Top-level keys" 6 &&
	sed -n "/^static const char \*const top_keys/,/NULL/p" \
		"$ROOT/core/suite.c" | grep -o "\"[a-z_]*\"" | tr -d "\"" >keys &&
	test "$(wc -l <keys)" -ge 11 &&
	doc_section "## Top-level keys" >section &&
	while read -r key; do
		grep -qF "| \`$key\` | " section ||
		{ echo "no row for top-level key $key"; return 1; }
	done <keys
'

test_expect_success 'the doc has every cluster hint and table key' '
	check_suite_keys cluster_specs "### Cluster hints" 4 &&
	check_suite_keys table_specs "## Tables" 4
'

test_expect_success 'the doc has every key of catches' '
	check_suite_keys catch_specs "## The bug it catches: catches" 3
'

test_expect_success 'every whole suite in the doc validates' '
	doc_suites >suites && test -s suites &&
	while read -r f; do
		"$TICHAOS" validate "$f" >out 2>err &&
		echo "ok $f" >expect && test_cmp expect out ||
		{ cat err; return 1; }
	done <suites
'

test_expect_success 'the doc example is good-suites/fail_over_ddl_mix.yaml' '
	doc_suites >suites &&
	f=$(xargs grep -l "^name: fail_over_ddl_mix\$" <suites) &&
	test -n "$f" &&
	grep -v "^#" "$ROOT/$GOOD/fail_over_ddl_mix.yaml" >expect &&
	test_cmp expect "$f"
'

test_done
