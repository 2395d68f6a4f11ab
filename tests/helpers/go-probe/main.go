// go-probe: a Go program for the tests of the faults that reach Go
// servers (docs/faults.md, clock and failpoint). A Go program reads the
// time through the vDSO, never through libc (runtime/vdso_linux_amd64.go,
// time_linux_amd64.s), which is why libfaketime does not move it and a
// live skew does; this one says what its time.Now() is.
//
//	go-probe -addr 127.0.0.1:PORT [-pidfile FILE] [-pd NAME -pd-leader FILE]
//
//	GET /now               time.Now().UnixNano(), a line
//	GET /now?thread=new    the same, read on an OS thread the request
//	                       locks (and ends after it), then its thread id:
//	                       an idle thread at first, a new one once the
//	                       idle ones are used up
//	GET /threads           how many OS threads the process has
//	/fail/NAME             pingcap/failpoint's own HTTP handler, where
//	                       TiDB serves it (PUT the term, GET it back,
//	                       DELETE it; GET /fail/ lists them)
//	/debug/failpoints      the new TiCDC's failpoint API, as it serves it
//	                       in every build (pingcap/ticdc api/v2/
//	                       failpoint.go): POST {"name","expr"}, GET the
//	                       list, DELETE ?name=
//	/pd/api/v1/fail/NAME   with -pd: the same handler where PD serves it
//	                       (tikv/pd server/api/router.go, a with_fail
//	                       build), behind PD's redirector (below)
//	GET /eval/NAME         failpoint.Eval(NAME), what a failpoint.Inject
//	                       site runs once failpoint-ctl has rewritten it
//	                       (code/rewriter.go): "value V" or "error E",
//	                       then " after N ms"
//
// Failpoints may also be on from its start: GO_FAILPOINTS, which the
// library reads in its init (failpoints.go).
//
// -pd NAME makes it PD member NAME of a cluster whose leader -pd-leader
// FILE names ("NAME ORIGIN", read at each request, so a test moves the
// leader by writing it): a request to a follower is forwarded to the
// leader, as every request under /pd is (tikv/pd pkg/utils/apiutil/
// serverapi/middleware.go, redirector.ServeHTTP, read at v8.1.2
// c1ee9cf28f6d), unless it carries the header PD-Allow-follower-handle.
// Seen on three real v8.1.2 PDs built with with_fail: a PUT of a
// failpoint to a follower answered 204 and the failpoint was on in the
// leader, not in the follower; with the header, in the follower.
//
// It logs "listening ADDR" on stderr once it serves.
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/pingcap/failpoint"
)

// onThread runs f on an OS thread of its own, and ends that thread: a
// goroutine that locks its thread and ends without unlocking it takes the
// thread with it (runtime.LockOSThread). So each call uses up an idle
// thread of the runtime, and once there is none, the runtime starts one.
func onThread(f func()) {
	done := make(chan struct{})
	go func() {
		runtime.LockOSThread()
		f()
		close(done)
	}()
	<-done
}

func threads() int {
	entries, err := os.ReadDir("/proc/self/task")
	if err != nil {
		return -1
	}
	return len(entries)
}

// The new TiCDC's failpoint API (pingcap/ticdc api/v2/failpoint.go,
// routes in api/v2/api.go), on the same library: what it answers, as its
// gin handlers and ErrorHandleMiddleware write it. A parameter missing is
// its ErrAPIInvalidParam, a bad request (400); what the library refuses
// (failpoint.Enable, Disable of one never enabled: "error on NAME:
// failpoint: failpoint does not exist") is 500, api.NewHTTPError's
// {"error_msg","error_code"}; done is 200 and {} (EmptyResponse).
type failpointRequest struct {
	Name string `json:"name"`
	Expr string `json:"expr"`
}

var (
	fpMu    sync.Mutex
	fpItems = map[string]string{}
)

func httpError(w http.ResponseWriter, status int, msg, code string) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.WriteHeader(status)
	b, _ := json.MarshalIndent(map[string]string{"error_msg": msg, "error_code": code}, "", "    ")
	w.Write(b)
}

func okEmpty(w http.ResponseWriter) {
	w.Header().Set("Content-Type", "application/json; charset=utf-8")
	w.Write([]byte("{}"))
}

func invalidParam(w http.ResponseWriter, what string) {
	httpError(w, http.StatusBadRequest, "[CDC:ErrAPIInvalidParam]invalid api parameter: "+what, "CDC:ErrAPIInvalidParam")
}

