package main

// The MySQL sink of TiCDC's new architecture. -marker after and -marker
// pre are pingcap/ticdc as it writes it at 09c7a4e99f82 (the code PR 951,
// a9806ae554f1, introduced, with the created_at precision of PR 2066),
// until PR 2754:
//
// - pkg/sink/mysql/mysql_writer.go FlushDDLEvent (line 102): when the
//   downstream is TiDB and EnableDDLTs, FlushDDLTsPre first (the table's
//   row in tidb_cdc.ddl_ts_v1 with finished=0), then execDDLWithMaxRetries
//   (the DDL), then FlushDDLTs (finished=1). A MySQL downstream gets no
//   FlushDDLTsPre: the DDL, then its row, and a crash between the two
//   leaves the DDL applied and unrecorded. -marker after is that order,
//   -marker pre TiDB's (the fix, which needs the downstream to tell
//   whether the DDL ran: ddl_jobs below).
// - pkg/sink/mysql/mysql_writer_for_ddl_ts.go insertItemQuery (213):
//   SET @current_ts = NOW(6), then INSERT ... ON DUPLICATE KEY UPDATE of
//   every table the DDL blocks, in one transaction (SendDDLTsPre 64,
//   SendDDLTs 122); createDDLTsTable (578): the table's columns.
// - GetStartTsList (290): on a restart each table starts at its row's
//   ddl_ts when finished; when not (TiDB only), at ddl_ts if the
//   downstream's information_schema.ddl_jobs holds a job of its table
//   created after the row's created_at (queryDDLJobs, 417: CREATE_TIME of
//   the latest job by DB_NAME and TABLE_NAME), else at ddl_ts - 1: the
//   DDL runs again. downstreamadapter/sink/mysql/sink.go GetStartTsList
//   (262): the start is the larger of that and the changefeed's
//   checkpoint; events at or below a table's start are not applied again.
// - pkg/sink/mysql/mysql_writer_ddl.go execDDL (33): EXCHANGE PARTITION,
//   not idempotent, is skipped when isDDLExecuted (mysql_writer_for_ddl_ts
//   .go 502) finds its table's row at that ddl_ts with finished=1;
//   execDDLWithMaxRetries (110): an error IsIgnorableMySQLDDLError
//   (pkg/apperror/util.go 47) accepts is logged "Execute DDL failed, but
//   error can be ignored" and the DDL counts as done; any other is
//   retried, and the changefeed goes no further.
// - DML as the MySQL sink's safe mode writes it after a restart (TiCDC is
//   at-least-once: pkg/sink/mysql/mysql_writer_dml.go, safe mode): an
//   insert as REPLACE INTO, an update as DELETE of the old key and REPLACE
//   of the new row, a delete as DELETE by the primary key.
//
// -marker today is pingcap/ticdc as it is at b813e76f9dad (2026-08-18),
// which does what PR 2754 (82b534d028f9, 2025-10-27) made it do:
//
// - pkg/sink/mysql/mysql_writer.go FlushDDLEvent (line 146): FlushDDLTsPre
//   (finished=0), execDDLWithMaxRetries, FlushDDLTs (finished=1) for
//   every downstream (a DDL TiDBOnly, which MariaDB's binlog never
//   carries, only for TiDB).
// - pkg/sink/mysql/mysql_writer_for_ddl_ts.go buildInsertItemQuery (266):
//   one INSERT ... ON DUPLICATE KEY UPDATE in the transaction of
//   SendDDLTsPre (96) or SendDDLTs (154), no names, no created_at;
//   createDDLTsTable (715): ddl_ts_v1 without table_name_in_ddl_job,
//   db_name_in_ddl_job and created_at.
// - GetTableRecoveryInfo (359), its decodeRow (440): a finished row starts
//   its table at ddl_ts; an unfinished one (not a syncpoint's) at ddl_ts
//   - 1, "to replay DDL at ddlTs", asking the downstream nothing: the DDL
//   runs again whether or not it ran. downstreamadapter/sink/mysql/sink.go
//   GetTableRecoveryInfo (441): the start is the larger of that and the
//   changefeed's checkpoint. The DML at ddl_ts it also skips
//   (skipDMLAsStartTs, downstreamadapter/dispatcher/basic_dispatcher.go
//   655) is none here: a DDL's GTID holds no rows.
// - pkg/sink/mysql/mysql_writer_ddl.go execDDL (36): an EXCHANGE
//   PARTITION is skipped only when isDDLExecuted (mysql_writer_for_ddl_ts
//   .go 637) finds its row at that ddl_ts with finished=1, which an
//   interrupted exchange's row is not: applied again, it swaps the rows
//   back. execDDLWithMaxRetries (216): errors as above.
//
// What the model leaves out or changes: one process writes every table
// (TiCDC splits them over dispatchers); the changefeed's checkpoint, which
// TiCDC keeps in etcd, is a row of tidb_cdc.model_checkpoint, written
// every second with what was applied by then (so a restart applies the
// last second's DML again, as a checkpoint that lags does); MariaDB's
// binlog names tables, not table ids, so a table's id is the CRC-32 of
// its `db`.`name`, and a DROP TABLE updates its row instead of deleting
// it (TiDB gives the table created again a new id, the model the same
// name); DDL that names no table (CREATE DATABASE) has the row of the
// database, table name "".

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"hash/crc32"
	"regexp"
	"strings"
	"time"

	"github.com/go-sql-driver/mysql"
)

