// fake-cdc-sink -up HOST:PORT -down HOST:PORT -marker after|pre|today
//
//	[-changefeed ID] [-status FILE]
//
// A model of TiCDC's MySQL sink and its DDL marker (pingcap/ticdc PR 951;
// sink.go says which code it follows): it replicates the upstream MariaDB
// (its binlog, binlog.go) to the downstream, DML as TiCDC's safe mode
// writes it, DDL as it is, and records each DDL in the downstream's
// tidb_cdc.ddl_ts_v1 after it (-marker after: TiCDC with a MySQL
// downstream, the bug) or before and after it (-marker pre: TiCDC with a
// TiDB downstream, which then tells from its information_schema.ddl_jobs
// whether a DDL the row calls unfinished ran; the fix), or as TiCDC does
// today, for any downstream (-marker today: before and after it, and a
// DDL the row calls unfinished applied again). Run by the owner
// capture (tests/helpers/fake-cdc.pl --sink), it dies with it
// (PR_SET_PDEATHSIG), as TiCDC's sink is a part of its capture's process.
//
// -status FILE: the changefeed as TiCDC's Open API shows it (GET
// /api/v2/changefeeds/{id}: state, checkpoint_ts, error), rewritten
// whenever it changes; checkpoint_ts is a TSO (milliseconds << 18) of a
// time before which every upstream commit has been applied.
//
// One line per step on stderr, after the milliseconds since the start:
// "started pid N", "changefeed ID created at ts N", "table ID starts at
// ts N: ...", "restart from ts N", "marker ts N finished=0|1: TABLES",
// "apply DDL ts N: QUERY", "DDL done ts N", "Skip Already Executed DDL ts
// N", "Execute DDL failed, but error can be ignored: ts N: ERROR", "error
// that stops it: WHAT: ERROR", "exit: ERROR".
package main

import (
	"context"
	"database/sql"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
)

var t0 = time.Now()

func logf(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "[fake-cdc-sink] [%d] %s\n",
		time.Since(t0).Milliseconds(), fmt.Sprintf(format, args...))
}

func die(err error) {
	logf("exit: %v", err)
	os.Exit(1)
}

// status: what the changefeed API says, kept in a file for the capture.
type status struct {
	mu         sync.Mutex
	path       string
	state, msg string
	checkpoint uint64
}

func (st *status) set(state, msg string) {
	st.mu.Lock()
	st.state, st.msg = state, msg
	st.mu.Unlock()
	st.write()
}

func (st *status) advance(tso uint64) {
	st.mu.Lock()
	changed := tso > st.checkpoint
	if changed {
		st.checkpoint = tso
	}
	st.mu.Unlock()
	if changed {
		st.write()
	}
}

func (st *status) write() {
	if st.path == "" {
		return
	}
	st.mu.Lock()
	doc := map[string]interface{}{"state": st.state, "checkpoint_ts": st.checkpoint}
	if st.msg != "" {
		doc["error"] = map[string]interface{}{"code": "CDC:ErrMySQLTxnError", "message": st.msg}
	}
	b, _ := json.Marshal(doc)
	st.mu.Unlock()
	tmp := st.path + ".tmp"
	if os.WriteFile(tmp, b, 0o644) == nil {
		os.Rename(tmp, st.path)
	}
}

// readStatus: the checkpoint a sink before this one reached.
func (st *status) read() {
	b, err := os.ReadFile(st.path)
	if err != nil {
		return
	}
	var doc struct {
		Checkpoint uint64 `json:"checkpoint_ts"`
	}
	if json.Unmarshal(b, &doc) == nil {
		st.checkpoint = doc.Checkpoint
	}
}

// gtidPos: the upstream's binlog position now: its domain-server prefix
// and sequence number.
func gtidPos(db *sql.DB) (string, uint64, error) {
	var pos string
	if err := db.QueryRow("SELECT @@gtid_binlog_pos").Scan(&pos); err != nil {
		return "", 0, err
	}
	if pos == "" {
		return "0-1", 0, nil
	}
	i := strings.LastIndexByte(pos, '-')
	seq, err := strconv.ParseUint(pos[i+1:], 10, 64)
	if err != nil || strings.Contains(pos, ",") {
		return "", 0, fmt.Errorf("upstream gtid_binlog_pos %q: one domain expected", pos)
	}
	return pos[:i], seq, nil
}

// A probe of the upstream: at wall time at, its commits were up to seq.
type probe struct {
	at  time.Time
	seq uint64
}

