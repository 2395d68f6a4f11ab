#!/bin/sh
# STYLE's bans: no sprintf, vsprintf, strcpy, strcat, strtok, strtok_r,
# atoi, atol or atoll anywhere in the C of the tree (tests included):
# snprintf, the buffer (lib/buf.h), list_has and the checked strtol
# wrappers (lib/parse.h) instead.
. "$(dirname "$0")/test-lib.sh"

# banned FILE...: "FILE:LINE: CALL" for each call of a banned function,
# comments and strings included (a ban needs no exceptions).
banned() {
	grep -HnoE '(^|[^A-Za-z0-9_])(v?sprintf|strcpy|strcat|strtok(_r)?|atoi|atoll?)[[:space:]]*\(' "$@" |
	sed -E 's/:[^:A-Za-z_]*([A-Za-z_]+)[[:space:]]*\($/: \1/'
}

test_expect_success 'the check finds each banned call, and not its safe kin' '
	printf "%s\n" "int a = atoi(s);" "snprintf(b, 4, \"x\");" "sprintf(b, \"x\");" \
		"t = strtok_r(s, \",\", &p);" "x = my_atoi(s); y = atol (s);" >sample.c &&
	banned sample.c >out &&
	printf "%s\n" "sample.c:1: atoi" "sample.c:3: sprintf" "sample.c:4: strtok_r" \
		"sample.c:5: atol" >expect &&
	test_cmp expect out
'

test_expect_success 'no banned call in the tree' '
	c_files "*.[ch]" >files && test -s files &&
	(cd "$ROOT" && banned $(cat "$TRASH/files")) >found
	if test -s found; then
		echo "banned calls:" && cat found && false
	fi
'

test_done