const (
	clusterID = "default"
	// pkg/sink/mysql/mysql_writer_for_ddl_ts.go timeFormat (line 31).
	timeFormat = "2006-01-02 15:04:05.000000"
)

type tableKey struct{ db, table string }

func (k tableKey) id() int64 {
	return int64(crc32.ChecksumIEEE([]byte("`" + k.db + "`.`" + k.table + "`")))
}

type sink struct {
	ctx        context.Context
	conn       *sql.Conn // the downstream, one session (USE db)
	changefeed string
	marker     string           // after, pre or today: the code modelled
	start      map[int64]uint64 // by table id
	checkpoint uint64           // the changefeed's: applied up to here at restart
	applied    uint64           // every event up to here is applied
	columns    map[tableKey][]string
	keys       map[tableKey][]int // primary key columns' positions
	status     *status
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), `'`, `\'`) + "'"
}

func (s *sink) exec(q string, args ...interface{}) error {
	_, err := s.conn.ExecContext(s.ctx, q, args...)
	return err
}

// prepare: the sink's tables, as createDDLTsTable makes ddl_ts_v1 (today
// without the names and created_at).
func (s *sink) prepare() error {
	ddlTs := `CREATE TABLE IF NOT EXISTS tidb_cdc.ddl_ts_v1 (
			ticdc_cluster_id varchar (255),
			changefeed varchar(255),
			ddl_ts varchar(18),
			table_id bigint(21),
			finished bool,
			is_syncpoint bool,
			INDEX (ticdc_cluster_id, changefeed, table_id),
			PRIMARY KEY (ticdc_cluster_id, changefeed, table_id))`
	if s.marker != "today" {
		ddlTs = `CREATE TABLE IF NOT EXISTS tidb_cdc.ddl_ts_v1 (
			ticdc_cluster_id varchar (255),
			changefeed varchar(255),
			ddl_ts varchar(18),
			table_id bigint(21),
			finished bool,
			table_name_in_ddl_job varchar(1024),
			db_name_in_ddl_job varchar(1024),
			is_syncpoint bool,
			created_at datetime(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
			INDEX (ticdc_cluster_id, changefeed, table_id),
			PRIMARY KEY (ticdc_cluster_id, changefeed, table_id))`
	}
	for _, q := range []string{
		"CREATE DATABASE IF NOT EXISTS tidb_cdc",
		ddlTs,
		`CREATE TABLE IF NOT EXISTS tidb_cdc.model_checkpoint (
			changefeed varchar(255) PRIMARY KEY, checkpoint_ts bigint)`,
	} {
		if err := s.exec(q); err != nil {
			return err
		}
	}
	return nil
}

