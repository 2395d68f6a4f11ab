#!/bin/sh
# make install (PREFIX, DESTDIR), the man pages generated from what they
# document, and make deb: a package with its dependencies declared,
# installed by dpkg into a scratch root, whose tichaos validates the
# suites it installed.
. "$(dirname "$0")/test-lib.sh"

need dpkg-deb groff

test_expect_success 'make install DESTDIR=... PREFIX=/opt/tc: binaries, suites, topologies, man pages' '
	make -C "$ROOT" --no-print-directory install DESTDIR="$TRASH/root" PREFIX=/opt/tc >out 2>&1 ||
	{ cat out; false; } &&
	test -x "$TRASH/root/opt/tc/bin/tichaos" &&
	cmp "$ROOT/diskfs/tichaos-diskfs" "$TRASH/root/opt/tc/bin/tichaos-diskfs" &&
	test -x "$TRASH/root/opt/tc/bin/tichaos-diskfs" &&
	(cd "$ROOT/topologies" && ls *.yaml) >expect &&
	(cd "$TRASH/root/opt/tc/share/tichaos/topologies" && ls) >got &&
	test_cmp expect got &&
	(cd "$ROOT/suites" && ls *.yaml) >expect &&
	(cd "$TRASH/root/opt/tc/share/tichaos/suites" && ls) >got &&
	test_cmp expect got &&
	test -s "$TRASH/root/opt/tc/share/man/man1/tichaos.1" &&
	test -s "$TRASH/root/opt/tc/share/man/man5/tichaos-suite.5" &&
	"$TRASH/root/opt/tc/bin/tichaos" --version >v &&
	test "$(cat v)" = "$("$TICHAOS" --version)"
'

M1="$TRASH/root/opt/tc/share/man/man1/tichaos.1"
M5="$TRASH/root/opt/tc/share/man/man5/tichaos-suite.5"

# render PAGE: as man shows it, plain text; groff's warnings on stderr.
render() {
	groff -man -Tutf8 -ww -P-cbou "$1" 2>warnings | sed "s/[[:space:]]*\$//"
}

test_expect_success 'tichaos(1): every command with the usage the binary prints' '
	render "$M1" >page &&
	test ! -s warnings &&
	for c in run validate cluster check replay report list; do
		"$TICHAOS" help $c | head -n 1 | sed "s/[[:space:]]*\$//" >usage &&
		grep -qxF "       $(cat usage)" page ||
		{ echo "$c: no usage line $(cat usage)"; return 1; }
	done &&
	grep -q "^       usage: tichaos run SUITE.yaml... \[--cluster local|playground|TOPOLOGY.yaml\]$" page &&
	grep -qx "         -j, --jobs N     run N suites at once, each by a tichaos of its" page
'

test_expect_success 'tichaos-suite(5): every section of docs/suite-format.md' '
	render "$M5" >page5 &&
	test ! -s warnings &&
	sed -n "s/^## //p" "$ROOT/docs/suite-format.md" | tr -d "\`" | tr "a-z" "A-Z" >sections &&
	test -s sections &&
	while read -r s; do
		grep -qxF "$s" page5 || { echo "no section $s"; return 1; }
	done <sections &&
	sed -n "s/^### //p" "$ROOT/docs/suite-format.md" | tr -d "\`" >subsections &&
	while read -r s; do
		grep -qxF "   $s" page5 || { echo "no subsection $s"; return 1; }
	done <subsections &&
	grep -A2 -x "       duration" page5 | grep -qx "              type: duration"
'

test_expect_success 'make deb: the package, its libraries its dependencies' '
	make -C "$ROOT" --no-print-directory deb DEB_DIR="$TRASH" >out 2>&1 ||
	{ cat out; false; } &&
	deb=$(ls "$TRASH"/tichaos_*_*.deb) &&
	test "$(basename "$deb")" = "tichaos_$("$TICHAOS" --version | cut -d" " -f2)_$(dpkg --print-architecture).deb" &&
	test ! -e "$TRASH/deb-build" &&
	dpkg-deb --field "$deb" Depends | tr "," "\n" | sed "s/^ *//; s/ .*//" | sort >deps &&
	# the libraries of the build; a sanitizer build (make asan) has its
	# runtimes besides, one package for each library it needs
	# (tichaos-diskfs: libfuse3)
	for p in libc6 libcurl4 libjansson4 libmariadb3 libssh2-1 libyaml-0-2 libfuse3-3; do
		grep -qx "$p" deps || { echo "no $p in Depends"; return 1; }
	done &&
	test "$(sort -u deps | wc -l)" = "$(wc -l <deps)" &&
	test "$(wc -l <deps)" -le "$(readelf -d "$TICHAOS" "$ROOT/diskfs/tichaos-diskfs" | grep -c "(NEEDED)")" &&
	dpkg-deb --field "$deb" Depends | grep -Eq "(^|, )libmariadb3 \(>= [^)]+\)(,|\$)" &&
	test "$(dpkg-deb --field "$deb" Recommends)" = "mariadb-server, mariadb-client, etcd-server, iproute2, nftables, fuse3" &&
	dpkg-deb --contents "$deb" | grep -Eq " ./usr/bin/tichaos-diskfs$"
'

test_expect_success 'installed by dpkg into a scratch root: tichaos validates its suites' '
	r="$TRASH/droot" &&
	mkdir -p "$r/var/lib/dpkg/updates" "$r/var/lib/dpkg/info" "$r/var/lib/dpkg/triggers" &&
	: >"$r/var/lib/dpkg/status" &&
	dpkg --root="$r" --force-depends --force-not-root --log=/dev/null -i "$deb" >out 2>&1 ||
	{ cat out; false; } &&
	test "$(dpkg --root="$r" -s tichaos | sed -n "s/^Status: //p")" = "install ok installed" &&
	"$r/usr/bin/tichaos" validate "$r"/usr/share/tichaos/suites/*.yaml >valid &&
	test "$(grep -c "^ok " valid)" = "$(ls "$ROOT"/suites/*.yaml | wc -l)" &&
	test -s "$r/usr/share/man/man1/tichaos.1" && test -s "$r/usr/share/man/man5/tichaos-suite.5"
'

test_done
