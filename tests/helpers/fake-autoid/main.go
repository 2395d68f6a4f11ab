// fake-autoid -etcd URLS -listen HOST:PORT [-map keep|reset] [-version V]
//
// One TiDB server's autoid parts, for the functional tests of TiDB issue
// 52600 (docs/found.md): the autoid service (service.go, pingcap/tidb
// pkg/autoid_service/autoid.go) campaigning for "tidb/autoid/leader" in
// the real etcd at -etcd (owner.go, pkg/owner/manager.go, on etcd's own
// client and concurrency package), and the TiDB's client of it
// (client.go, pkg/meta/autoid/autoid_service.go). Its SQL side is
// tests/helpers/fake-tidb-sql.pl --autoid, which asks this process for
// the id of each insert into an AUTO_ID_CACHE=1 table.
//
// -listen is the TiDB's status port: the election's value is this
// address, as TiDB campaigns with its status address, where it serves
// the service's gRPC (autoid.New(selfAddr, ...)); tichaos maps it to the
// component whose http_url has it. It serves, on 127.0.0.1 only:
//
//	GET  /status      TiDB's {"connections","version","git_hash"}
//	                  (pkg/server/http_status.go), version -version
//	POST /autoid/alloc?db=&table=&n=&increment=&offset=
//	                  the service's AllocAutoID: 200 {"min","max"} or
//	                  {"errmsg"}; 500 "not leader" when this server does
//	                  not lead (a gRPC error to the client)
//	POST /fake/table?db=&table=&column=
//	                  the SQL side saw CREATE TABLE db.table: column is
//	                  its AUTO_INCREMENT column when the table is
//	                  AUTO_ID_CACHE=1, empty otherwise (forgotten)
//	POST /fake/insert-id?db=&table=&n=&columns=
//	                  this TiDB's ids for an insert of n rows naming
//	                  columns (comma-separated): 200 {"column","first",
//	                  "last"}, or {"column","explicit":true} when the
//	                  columns name it (no id is allocated: TiDB's
//	                  rebase to an explicit id is not modelled); 404
//	                  for a table that is not AUTO_ID_CACHE=1; 500 and
//	                  the error
//
// The schema the SQL side registers is kept in etcd too, as TiDB keeps
// its schema in TiKV, so that every TiDB knows the tables whichever
// created them: "fake-tidb/schema/DB" (its id: the key's create
// revision) and "fake-tidb/schema/DB/TABLE" = the column (its id: the
// key's mod revision, new at each CREATE, as a created table gets a new
// id). Each table's persisted end is "fake-tidb/meta/DB:ID/IID:ID".
//
// -map keep is the bug (TiDB before pingcap/tidb#52602: 6.4 to 6.5.9,
// 7.1.0 to 7.1.4, 7.5.0, 7.5.1, 8.0 ...), -map reset the fix; -version
// defaults to 8.0.11-TiDB-v7.5.1 and 8.0.11-TiDB-v7.5.2 for them.
//
// On stdout, one line per event, "MS TEXT", MS the milliseconds since it
// started: "listening ADDR", "campaign KEY", "become owner", "retire
// owner", "leader change of autoid service, this node become owner (map
// kept|reset)", "alloc4Signed table T from base B end E to base B2 end
// E2", "connect to leader ADDR", "reset connection: ERR". SIGTERM revokes
// its lease and ends it.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
)

var start = time.Now()
var sayLock sync.Mutex

func say(format string, args ...any) {
	sayLock.Lock()
	defer sayLock.Unlock()
	fmt.Printf("%d %s\n", time.Since(start).Milliseconds(),
		fmt.Sprintf(format, args...))
}

func die(format string, args ...any) {
	fmt.Fprintf(os.Stderr, "fake-autoid: "+format+"\n", args...)
	os.Exit(2)
}

type server struct {
	svc     *Service
	client  *clientDiscover
	etcd    *clientv3.Client
	version string
}

func intArg(r *http.Request, name string, def int64) (int64, error) {
	v := r.URL.Query().Get(name)
	if v == "" {
		return def, nil
	}
	return strconv.ParseInt(v, 10, 64)
}

func answer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

func (s *server) status(w http.ResponseWriter, r *http.Request) {
	answer(w, http.StatusOK, map[string]any{"connections": 0,
		"version": s.version, "git_hash": "fake-autoid"})
}