// ddlJobRan: GetStartTsList's question for an unfinished row, asked as
// queryDDLJobs asks it: did a job on the table start after created_at?
func (s *sink) ddlJobRan(k tableKey, createdAt string) (bool, string, error) {
	q := fmt.Sprintf("SELECT CREATE_TIME FROM information_schema.ddl_jobs WHERE DB_NAME = '%s' AND TABLE_NAME = '%s' order by CREATE_TIME desc limit 1;", k.db, k.table)
	var created sql.NullString
	err := s.conn.QueryRowContext(s.ctx, q).Scan(&created)
	if errors.Is(err, sql.ErrNoRows) || (err == nil && !created.Valid) {
		return false, "no ddl job", nil
	}
	if err != nil {
		return false, "", err
	}
	at, err1 := time.Parse(timeFormat, createdAt)
	job, err2 := time.Parse(timeFormat, created.String)
	if err1 != nil || err2 != nil {
		return false, "times unreadable", nil
	}
	return at.Before(job), "ddl job created " + created.String, nil
}

// recover: where each table starts (GetStartTsList, today
// GetTableRecoveryInfo), from the rows of ddl_ts_v1 and the changefeed's
// checkpoint; first is the changefeed's start when it has none yet (the
// upstream's position now).
func (s *sink) recover(first uint64) error {
	err := s.conn.QueryRowContext(s.ctx, "SELECT checkpoint_ts FROM tidb_cdc.model_checkpoint WHERE changefeed = ?", s.changefeed).Scan(&s.checkpoint)
	if errors.Is(err, sql.ErrNoRows) {
		s.checkpoint = first
		if err = s.writeCheckpoint(); err != nil {
			return err
		}
		logf("changefeed %s created at ts %d", s.changefeed, first)
	} else if err != nil {
		return err
	}
	q := "SELECT table_id, table_name_in_ddl_job, db_name_in_ddl_job, ddl_ts, finished, DATE_FORMAT(created_at, '%Y-%m-%d %H:%i:%s.%f') FROM tidb_cdc.ddl_ts_v1 WHERE ticdc_cluster_id = ? AND changefeed = ?"
	if s.marker == "today" {
		q = "SELECT table_id, '', '', ddl_ts, finished, '' FROM tidb_cdc.ddl_ts_v1 WHERE ticdc_cluster_id = ? AND changefeed = ?"
	}
	rows, err := s.conn.QueryContext(s.ctx, q, clusterID, s.changefeed)
	if err != nil {
		return err
	}
	type row struct {
		id        int64
		k         tableKey // the DDL job's table
		ts        uint64
		finished  bool
		createdAt string
	}
	var all []row
	for rows.Next() {
		var r row
		if err := rows.Scan(&r.id, &r.k.table, &r.k.db, &r.ts, &r.finished, &r.createdAt); err != nil {
			rows.Close()
			return err
		}
		all = append(all, r)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	s.start = map[int64]uint64{}
	for _, r := range all {
		ts, why := r.ts, "finished"
		if !r.finished && s.marker == "today" {
			// decodeRow: the DDL replayed, whatever the downstream did.
			ts, why = r.ts-1, "unfinished, replayed"
		} else if !r.finished {
			if s.marker == "after" {
				return fmt.Errorf("ddl ts table is not finished, but downstream is not tidb, FIX IT")
			}
			ran, how, err := s.ddlJobRan(r.k, r.createdAt)
			if err != nil {
				return err
			}
			if ran {
				why = "unfinished, ran (" + how + ")"
			} else {
				ts, why = r.ts-1, "unfinished, not run ("+how+")"
			}
		}
		start := ts
		if s.checkpoint > start {
			start = s.checkpoint
		}
		s.start[r.id] = start
		if s.marker == "today" {
			logf("table %d starts at ts %d: ddl_ts %d %s, checkpoint %d",
				r.id, start, r.ts, why, s.checkpoint)
		} else {
			logf("table %d starts at ts %d: ddl_ts %d (job %s.%s) %s, checkpoint %d",
				r.id, start, r.ts, r.k.db, r.k.table, why, s.checkpoint)
		}
	}
	s.applied = s.checkpoint
	logf("restart from ts %d", s.checkpoint)
	return nil
}

func (s *sink) writeCheckpoint() error {
	return s.exec("REPLACE INTO tidb_cdc.model_checkpoint VALUES (?, ?)", s.changefeed, s.checkpoint)
}

// done: whether table k's events at ts were applied before the restart.
func (s *sink) done(k tableKey, ts uint64) bool {
	start, ok := s.start[k.id()]
	if !ok {
		start = s.checkpoint
	}
	return ts <= start
}

var (
	reTableRef = regexp.MustCompile("(?i)\\b(?:TABLE|TABLES)\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?((?:`(?:[^`]|``)+`|\\w+)(?:\\s*\\.\\s*(?:`(?:[^`]|``)+`|\\w+))?)")
	reDatabase = regexp.MustCompile("(?i)^\\s*(?:CREATE|DROP|ALTER)\\s+(?:DATABASE|SCHEMA)\\s+(?:IF\\s+(?:NOT\\s+)?EXISTS\\s+)?(`(?:[^`]|``)+`|\\w+)")
	reDDL      = regexp.MustCompile(`(?i)^\s*(CREATE|ALTER|DROP|TRUNCATE|RENAME)\b`)
	reExchange = regexp.MustCompile(`(?i)\bEXCHANGE\s+PARTITION\b`)
	reIdent    = regexp.MustCompile("`(?:[^`]|``)+`|\\w+")
)

func unquoteIdent(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "`") {
		return strings.ReplaceAll(s[1:len(s)-1], "``", "`")
	}
	return s
}