func failpoints(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodPost:
		req := &failpointRequest{}
		if err := json.NewDecoder(r.Body).Decode(req); err != nil {
			invalidParam(w, "invalid request: "+err.Error())
			return
		}
		req.Name, req.Expr = strings.TrimSpace(req.Name), strings.TrimSpace(req.Expr)
		if req.Name == "" || req.Expr == "" {
			invalidParam(w, "name and expr are required")
			return
		}
		if err := failpoint.Enable(req.Name, req.Expr); err != nil {
			httpError(w, http.StatusInternalServerError, err.Error(), "")
			return
		}
		fpMu.Lock()
		fpItems[req.Name] = req.Expr
		fpMu.Unlock()
		okEmpty(w)
	case http.MethodDelete:
		name := strings.TrimSpace(r.URL.Query().Get("name"))
		if name == "" {
			req := &failpointRequest{}
			if err := json.NewDecoder(r.Body).Decode(req); err != nil {
				invalidParam(w, "invalid request: "+err.Error())
				return
			}
			name = strings.TrimSpace(req.Name)
		}
		if name == "" {
			invalidParam(w, "name is required")
			return
		}
		if err := failpoint.Disable(name); err != nil {
			httpError(w, http.StatusInternalServerError, err.Error(), "")
			return
		}
		fpMu.Lock()
		delete(fpItems, name)
		fpMu.Unlock()
		okEmpty(w)
	case http.MethodGet:
		fpMu.Lock()
		names := make([]string, 0, len(fpItems))
		for name := range fpItems {
			names = append(names, name)
		}
		sort.Strings(names)
		list := make([]failpointRequest, 0, len(names))
		for _, name := range names {
			list = append(list, failpointRequest{name, fpItems[name]})
		}
		fpMu.Unlock()
		b, _ := json.Marshal(list)
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Write(b)
	default:
		// gin answers a method it has no route for 404.
		http.NotFound(w, r)
	}
}

// pdRedirect serves next as PD member `name` does under /pd: itself when
// it leads (the member `leaderFile` names) or the request carries
// PD-Allow-follower-handle; else it forwards the request to the leader
// with PD-Redirector set to its name, and a request forwarded once
// already is refused (500 ErrRedirectToNotLeader), as PD's redirector.
func pdRedirect(name, leaderFile string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		text, err := os.ReadFile(leaderFile)
		leader := strings.Fields(string(text))
		if err != nil || len(leader) != 2 {
			http.Error(w, "[PD:apiutil:ErrRedirectNoLeader]redirect finds no leader", http.StatusServiceUnavailable)
			return
		}
		if leader[0] == name || r.Header.Get("PD-Allow-follower-handle") != "" {
			next.ServeHTTP(w, r)
			return
		}
		if r.Header.Get("PD-Redirector") != "" {
			http.Error(w, "[PD:apiutil:ErrRedirectToNotLeader]redirect to not leader", http.StatusInternalServerError)
			return
		}
		req, err := http.NewRequest(r.Method, leader[1]+r.URL.RequestURI(), r.Body)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		req.Header = r.Header.Clone()
		req.Header.Set("PD-Redirector", name)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		defer resp.Body.Close()
		for k, v := range resp.Header {
			w.Header()[k] = v
		}
		w.WriteHeader(resp.StatusCode)
		io.Copy(w, resp.Body)
	})
}

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "where to listen")
	pidfile := flag.String("pidfile", "", "write the pid here")
	pd := flag.String("pd", "", "serve PD's failpoint API as this PD member")
	pdLeader := flag.String("pd-leader", "", "the file naming PD's leader: NAME ORIGIN")
	flag.Parse()

	http.HandleFunc("/now", func(w http.ResponseWriter, r *http.Request) {
		var now int64
		if r.URL.Query().Get("thread") == "new" {
			var tid int
			onThread(func() {
				now = time.Now().UnixNano()
				tid = syscall.Gettid()
			})
			fmt.Fprintf(w, "%d %d\n", now, tid)
			return
		}
		now = time.Now().UnixNano()
		fmt.Fprintf(w, "%d\n", now)
	})
	// As TiDB's status server does (pkg/server/http_status.go).
	http.Handle("/fail/", http.StripPrefix("/fail", &failpoint.HttpHandler{}))
	http.HandleFunc("/debug/failpoints", failpoints)
	if *pd != "" {
		http.Handle("/pd/", pdRedirect(*pd, *pdLeader,
			http.StripPrefix("/pd/api/v1/fail", &failpoint.HttpHandler{})))
	}
	http.HandleFunc("/eval/", func(w http.ResponseWriter, r *http.Request) {
		name := strings.TrimPrefix(r.URL.Path, "/eval/")
		start := time.Now()
		v, err := failpoint.Eval(name)
		took := time.Since(start).Milliseconds()
		if err != nil {
			fmt.Fprintf(w, "error %v after %d ms\n", err, took)
			return
		}
		fmt.Fprintf(w, "value %v after %d ms\n", v, took)
	})
	http.HandleFunc("/threads", func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, "%d\n", threads())
	})
	ln, err := net.Listen("tcp", *addr)
	if err != nil {
		log.Fatal(err)
	}
	if *pidfile != "" {
		if err := os.WriteFile(*pidfile, []byte(strconv.Itoa(os.Getpid())+"\n"), 0o644); err != nil {
			log.Fatal(err)
		}
	}
	log.Printf("listening %s", ln.Addr())
	log.Fatal(http.Serve(ln, nil))
}