func main() {
	up := flag.String("up", "", "the upstream MariaDB, HOST:PORT")
	down := flag.String("down", "", "the downstream, HOST:PORT")
	marker := flag.String("marker", "", "after (the MySQL order, the bug), pre (the TiDB order, the fix) or today (TiCDC since PR 2754)")
	changefeed := flag.String("changefeed", "tichaos", "the changefeed's id")
	statusPath := flag.String("status", "", "the changefeed's status file")
	flag.Parse()
	if *up == "" || *down == "" || (*marker != "after" && *marker != "pre" && *marker != "today") {
		fmt.Fprintln(os.Stderr, "usage: fake-cdc-sink -up HOST:PORT -down HOST:PORT -marker after|pre|today [-changefeed ID] [-status FILE]")
		os.Exit(2)
	}
	// Die with the capture: PR_SET_PDEATHSIG, then a parent already gone.
	parent := os.Getppid()
	if _, _, e := syscall.RawSyscall(syscall.SYS_PRCTL, syscall.PR_SET_PDEATHSIG, uintptr(syscall.SIGKILL), 0); e != 0 {
		die(fmt.Errorf("prctl: %v", e))
	}
	if os.Getppid() != parent {
		die(fmt.Errorf("parent %d gone", parent))
	}
	logf("started pid %d marker %s", os.Getpid(), *marker)

	ctx := context.Background()
	updb, err := sql.Open("mysql", "root@tcp("+*up+")/")
	if err != nil {
		die(err)
	}
	downdb, err := sql.Open("mysql", "root@tcp("+*down+")/?timeout=5s")
	if err != nil {
		die(err)
	}
	conn, err := downdb.Conn(ctx)
	if err != nil {
		die(err)
	}
	prefix, now, err := gtidPos(updb)
	if err != nil {
		die(err)
	}
	st := &status{path: *statusPath, state: "normal"}
	st.read()
	s := &sink{ctx: ctx, conn: conn, changefeed: *changefeed,
		marker: *marker, columns: map[tableKey][]string{},
		keys: map[tableKey][]int{}, status: st}
	if err := s.prepare(); err != nil {
		die(err)
	}
	if err := s.recover(now); err != nil {
		die(err)
	}
	st.set("normal", "")

	host, port := *up, "3306"
	if i := strings.LastIndexByte(*up, ':'); i >= 0 {
		host, port = (*up)[:i], (*up)[i+1:]
	}
	cmd := exec.Command("mariadb-binlog", "--no-defaults",
		"--read-from-remote-server", "--host", host, "--port", port,
		"--user", "root", "--stop-never", "-v",
		"--base64-output=DECODE-ROWS",
		fmt.Sprintf("--start-position=%s-%d", prefix, s.checkpoint),
		"binlog.000001")
	cmd.Stderr = os.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
	out, err := cmd.StdoutPipe()
	if err != nil {
		die(err)
	}
	if err := cmd.Start(); err != nil {
		die(err)
	}
	events := make(chan event, 1024)
	go func() {
		if err := readEvents(out, events); err != nil {
			logf("binlog: %v", err)
		}
	}()

	// The upstream's position, probed every 100 ms: once applied up to a
	// probe's seq, the checkpoint is the probe's time.
	var (
		mu     sync.Mutex
		probes []probe
	)
	go func() {
		for {
			at := time.Now()
			if _, seq, err := gtidPos(updb); err == nil {
				mu.Lock()
				probes = append(probes, probe{at, seq})
				mu.Unlock()
			}
			time.Sleep(100 * time.Millisecond)
		}
	}()
	caughtUp := func() {
		mu.Lock()
		var best time.Time
		for len(probes) > 0 && probes[0].seq <= s.applied {
			best = probes[0].at
			probes = probes[1:]
		}
		mu.Unlock()
		if !best.IsZero() {
			st.advance(uint64(best.UnixMilli()) << 18)
		}
	}

	tick := time.NewTicker(time.Second)
	for {
		select {
		case ev, ok := <-events:
			if !ok {
				die(fmt.Errorf("mariadb-binlog ended: %v", cmd.Wait()))
			}
			if ev.ts <= s.checkpoint {
				continue
			}
			if ev.ddl {
				err = s.applyDDL(ev)
			} else {
				err = s.applyRows(ev)
			}
			if err != nil {
				die(err)
			}
			s.applied = ev.ts
			caughtUp()
		case <-tick.C:
			caughtUp()
			if s.applied > s.checkpoint {
				s.checkpoint = s.applied
				if err := s.writeCheckpoint(); err != nil {
					die(err)
				}
			}
		}
	}
}