// blocked: the tables a DDL blocks (its event's BlockedTables and
// NeedAddedTables), in the order it names them.
func blocked(db, q string) []tableKey {
	if m := reDatabase.FindStringSubmatch(q); m != nil {
		return []tableKey{{db: unquoteIdent(m[1])}}
	}
	var ks []tableKey
	for _, m := range reTableRef.FindAllStringSubmatch(q, -1) {
		ids := reIdent.FindAllString(m[1], -1)
		k := tableKey{db: db, table: unquoteIdent(ids[len(ids)-1])}
		if len(ids) == 2 {
			k.db = unquoteIdent(ids[0])
		}
		ks = append(ks, k)
	}
	return ks
}

// mark: insertItemQuery's two statements for the tables of a DDL at ts;
// every row names the DDL job's table (its event's TableNameInDDLJob,
// DBNameInDDLJob), the first the DDL names. Today buildInsertItemQuery's
// one: no names, no created_at.
func (s *sink) mark(ks []tableKey, ts uint64, finished int) error {
	tx, err := s.conn.BeginTx(s.ctx, nil)
	if err != nil {
		return err
	}
	if s.marker == "today" {
		var b strings.Builder
		b.WriteString("INSERT INTO tidb_cdc.ddl_ts_v1 (ticdc_cluster_id, changefeed, ddl_ts, table_id, finished, is_syncpoint) VALUES ")
		for i, k := range ks {
			if i > 0 {
				b.WriteString(", ")
			}
			fmt.Fprintf(&b, "('%s', %s, '%d', %d, %d, 0)",
				clusterID, quoteString(s.changefeed), ts, k.id(), finished)
		}
		b.WriteString(" ON DUPLICATE KEY UPDATE finished=VALUES(finished), ddl_ts=VALUES(ddl_ts), is_syncpoint=VALUES(is_syncpoint);")
		if _, err = tx.ExecContext(s.ctx, b.String()); err != nil {
			tx.Rollback()
			return err
		}
		return tx.Commit()
	}
	var b strings.Builder
	b.WriteString("INSERT INTO tidb_cdc.ddl_ts_v1 (ticdc_cluster_id, changefeed, ddl_ts, table_id, table_name_in_ddl_job, db_name_in_ddl_job, finished, is_syncpoint, created_at) VALUES ")
	for i, k := range ks {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "('%s', %s, '%d', %d, %s, %s, %d, 0, @current_ts)",
			clusterID, quoteString(s.changefeed), ts, k.id(),
			quoteString(ks[0].table), quoteString(ks[0].db), finished)
	}
	b.WriteString(" ON DUPLICATE KEY UPDATE finished=VALUES(finished), table_name_in_ddl_job=VALUES(table_name_in_ddl_job), db_name_in_ddl_job=VALUES(db_name_in_ddl_job), ddl_ts=VALUES(ddl_ts), created_at=VALUES(created_at), is_syncpoint=VALUES(is_syncpoint);")
	if _, err = tx.ExecContext(s.ctx, "SET @current_ts = NOW(6);"); err == nil {
		_, err = tx.ExecContext(s.ctx, b.String())
	}
	if err != nil {
		tx.Rollback()
		return err
	}
	return tx.Commit()
}