func (s *server) alloc(w http.ResponseWriter, r *http.Request) {
	var args [5]int64
	var err error
	for i, name := range []string{"db", "table", "n", "increment",
		"offset"} {
		def := map[bool]int64{true: 1, false: 0}[i >= 3]
		if args[i], err = intArg(r, name, def); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
	}
	min, max, err := s.svc.allocAutoID(r.Context(), args[0], args[1],
		uint64(args[2]), args[3], args[4])
	if err == errNotLeader {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if err != nil {
		answer(w, http.StatusOK, allocAnswer{Errmsg: err.Error()})
		return
	}
	answer(w, http.StatusOK, allocAnswer{Min: min, Max: max})
}

func schemaKey(db, table string) string {
	if table == "" {
		return "fake-tidb/schema/" + db
	}
	return "fake-tidb/schema/" + db + "/" + table
}

func (s *server) table(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	db, table, column := q.Get("db"), q.Get("table"), q.Get("column")
	ctx := r.Context()
	var err error

	if db == "" || table == "" {
		http.Error(w, "db and table are needed", http.StatusBadRequest)
		return
	}
	if column == "" {
		_, err = s.etcd.Delete(ctx, schemaKey(db, table))
	} else {
		dbKey := schemaKey(db, "")
		_, err = s.etcd.Txn(ctx).
			If(clientv3.Compare(clientv3.CreateRevision(dbKey), "=",
				0)).
			Then(clientv3.OpPut(dbKey, db)).Commit()
		if err == nil {
			_, err = s.etcd.Put(ctx, schemaKey(db, table), column)
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	answer(w, http.StatusOK, map[string]any{})
}

func (s *server) insertID(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	db, table := q.Get("db"), q.Get("table")
	ctx := r.Context()

	n, err := intArg(r, "n", 1)
	if err != nil || n < 1 {
		http.Error(w, "bad n", http.StatusBadRequest)
		return
	}
	resp, err := s.etcd.Get(ctx, schemaKey(db, ""))
	var dbID, tblID int64
	var column string
	if err == nil && len(resp.Kvs) > 0 {
		dbID = resp.Kvs[0].CreateRevision
		resp, err = s.etcd.Get(ctx, schemaKey(db, table))
		if err == nil && len(resp.Kvs) > 0 {
			tblID = resp.Kvs[0].ModRevision
			column = string(resp.Kvs[0].Value)
		}
	}
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	if tblID == 0 {
		http.Error(w, "no AUTO_ID_CACHE=1 table "+db+"."+table,
			http.StatusNotFound)
		return
	}
	for _, c := range strings.Split(q.Get("columns"), ",") {
		if strings.EqualFold(c, column) {
			answer(w, http.StatusOK, map[string]any{"column": column,
				"explicit": true})
			return
		}
	}
	min, max, err := s.client.Alloc(ctx, dbID, tblID, uint64(n), 1, 1)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	answer(w, http.StatusOK, map[string]any{"column": column,
		"first": min + 1, "last": max})
}

func main() {
	etcdURLs := flag.String("etcd", "", "etcd client URLs, comma-separated")
	listen := flag.String("listen", "", "the status address, HOST:PORT")
	mapMode := flag.String("map", "reset",
		"keep: the bug of TiDB issue 52600; reset: its fix")
	version := flag.String("version", "", "what GET /status says")
	flag.Parse()
	if *etcdURLs == "" || *listen == "" || flag.NArg() != 0 ||
		(*mapMode != "keep" && *mapMode != "reset") {
		die("usage: fake-autoid -etcd URLS -listen HOST:PORT " +
			"[-map keep|reset] [-version VERSION]")
	}
	if *version == "" {
		*version = map[string]string{"keep": "8.0.11-TiDB-v7.5.1",
			"reset": "8.0.11-TiDB-v7.5.2"}[*mapMode]
	}
	cli, err := clientv3.New(clientv3.Config{
		Endpoints:   strings.Split(*etcdURLs, ","),
		DialTimeout: 5 * time.Second,
		Logger:      zap.NewNop(),
	})
	if err != nil {
		die("cannot reach etcd at '%s': %v", *etcdURLs, err)
	}
	host, _, err := net.SplitHostPort(*listen)
	if ip := net.ParseIP(host); err != nil || ip == nil || !ip.IsLoopback() {
		die("-listen '%s' must be a loopback HOST:PORT", *listen)
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		die("cannot listen on '%s': %v", *listen, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	s := &server{etcd: cli, version: *version}
	s.client = &clientDiscover{etcdCli: cli, say: say,
		http: &http.Client{Timeout: 10 * time.Second}}
	s.svc, err = newWithCli(ctx, *listen, cli, *mapMode == "reset", say)
	if err != nil {
		die("cannot campaign: %v", err)
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/status", s.status)
	mux.HandleFunc("/autoid/alloc", s.alloc)
	mux.HandleFunc("/fake/table", s.table)
	mux.HandleFunc("/fake/insert-id", s.insertID)
	go http.Serve(ln, mux)
	say("listening %s", *listen)

	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGTERM, syscall.SIGINT)
	<-sig
	cancel()
	select {
	case <-s.svc.leaderShip.done:
	case <-time.After(5 * time.Second):
	}
	cli.Close()
}
