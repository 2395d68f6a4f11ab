# Sourced by the tests that run --cluster playground (t0456, t0820), after
# test-lib.sh. tiup and the TiDB servers cannot run here: `tiup` on
# $WITH_TIUP is tests/helpers/fake-tiup.pl, which starts fake instances
# under the servers' names and flags (tests/helpers/fake-instance.pl: a
# real mariadbd for TiDB's SQL, fake-http.pl with $FAKE_TIUP_HTTP,
# tests/data/http/playground/, for the HTTP APIs).

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v mariadb-install-db >/dev/null 2>&1 ||
	skip_all "mariadb-install-db is not installed (make deps)"

export TIUP_HOME="$TRASH/tiup-home"
export FAKE_TIUP_BIN="$TRASH/fake-bin"
export FAKE_TIUP_HTTP="$DATA/http/playground"
FAKE_TIUP_PORT=$(free_port_base) && export FAKE_TIUP_PORT
mkdir -p "$TIUP_HOME" "$FAKE_TIUP_BIN" "$TRASH/path"
for p in pd-server tikv-server tidb-server cdc; do
	ln -s "$ROOT/tests/helpers/fake-instance.pl" "$FAKE_TIUP_BIN/$p"
done
ln -s "$ROOT/tests/helpers/fake-tiup.pl" "$TRASH/path/tiup"
WITH_TIUP="$TRASH/path:$PATH"

# Whatever a test leaves running goes by pid: every playground process
# and instance it started is below a pidfile in a cluster directory,
# $TRASH/c or $TRASH/*/cluster (a run's).
cleanup_playgrounds() {
	for d in "$TRASH/c" "$TRASH"/*/cluster; do
		[ -d "$d" ] && PATH=$WITH_TIUP "$TICHAOS" cluster down \
			--cluster playground --dir "$d" >/dev/null 2>&1
	done
}
trap 'cleanup_playgrounds; test_cleanup' EXIT

# left DIR: processes whose command line names DIR.
left() {
	for f in /proc/[0-9]*/cmdline; do
		{ tr '\0' ' ' <"$f"; } 2>/dev/null | grep -q "$1/" &&
			echo "${f%/cmdline}"
	done
}