// isDDLExecuted: the table's row at ts, finished.
func (s *sink) isDDLExecuted(k tableKey, ts uint64) (bool, error) {
	rows, err := s.conn.QueryContext(s.ctx, fmt.Sprintf("SELECT * FROM tidb_cdc.ddl_ts_v1 WHERE (ticdc_cluster_id, changefeed, table_id, ddl_ts, finished) IN (('%s', %s, %d, %d, 1))", clusterID, quoteString(s.changefeed), k.id(), ts))
	if err != nil {
		return false, err
	}
	defer rows.Close()
	return rows.Next(), nil
}

// IsIgnorableMySQLDDLError's codes (pkg/apperror/util.go): database,
// table, column, index or partition there already or gone already.
var ignorable = map[uint16]bool{1007: true, 1008: true, 1050: true, 1051: true,
	1054: true, 1060: true, 1061: true, 1068: true, 1091: true, 1176: true,
	1507: true, 1517: true}

// retry: f again every second until it succeeds, as TiCDC retries a
// write the downstream refuses; the changefeed meanwhile in warning with
// the error (TiCDC's changefeed error), the first refusal logged as
// "error that stops it", each later one counted.
func (s *sink) retry(what string, f func() error) error {
	for n := 0; ; n++ {
		err := f()
		if err == nil {
			if n > 0 {
				logf("%s succeeded after %d retries", what, n)
				s.status.set("normal", "")
			}
			return nil
		}
		var me *mysql.MySQLError
		if !errors.As(err, &me) {
			return err // the connection: the process ends, TiCDC restarts the sink
		}
		if n == 0 {
			logf("error that stops it: %s: %v", what, err)
		}
		s.status.set("warning", fmt.Sprintf("[CDC:ErrMySQLTxnError]%s: %v", what, err))
		select {
		case <-s.ctx.Done():
			return s.ctx.Err()
		case <-time.After(time.Second):
		}
	}
}

// applyDDL: FlushDDLEvent.
func (s *sink) applyDDL(ev event) error {
	if !reDDL.MatchString(ev.query) {
		return nil // GRANT and the like: not DDL that TiCDC replicates
	}
	ks := blocked(ev.db, ev.query)
	if len(ks) == 0 {
		return nil
	}
	all := true
	for _, k := range ks {
		if !s.done(k, ev.ts) {
			all = false
		}
	}
	if all {
		return nil
	}
	if s.marker != "after" {
		if err := s.retry("ddl ts pre", func() error { return s.mark(ks, ev.ts, 0) }); err != nil {
			return err
		}
		logf("marker ts %d finished=0: %s", ev.ts, names(ks))
	}
	logf("apply DDL ts %d: %s", ev.ts, oneLine(ev.query))
	err := s.retry(fmt.Sprintf("Execute DDL ts %d", ev.ts), func() error {
		if reExchange.MatchString(ev.query) {
			executed, err := s.isDDLExecuted(ks[0], ev.ts)
			if err != nil {
				return err
			}
			if executed {
				logf("Skip Already Executed DDL ts %d", ev.ts)
				return nil
			}
		}
		if ev.db != "" {
			if err := s.exec("USE " + quoteIdent(ev.db)); err != nil {
				return err
			}
		}
		err := s.exec(ev.query)
		var me *mysql.MySQLError
		if errors.As(err, &me) && ignorable[me.Number] {
			logf("Execute DDL failed, but error can be ignored: ts %d: %v", ev.ts, err)
			return nil
		}
		return err
	})
	if err != nil {
		return err
	}
	logf("DDL done ts %d", ev.ts)
	for _, k := range ks {
		delete(s.columns, k)
		delete(s.keys, k)
	}
	if err := s.retry("ddl ts", func() error { return s.mark(ks, ev.ts, 1) }); err != nil {
		return err
	}
	logf("marker ts %d finished=1: %s", ev.ts, names(ks))
	return nil
}

