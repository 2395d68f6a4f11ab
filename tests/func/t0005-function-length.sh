#!/bin/sh
# No function in the tree is longer than 120 lines, counted from its `{`
# in column 0 to its `}` in column 0, both included (issue 19). The C
# files are the ones git tracks; outside a git checkout (a tarball), the
# .c files under the source directories.
. "$(dirname "$0")/test-lib.sh"

MAX_LINES=120

# long_functions MAX FILE...: "FILE:LINE: N lines (NAME)" for each function
# longer than MAX lines, LINE being that of its `{`; NAME is the first
# word before a `(` on the last line in column 0 above the `{` that is
# not a comment (the start of its signature in the kernel's style).
long_functions() {
	test_max_=$1
	shift
	awk -v max="$test_max_" '
		FNR == 1 { start = 0; sig = "" }
		/^[A-Za-z_]/ && !/^\{/ && !/^\}/ { sig = $0 }
		/^\{/ { start = FNR; name = "" }
		/^\{/ && match(sig, /[A-Za-z_][A-Za-z0-9_]*[ \t]*\(/) {
			name = substr(sig, RSTART, RLENGTH)
			sub(/[ \t]*\($/, "", name)
		}
		/^\}/ {
			if (start) {
				n = FNR - start + 1
				if (n > max)
					printf "%s:%d: %d lines%s\n", FILENAME,
					       start, n,
					       name == "" ? "" : " (" name ")"
			}
			start = 0
		}
	' "$@"
}

# A function of MAX_LINES lines exactly, and one of a line more.
write_sample() {
	{
		echo '/* a comment (with parentheses) */'
		echo 'static int fits(int a)'
		echo '{'
		i=2
		while [ $i -lt $MAX_LINES ]; do
			echo '	a++;'
			i=$((i + 1))
		done
		echo '}'
		echo
		echo 'struct s {'
		echo '	int x;'
		echo '};'
		echo
		echo 'int'
		echo 'too_long(struct s *s,'
		echo '	 int a)'
		echo '{'
		i=2
		while [ $i -lt $MAX_LINES ]; do
			echo '	a++;'
			i=$((i + 1))
		done
		echo '	return a;'
		echo '}'
	} >"$1"
}

test_expect_success 'the check counts from { to } and names the function' '
	write_sample sample.c &&
	long_functions $MAX_LINES sample.c >out &&
	line=$(grep -n "^{" sample.c | sed -n "2s/:.*//p") &&
	echo "sample.c:$line: $((MAX_LINES + 1)) lines (too_long)" >expect &&
	test_cmp expect out
'

test_expect_success 'each file it is given is checked on its own' '
	write_sample a.c && cp a.c b.c &&
	long_functions $MAX_LINES a.c b.c >out &&
	test $(grep -c "^a\.c:" out) = 1 && test $(grep -c "^b\.c:" out) = 1
'

test_expect_success 'the C files of the tree are found' '
	c_files >files &&
	grep -qx lib/history.c files && grep -qx runner/main.c files &&
	grep -qx tests/unit/t-history.c files
'

test_expect_success "no function is longer than $MAX_LINES lines" '
	c_files >files && test -s files &&
	(cd "$ROOT" && set -- &&
	 while read -r f; do
		if [ -f "$f" ]; then set -- "$@" "$f"; fi
	 done <"$TRASH/files" &&
	 long_functions $MAX_LINES "$@") >long &&
	if test -s long; then
		echo "functions over $MAX_LINES lines:" && cat long && false
	fi
'

test_done
