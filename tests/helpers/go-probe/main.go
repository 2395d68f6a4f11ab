// go-probe: a Go program for the tests of the faults that reach Go
// servers (docs/faults.md, clock and failpoint). A Go program reads the
// time through the vDSO, never through libc (runtime/vdso_linux_amd64.go,
// time_linux_amd64.s), which is why libfaketime does not move it and a
// live skew does; this one says what its time.Now() is.
//
//	go-probe -addr 127.0.0.1:PORT [-pidfile FILE]
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
//	GET /eval/NAME         failpoint.Eval(NAME), what a failpoint.Inject
//	                       site runs once failpoint-ctl has rewritten it
//	                       (code/rewriter.go): "value V" or "error E",
//	                       then " after N ms"
//
// Failpoints may also be on from its start: GO_FAILPOINTS, which the
// library reads in its init (failpoints.go).
//
// It logs "listening ADDR" on stderr once it serves.
package main

import (
	"flag"
	"fmt"
	"log"
	"net"
	"net/http"
	"os"
	"runtime"
	"strconv"
	"strings"
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

func main() {
	addr := flag.String("addr", "127.0.0.1:0", "where to listen")
	pidfile := flag.String("pidfile", "", "write the pid here")
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