func names(ks []tableKey) string {
	var n []string
	for _, k := range ks {
		n = append(n, k.db+"."+k.table)
	}
	return strings.Join(n, " ")
}

func oneLine(q string) string { return strings.Join(strings.Fields(q), " ") }

// schema: the table's column names by position, its primary key's
// positions, from the downstream.
func (s *sink) schema(k tableKey) ([]string, []int, error) {
	if c, ok := s.columns[k]; ok {
		return c, s.keys[k], nil
	}
	rows, err := s.conn.QueryContext(s.ctx, "SELECT c.COLUMN_NAME, c.COLUMN_KEY = 'PRI' FROM information_schema.COLUMNS c WHERE c.TABLE_SCHEMA = ? AND c.TABLE_NAME = ? ORDER BY c.ORDINAL_POSITION", k.db, k.table)
	if err != nil {
		return nil, nil, err
	}
	defer rows.Close()
	var cols []string
	var pk []int
	for rows.Next() {
		var name string
		var pri bool
		if err := rows.Scan(&name, &pri); err != nil {
			return nil, nil, err
		}
		if pri {
			pk = append(pk, len(cols))
		}
		cols = append(cols, name)
	}
	if len(cols) == 0 {
		return nil, nil, &mysql.MySQLError{Number: 1146, Message: fmt.Sprintf("Table '%s.%s' doesn't exist", k.db, k.table)}
	}
	if len(pk) == 0 {
		for i := range cols {
			pk = append(pk, i)
		}
	}
	s.columns[k], s.keys[k] = cols, pk
	return cols, pk, nil
}

func (s *sink) rowSQL(r rowChange) ([]string, error) {
	k := tableKey{r.db, r.table}
	cols, pk, err := s.schema(k)
	if err != nil {
		return nil, err
	}
	name := quoteIdent(r.db) + "." + quoteIdent(r.table)
	del := func(v []string) string {
		var w []string
		for _, i := range pk {
			if i < len(v) {
				w = append(w, quoteIdent(cols[i])+" <=> "+v[i])
			}
		}
		return "DELETE FROM " + name + " WHERE " + strings.Join(w, " AND ")
	}
	replace := func(v []string) string {
		var c []string
		for i := range v {
			if i < len(cols) {
				c = append(c, quoteIdent(cols[i]))
			}
		}
		return "REPLACE INTO " + name + " (" + strings.Join(c, ", ") + ") VALUES (" + strings.Join(v[:len(c)], ", ") + ")"
	}
	switch r.kind {
	case "insert":
		return []string{replace(r.after)}, nil
	case "update":
		return []string{del(r.before), replace(r.after)}, nil
	default:
		return []string{del(r.before)}, nil
	}
}

// applyRows: a transaction's rows not applied before the restart.
func (s *sink) applyRows(ev event) error {
	var rows []rowChange
	for _, r := range ev.rows {
		if !s.done(tableKey{r.db, r.table}, ev.ts) && r.db != "tidb_cdc" {
			rows = append(rows, r)
		}
	}
	if len(rows) == 0 {
		return nil
	}
	return s.retry(fmt.Sprintf("write DML ts %d", ev.ts), func() error {
		var stmts []string
		for _, r := range rows {
			q, err := s.rowSQL(r)
			if err != nil {
				return err
			}
			stmts = append(stmts, q...)
		}
		if len(stmts) == 1 {
			return s.exec(stmts[0])
		}
		tx, err := s.conn.BeginTx(s.ctx, nil)
		if err != nil {
			return err
		}
		for _, q := range stmts {
			if _, err := tx.ExecContext(s.ctx, q); err != nil {
				tx.Rollback()
				return err
			}
		}
		return tx.Commit()
	})
}
