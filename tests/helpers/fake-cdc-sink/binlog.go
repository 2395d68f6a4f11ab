package main

// The upstream's changes, read as TiCDC's puller reads TiKV's: here the
// MariaDB binlog, through `mariadb-binlog --read-from-remote-server
// --stop-never -v --base64-output=DECODE-ROWS`, whose text is parsed into
// one event per GTID: a DDL statement, or a transaction's rows. An
// event's ts is its GTID's sequence number: gtid_strict_mode and one
// source (server_id 1, domain 0) make it grow with every commit, as a
// TiDB commit ts does.

import (
	"bufio"
	"fmt"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// A row change: its table, its kind, the column values by ordinal
// position (@1, @2, ... in mariadb-binlog's text), each a SQL literal.
type rowChange struct {
	db, table string
	kind      string   // insert, update, delete
	before    []string // update, delete: the old row
	after     []string // insert, update: the new row
}

// An event: a DDL (query, run in db) or a transaction (rows).
type event struct {
	ts    uint64
	ddl   bool
	db    string
	query string
	rows  []rowChange
}

var (
	// The GTID, then its flags as words: mariadb-binlog 10.11 prints
	// " cid=N trans" for a transaction of a group commit (10 insert
	// connections make most of them), " trans", " ddl", " ddl waited".
	reGTID   = regexp.MustCompile(`\tGTID \d+-\d+-(\d+)((?: [a-z_]+(?:=\d+)?)*)$`)
	reQuery  = regexp.MustCompile(`\tQuery\t`)
	reUse    = regexp.MustCompile("^use `((?:[^`]|``)*)`/\\*!\\*/;$")
	reRowOp  = regexp.MustCompile("^### (INSERT INTO|UPDATE|DELETE FROM) `((?:[^`]|``)*)`\\.`((?:[^`]|``)*)`$")
	reColumn = regexp.MustCompile(`^###   @(\d+)=(.*)$`)
)

// literal: mariadb-binlog -v's value as a SQL literal. A string is
// printed between quotes without escaping what it holds (the value runs
// to the last quote of its line; the suites' values hold no newline),
// a number as it is, a negative integer with its unsigned reading after
// it in parentheses, NULL as NULL.
func literal(v string) string {
	if strings.HasPrefix(v, "'") && strings.HasSuffix(v, "'") && len(v) >= 2 {
		s := v[1 : len(v)-1]
		s = strings.ReplaceAll(s, `\`, `\\`)
		s = strings.ReplaceAll(s, `'`, `\'`)
		return "'" + s + "'"
	}
	if i := strings.IndexByte(v, ' '); i > 0 {
		return v[:i]
	}
	return v
}

// readEvents parses mariadb-binlog's text from r and sends each whole
// event on out, until r ends; then it closes out.
func readEvents(r io.Reader, out chan<- event) error {
	defer close(out)
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	var (
		cur     *event
		db      string
		inQuery bool     // between a Query header and its "/*!*/;"
		stmt    []string // the statement's lines
		row     *rowChange
		part    *[]string // the row's before or after image being read
	)
	flushRow := func() {
		if row != nil && cur != nil {
			cur.rows = append(cur.rows, *row)
		}
		row, part = nil, nil
	}
	for sc.Scan() {
		line := sc.Text()
		if m := reGTID.FindStringSubmatch(line); m != nil {
			ts, err := strconv.ParseUint(m[1], 10, 64)
			if err != nil {
				return fmt.Errorf("bad GTID line %q", line)
			}
			cur = &event{ts: ts, ddl: strings.Contains(m[2]+" ", " ddl ")}
			continue
		}
		if cur == nil {
			continue
		}
		if inQuery {
			if m := reUse.FindStringSubmatch(line); m != nil && len(stmt) == 0 {
				db = strings.ReplaceAll(m[1], "``", "`")
				continue
			}
			if len(stmt) == 0 && (strings.HasPrefix(line, "SET ") ||
				strings.HasPrefix(line, "/*!") || strings.HasPrefix(line, "/*M!")) {
				continue
			}
			if line == "/*!*/;" {
				inQuery = false
				q := strings.Join(stmt, "\n")
				stmt = nil
				if cur.ddl {
					cur.db, cur.query = db, q
					out <- *cur
					cur = nil
				}
				continue
			}
			stmt = append(stmt, line)
			continue
		}
		if reQuery.MatchString(line) && strings.HasPrefix(line, "#") {
			inQuery = true
			continue
		}
		if m := reUse.FindStringSubmatch(line); m != nil {
			db = strings.ReplaceAll(m[1], "``", "`")
			continue
		}
		if m := reRowOp.FindStringSubmatch(line); m != nil {
			flushRow()
			kind := map[string]string{"INSERT INTO": "insert",
				"UPDATE": "update", "DELETE FROM": "delete"}[m[1]]
			row = &rowChange{db: strings.ReplaceAll(m[2], "``", "`"),
				table: strings.ReplaceAll(m[3], "``", "`"), kind: kind}
			continue
		}
		if row != nil {
			switch line {
			case "### WHERE":
				part = &row.before
				continue
			case "### SET":
				part = &row.after
				continue
			}
			if m := reColumn.FindStringSubmatch(line); m != nil && part != nil {
				*part = append(*part, literal(m[2]))
				continue
			}
		}
		if strings.HasPrefix(line, "COMMIT/*!*/;") {
			flushRow()
			if !cur.ddl {
				out <- *cur
			}
			cur = nil
		}
	}
	return sc.Err()
}
