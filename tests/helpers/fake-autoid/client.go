// A TiDB's side of the autoid service: pkg/meta/autoid/autoid_service.go
// in pingcap/tidb at 057a32a5bfed, with its lines there:
// ClientDiscover.GetClient (76-119), singlePointAlloc.Alloc (127-170),
// backoffer (172-192), ClientDiscover.ResetConn (196-). Every TiDB asks
// the leader, found as the value of the first-created key under
// "tidb/autoid/leader" (line 91), and keeps asking that server until a
// request fails with an "rpc error" (as a gRPC status error reads: the
// leader's "not leader" refusal, or a server that does not answer); then
// it drops the connection, backs off (400 ms, doubling to 5 s) and asks
// etcd for the leader again (lines 153-158). An error the leader returns
// in its answer (Errmsg) is the statement's error, not retried.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
)

const autoIDLeaderPath = "tidb/autoid/leader"

type clientDiscover struct {
	etcdCli *clientv3.Client
	mu      struct {
		sync.RWMutex
		addr string // the "connection": the leader it asks
	}
	version uint64
	http    *http.Client
	say     func(format string, args ...any)
}

// GetClient is ClientDiscover.GetClient: the server it asks, read from
// etcd when it has none.
func (d *clientDiscover) GetClient(ctx context.Context) (string, uint64,
	error) {
	d.mu.RLock()
	addr := d.mu.addr
	d.mu.RUnlock()
	if addr != "" {
		return addr, atomic.LoadUint64(&d.version), nil
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.mu.addr != "" {
		return d.mu.addr, atomic.LoadUint64(&d.version), nil
	}
	resp, err := d.etcdCli.Get(ctx, autoIDLeaderPath,
		clientv3.WithFirstCreate()...)
	if err != nil {
		return "", 0, err
	}
	if len(resp.Kvs) == 0 {
		return "", 0, errors.New("autoid service leader not found")
	}
	d.mu.addr = string(resp.Kvs[0].Value)
	d.say("connect to leader %s", d.mu.addr)
	return d.mu.addr, atomic.LoadUint64(&d.version), nil
}

// ResetConn is ClientDiscover.ResetConn: the next GetClient reads the
// leader again; once per version.
func (d *clientDiscover) ResetConn(version uint64, reason error) {
	if !atomic.CompareAndSwapUint64(&d.version, version, version+1) {
		return
	}
	d.say("reset connection: %v", reason)
	d.mu.Lock()
	d.mu.addr = ""
	d.mu.Unlock()
}

type backoffer struct {
	time.Duration
}

const backoffMin = 200 * time.Millisecond
const backoffMax = 5 * time.Second

func (b *backoffer) Reset() {
	b.Duration = backoffMin
}

func (b *backoffer) Backoff() {
	if b.Duration == 0 {
		b.Duration = backoffMin
	}
	b.Duration *= 2
	if b.Duration > backoffMax {
		b.Duration = backoffMax
	}
	time.Sleep(b.Duration)
}

type allocAnswer struct {
	Min    int64  `json:"min"`
	Max    int64  `json:"max"`
	Errmsg string `json:"errmsg,omitempty"`
}

// call is cli.AllocAutoID: the leader's answer, or an "rpc error" when
// it refused or could not be asked.
func (d *clientDiscover) call(ctx context.Context, addr string, dbID,
	tblID int64, n uint64, increment, offset int64) (*allocAnswer, error) {
	q := url.Values{}
	q.Set("db", fmt.Sprint(dbID))
	q.Set("table", fmt.Sprint(tblID))
	q.Set("n", fmt.Sprint(n))
	q.Set("increment", fmt.Sprint(increment))
	q.Set("offset", fmt.Sprint(offset))
	req, err := http.NewRequestWithContext(ctx, "POST", "http://"+addr+
		"/autoid/alloc?"+q.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := d.http.Do(req)
	if err != nil {
		return nil, fmt.Errorf("rpc error: code = Unavailable desc = %v",
			err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("rpc error: code = Unknown desc = %s",
			strings.TrimSpace(string(body)))
	}
	var a allocAnswer
	if err := json.Unmarshal(body, &a); err != nil {
		return nil, fmt.Errorf("rpc error: code = Internal desc = %v",
			err)
	}
	return &a, nil
}

// Alloc is singlePointAlloc.Alloc: (min, max] of n ids for the table.
func (d *clientDiscover) Alloc(ctx context.Context, dbID, tblID int64,
	n uint64, increment, offset int64) (int64, int64, error) {
	var bo backoffer
retry:
	addr, ver, err := d.GetClient(ctx)
	if err != nil {
		return 0, 0, err
	}
	resp, err := d.call(ctx, addr, dbID, tblID, n, increment, offset)
	if err != nil {
		if strings.Contains(err.Error(), "rpc error") &&
			ctx.Err() == nil {
			d.ResetConn(ver, err)
			bo.Backoff()
			goto retry
		}
		return 0, 0, err
	}
	bo.Reset()
	if len(resp.Errmsg) != 0 {
		return 0, 0, errors.New(resp.Errmsg)
	}
	return resp.Min, resp.Max, nil
}
