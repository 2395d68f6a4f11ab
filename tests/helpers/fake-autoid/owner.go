// The autoid leader's election, as TiDB's owner manager holds it:
// pkg/owner/manager.go in pingcap/tidb at 00aaecbd8a05, with its lines
// there: IsOwner (149-151), CampaignOwner (186-201), toBeOwner
// (221-227), RetireOwner (230-236), campaignLoop (244-318), getOwnerInfo
// (336-367), GetOwnerKeyInfo (370-385), watchOwner (459-495). On etcd's
// own concurrency package, as TiDB uses it: a session (a lease kept
// alive), an election under "tidb/autoid/leader" whose candidates put
// "<prefix>/<lease hex>" = the server's address, the lowest create
// revision owning.
//
// What it keeps of TiDB's: when the owner's key is deleted (tichaos's
// resign) or its session ends, watchOwner returns (the DELETE event,
// lines 479-484), the manager retires (313) and campaigns again at once
// on the same session (299: a new key of the same name, a new create
// revision, behind the other candidates). Left out: the metrics,
// failpoints, OpType values (the DDL owner's), and util2.NewSession's
// retries (the session is made with concurrency.NewSession, retried
// every 200 ms until it is made).
package main

import (
	"bytes"
	"context"
	"errors"
	"sync/atomic"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.etcd.io/etcd/client/v3/concurrency"
)

// listener is owner.Listener: told of each change of leadership.
type listener interface {
	OnBecomeOwner()
	OnRetireOwner()
}

// managerSessionTTL is owner.ManagerSessionTTL: the TTL of a session made
// again after one ended (the first one is CampaignOwner's, 10 s here).
const managerSessionTTL = 60

type ownerManager struct {
	id       string // the value it campaigns with: its address
	key      string // the election's prefix
	etcdCli  *clientv3.Client
	elec     atomic.Pointer[concurrency.Election]
	listener listener
	done     chan struct{} // closed when the campaign loop has ended
	say      func(format string, args ...any)
}

func newOwnerManager(cli *clientv3.Client, id, key string,
	say func(string, ...any)) *ownerManager {
	return &ownerManager{id: id, key: key, etcdCli: cli,
		done: make(chan struct{}), say: say}
}

// IsOwner is ownerManager.IsOwner: the election held, not re-read.
func (m *ownerManager) IsOwner() bool {
	return m.elec.Load() != nil
}

func (m *ownerManager) SetListener(l listener) {
	m.listener = l
}

