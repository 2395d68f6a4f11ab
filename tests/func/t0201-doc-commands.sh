#!/bin/sh
# Every tichaos command line the docs show (README.md and docs/*.md: in
# code blocks and in `code` spans) names a command the binary has, and
# only options its help lists; the commands that run nothing (help,
# list, validate of the shipped suites) run as shown. A doc that says
# what the binary does not do is a failing test, not a reader's trouble.
. "$(dirname "$0")/test-lib.sh"

# commands: "FILE:LINE: COMMAND LINE" for each tichaos command the docs
# show, continuation lines joined, comments and prompts cut.
commands() {
	perl -e '
		for my $f (@ARGV) {
			open my $in, "<", $f or die "$f: $!\n";
			my ($fence, $lang, $cont, $at) = (0, "", "", 0);
			while (my $l = <$in>) {
				chomp $l;
				if ($l =~ /^\s*```(\w*)/) {
					($fence, $lang) = ($fence ? 0 : 1, $1);
					next;
				}
				my @cands;
				if ($fence && $lang !~ /^(yaml|toml|groovy|json)$/) {
					if ($cont ne "") {
						$cont .= " " . $l;
					} else {
						($cont, $at) = ($l, $.);
					}
					next if $cont =~ s/\\\s*$//;
					push @cands, [$at, $cont];
					$cont = "";
				} elsif (!$fence) {
					push @cands, [$., $1] while $l =~ /`([^`]*tichaos [^`]*)`/g;
				}
				for (@cands) {
					my ($n, $c) = @$_;
					$c =~ s/^\s*(\$\s+)?//;
					$c =~ s/\s+#.*$//;
					$c =~ s/^(?:sudo\s+)?(?:\.\/|[\w.\/\$\{\}\-]*\/)?tichaos(?=\s)/tichaos/ or next;
					$c =~ s/^tichaos\s+((?:--?[\w-]+\s*)?)$/tichaos $1/;
					print "$f:$n: $c\n" if $c =~ /^tichaos (?:[a-z]|--)/;
				}
			}
		}' "$ROOT/README.md" "$ROOT"/docs/*.md
}

commands >cmds
sed "s|^$ROOT/||" cmds | sed "s/^/# /"

test_expect_success 'the docs show commands: at least those of each page that has some' '
	test "$(wc -l <cmds)" -ge 40 &&
	for page in README.md docs/ci.md docs/suite-format.md docs/topology.md docs/shrink.md; do
		grep -q "$ROOT/$page:" cmds || { echo "none found in $page"; return 1; }
	done
'

# Each command's name is one the binary has; each --option (and -x) one
# its help lists. "cluster up" and the rest: the help of cluster.
test_expect_success 'every command they show exists, with only options its help lists' '
	"$TICHAOS" help >top &&
	bad=0 &&
	while IFS= read -r line; do
		at=${line%%: tichaos *}: && cmd=${line#*: tichaos } &&
		set -f && set -- $cmd && set +f &&
		case $1 in
		--help|--version) continue ;;
		esac &&
		if ! grep -Eq "^  $1 " top; then
			echo "$at unknown command: $1"; bad=$((bad + 1)); continue
		fi &&
		"$TICHAOS" help "$1" >help.$1 2>&1 &&
		name=$1 && shift &&
		for w in "$@"; do
			case $w in
			--*=*) w=${w%%=*} ;;
			--*|-[a-zA-Z]) ;;
			*) continue ;;
			esac
			grep -Eq "(^|[ [|])$w([] ,=|]|$)" help.$name ||
			{ echo "$at $name: no option $w"; bad=$((bad + 1)); }
		done
	done <cmds &&
	test "$bad" = 0
'

test_expect_success 'the commands that run nothing run as shown: help, list, validate' '
	grep -E ": tichaos (help|list|validate)( |$)" cmds >runnable &&
	test -s runnable &&
	while IFS= read -r line; do
		cmd=${line#*: tichaos } &&
		case $cmd in
		validate|*SUITE*|*FILE*|*NAME*|*...*|*"<"*|*"*"*) continue ;;
		esac &&
		(cd "$ROOT" && set -f && "$TICHAOS" $cmd >/dev/null 2>"$TRASH/err") ||
		{ echo "${line%%: tichaos *}: tichaos $cmd failed:"; cat "$TRASH/err"; return 1; }
	done <runnable
'

test_done
