# Sourced by the tests of checks at TiCDC's sync points (t0540, t0541),
# after test-lib.sh. TiDB and TiCDC cannot run here; what stands in for
# them behaves as their sources do:
# - TiDB's SQL side: tests/helpers/fake-tidb-sql.pl in front of each of
#   the local cluster's real mariadbd (tables WITH SYSTEM VERSIONING):
#   tidb_snapshot (pingcap/tidb pkg/sessionctx/variable/sysvar.go,
#   setSnapshotTS), its refusal of a snapshot older than GC's safe point
#   (error 8055, pkg/sessionctx/variable/session.go ErrSnapshotTooOld;
#   pkg/executor/set.go), @@tidb_current_ts (a transaction's start_ts, 0
#   outside one), VERSION() with "TiDB" in it.
# - TiCDC's changefeed: the local cluster's replication carries the rows;
#   sync_point() below records a point as SinkSyncPoint in pingcap/tiflow
#   cdc/syncpointstore/mysql_syncpoint_store.go does, once the downstream
#   holds everything up to primary_ts (MASTER_GTID_WAIT here, TiCDC's
#   barrier there): in one transaction, secondary_ts from "select
#   @@tidb_current_ts", then "insert ignore into tidb_cdc.syncpoint_v1";
#   the table as its CreateSyncTable creates it. (Its "set global
#   tidb_external_ts", an error TiCDC ignores on a server without the
#   variable, is left out: nothing here reads it.) Or as the new TiCDC's
#   SendSyncPointEvent (pingcap/ticdc pkg/sink/mysql/
#   mysql_writer_for_syncpoint.go) does: the same, but the changefeed
#   column is the ChangeFeedID's String(), "<keyspace>/<name>"
#   (pkg/common/types.go; keyspace "default" unless one is named), and
#   the TSOs are bare numbers in the statement, not bound strings.
# A TSO is the physical time in milliseconds shifted left 18 bits, OR a
# logical counter (tikv/pd pkg/tso; tidb's oracle.ComposeTS).

command -v mariadbd >/dev/null 2>&1 || [ -x /usr/sbin/mariadbd ] ||
	skip_all "mariadbd is not installed (make deps)"
command -v etcd >/dev/null 2>&1 || skip_all "etcd is not installed (make deps)"

# fake_tidb NAME PORT TO: fake-tidb-sql.pl on PORT in front of the server
# at TO, its log in $TRASH/fake-NAME.log; killed when the file ends. GC's
# safe point is $TRASH/gc-safe-point, a TSO (1 unless a test writes it;
# none when it removes it).
fake_tidb() {
	test -s "$TRASH/gc-safe-point" || echo 1 >"$TRASH/gc-safe-point"
	perl "$ROOT/tests/helpers/fake-tidb-sql.pl" --listen "$2" --to "$3" \
		--gc-safe-point "$TRASH/gc-safe-point" 2>"$TRASH/fake-$1.log" &
	test_fake_pid_=$!
	test_track_pid $test_fake_pid_
	wait_for_condition 5 "listening $2 || ! alive $test_fake_pid_" &&
	alive $test_fake_pid_ || { cat "$TRASH/fake-$1.log"; return 1; }
}

# fake_tidbs: a fake TiDB in front of each side of the local cluster
# test_cluster_setup started (at UP and DOWN), on the ports it takes as
# UPT and DOWNT.
fake_tidbs() {
	take_port UPT && take_port DOWNT &&
	fake_tidb up $UPT $UP &&
	fake_tidb down $DOWNT $DOWN
}

# check DIR: tichaos check DIR, its TAP in DIR.tap, its exit code in $rc.
check() {
	"$TICHAOS" check "$1" >"$1.tap" 2>"$1.err"
	rc=$?
}

# tso PORT: TiDB's TSO now, as a transaction's start_ts.
tso() {
	sql "$1" "BEGIN; SELECT @@tidb_current_ts; COMMIT"
}

# sync_point [FORM [CF [FILE]]]: record a sync point of changefeed CF
# (default cf-sp) as TiCDC does; its primary and secondary TSOs are
# appended to $TRASH/FILE (default points). FORM is old (the default:
# pingcap/tiflow's row, changefeed CF), new (pingcap/ticdc's,
# changefeed default/CF) or new:KEYSPACE (KEYSPACE/CF). UP and DOWN are
# the servers' ports, UPT and DOWNT the fakes'.
sync_point() {
	sp_cf=${2:-cf-sp}
	case "${1:-old}" in
	old)	sp_col=$sp_cf sp_q="'" ;;
	new)	sp_col=default/$sp_cf sp_q= ;;
	new:*)	sp_col=${1#new:}/$sp_cf sp_q= ;;
	*)	echo "sync_point: no form '$1'" >&2; return 1 ;;
	esac
	p=$(tso $UPT) && pos=$(sql $UP "SELECT @@gtid_binlog_pos") &&
	test "$(sql $DOWN "SELECT MASTER_GTID_WAIT('$pos', 30)")" = 0 &&
	sql $DOWNT "CREATE DATABASE IF NOT EXISTS tidb_cdc; USE tidb_cdc;
		CREATE TABLE IF NOT EXISTS syncpoint_v1 (
			ticdc_cluster_id varchar (255), changefeed varchar(255),
			primary_ts varchar(18), secondary_ts varchar(18),
			created_at timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
			INDEX (created_at), PRIMARY KEY (changefeed, primary_ts))" &&
	s=$(sql $DOWNT "BEGIN; SELECT @@tidb_current_ts INTO @s;
		INSERT IGNORE INTO tidb_cdc.syncpoint_v1 (ticdc_cluster_id,
			changefeed, primary_ts, secondary_ts)
			VALUES ('default', '$sp_col', $sp_q$p$sp_q, @s);
		COMMIT; SELECT @s") &&
	test "$s" -gt "$p" &&
	echo "$p $s" >>"$TRASH/${3:-points}"
}