// newSession is util2.NewSession: a session with a lease of ttl seconds,
// tried until it is made or ctx ends.
func (m *ownerManager) newSession(ctx context.Context,
	ttl int) (*concurrency.Session, error) {
	for {
		s, err := concurrency.NewSession(m.etcdCli,
			concurrency.WithTTL(ttl), concurrency.WithContext(ctx))
		if err == nil {
			return s, nil
		}
		m.say("new session failed: %v", err)
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// CampaignOwner is ownerManager.CampaignOwner: a session of ttl seconds,
// then the campaign loop in the background until ctx ends (and its
// lease is revoked; m.done is closed then).
func (m *ownerManager) CampaignOwner(ctx context.Context, ttl int) error {
	session, err := m.newSession(ctx, ttl)
	if err != nil {
		return err
	}
	go m.campaignLoop(ctx, session)
	return nil
}

func (m *ownerManager) toBeOwner(elec *concurrency.Election) {
	m.elec.Store(elec)
	m.say("become owner")
	if m.listener != nil {
		m.listener.OnBecomeOwner()
	}
}

// RetireOwner is ownerManager.RetireOwner.
func (m *ownerManager) RetireOwner() {
	m.elec.Store(nil)
	m.say("retire owner")
	if m.listener != nil {
		m.listener.OnRetireOwner()
	}
}

// campaignLoop is ownerManager.campaignLoop: campaign, become the owner,
// watch the owner's key until it is deleted or the session ends, retire,
// and campaign again on the same session.
func (m *ownerManager) campaignLoop(ctx context.Context,
	etcdSession *concurrency.Session) {
	var err error

	defer close(m.done)
	for {
		select {
		case <-etcdSession.Done():
			m.say("etcd session is done, creates a new one")
			leaseID := etcdSession.Lease()
			etcdSession, err = m.newSession(ctx, managerSessionTTL)
			if err != nil {
				m.revokeSession(leaseID)
				return
			}
		case <-ctx.Done():
			m.revokeSession(etcdSession.Lease())
			return
		default:
		}
		if errors.Is(err, rpctypes.ErrLeaseNotFound) {
			err = etcdSession.Close()
			continue
		}
		elec := concurrency.NewElection(etcdSession, m.key)
		m.say("campaign %s/%x", m.key, int64(etcdSession.Lease()))
		err = elec.Campaign(ctx, m.id)
		if err != nil {
			m.say("failed to campaign: %v", err)
			continue
		}
		var ownerKey string
		var currRev int64
		ownerKey, currRev, err = m.getOwnerKeyInfo(ctx)
		if err != nil {
			continue
		}
		m.toBeOwner(elec)
		err = m.watchOwner(ctx, etcdSession, ownerKey, currRev)
		m.say("watch owner finished: %v", err)
		m.RetireOwner()
	}
}

func (m *ownerManager) revokeSession(lease clientv3.LeaseID) {
	ctx, cancel := context.WithTimeout(context.Background(),
		time.Duration(managerSessionTTL)*time.Second)
	_, err := m.etcdCli.Revoke(ctx, lease)
	cancel()
	m.say("revoke session: %v", err)
}

// getOwnerInfo is getOwnerInfo: the first-created key under the prefix,
// its owner id (the value before any "_op"), and the store's revision.
func getOwnerInfo(ctx context.Context, cli *clientv3.Client,
	key string) (string, string, int64, error) {
	var resp *clientv3.GetResponse
	var err error

	for i := 0; i < 3; i++ {
		if err = ctx.Err(); err != nil {
			return "", "", 0, err
		}
		child, cancel := context.WithTimeout(ctx, 2*time.Second)
		resp, err = cli.Get(child, key, clientv3.WithFirstCreate()...)
		cancel()
		if err == nil {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if err != nil {
		return "", "", 0, err
	}
	if len(resp.Kvs) == 0 {
		return "", "", 0, concurrency.ErrElectionNoLeader
	}
	id := bytes.SplitN(resp.Kvs[0].Value, []byte("_"), 2)[0]
	return string(resp.Kvs[0].Key), string(id), resp.Header.Revision, nil
}

// getOwnerKeyInfo is GetOwnerKeyInfo: the owner's key and the revision to
// watch from, or an error when another candidate owns.
func (m *ownerManager) getOwnerKeyInfo(ctx context.Context) (string, int64,
	error) {
	key, id, rev, err := getOwnerInfo(ctx, m.etcdCli, m.key)
	if err != nil {
		return "", 0, err
	}
	if id != m.id {
		m.say("is not the owner")
		return "", 0, errors.New("ownerInfoNotMatch")
	}
	return key, rev, nil
}

// watchOwner is ownerManager.watchOwner: nil once the key is deleted, the
// session ends or ctx ends; an error when the watch is closed or
// cancelled.
func (m *ownerManager) watchOwner(ctx context.Context,
	etcdSession *concurrency.Session, key string, currRev int64) error {
	watchCh := m.etcdCli.Watch(ctx, key, clientv3.WithRev(currRev+1))
	for {
		select {
		case resp, ok := <-watchCh:
			if !ok {
				return errors.New("watcher is closed, key: " + key)
			}
			if resp.Canceled {
				return errors.New("watch canceled, key: " + key)
			}
			for _, ev := range resp.Events {
				if ev.Type == mvccpb.DELETE {
					m.say("watch failed, owner is deleted")
					return nil
				}
			}
		case <-etcdSession.Done():
			return nil
		case <-ctx.Done():
			return nil
		}
	}
}
