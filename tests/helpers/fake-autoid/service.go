// The autoid service: pkg/autoid_service/autoid.go in pingcap/tidb at
// 0267517fafcd, the AUTO_ID_CACHE=1 allocations of every TiDB served by
// the one server that leads "tidb/autoid/leader" (autoIDLeaderPath, line
// 49). Followed, with its lines there: autoIDValue (57-63), alloc4Signed
// (131-204), Service (294-300), newWithCli (330-348: CampaignOwner(10)
// at 342), calcNeededBatchSize (402-417), batch (419), getAlloc
// (442-457), allocAutoID (459-520), ownerListener.OnBecomeOwner
// (594-605).
//
// The leader keeps, per table, a range (base, end] of ids it may hand out
// (autoIDMap). When the range is used up, or was never read (base 0), it
// reads the table's persisted end in a transaction (line 161), takes the
// range from there (the batch, 4000 ids, or n when more are asked), and
// writes the new end (idAcc.Inc, line 182) before it hands out any id of
// it (201-203). TiKV holds that end in TiDB; etcd holds it here (store),
// read and written in one optimistic transaction as kv.RunInNewTxn does.
//
// TiDB issue 52600: the map outlives a leadership. A server that led,
// lost the lead and leads again goes on from the range it had, below the
// ids the leader in between handed out (line 152: base+n1 <= end, no
// read). The fix (pingcap/tidb#52602, merged 2024-04-15) clears the map
// in ownerListener.OnBecomeOwner (line 599): -map reset. -map keep is the
// code before it, whose OnBecomeOwner only logged.
//
// Left out: unsigned columns (alloc4Unsigned), Rebase and forceRebase
// (ALTER TABLE ... AUTO_INCREMENT, explicit ids above the base), the
// offset's rebase, keyspaces, gRPC: requests come over HTTP on the same
// status port where TiDB serves gRPC (see main.go).
package main

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"sync"

	clientv3 "go.etcd.io/etcd/client/v3"
)

// batch is autoid.go's batch: the ids of one range.
const batch = 4000

var errAutoincReadFailed = errors.New("auto increment action failed")
var errNotLeader = errors.New("not leader")

type autoIDKey struct {
	dbID  int64
	tblID int64
}

type autoIDValue struct {
	sync.Mutex
	base int64
	end  int64
}

// store is the persisted end of each table's ids, kv.Storage's part in
// it: the meta key GetAutoIDAccessors(dbID, tblID).IncrementID points to.
type store struct {
	cli *clientv3.Client
}

func idKey(dbID, tblID int64) string {
	return fmt.Sprintf("fake-tidb/meta/DB:%d/IID:%d", dbID, tblID)
}

// runInNewTxn reads the table's end, lets f compute the new one from it,
// and writes it if nobody wrote the key meanwhile; again from the start
// when somebody did, as kv.RunInNewTxn retries a conflict.
func (st *store) runInNewTxn(ctx context.Context, dbID, tblID int64,
	f func(cur int64) (int64, error)) error {
	key := idKey(dbID, tblID)
	for {
		resp, err := st.cli.Get(ctx, key)
		if err != nil {
			return err
		}
		var cur, rev int64
		if len(resp.Kvs) > 0 {
			cur, err = strconv.ParseInt(string(resp.Kvs[0].Value), 10, 64)
			if err != nil {
				return err
			}
			rev = resp.Kvs[0].ModRevision
		}
		next, err := f(cur)
		if err != nil {
			return err
		}
		if next == cur {
			return nil
		}
		txn, err := st.cli.Txn(ctx).
			If(clientv3.Compare(clientv3.ModRevision(key), "=", rev)).
			Then(clientv3.OpPut(key, strconv.FormatInt(next, 10))).
			Commit()
		if err != nil {
			return err
		}
		if txn.Succeeded {
			return nil
		}
	}
}

type Service struct {
	autoIDLock sync.Mutex
	autoIDMap  map[autoIDKey]*autoIDValue

	leaderShip *ownerManager
	store      *store
	resetMap   bool // the fix of 52600: OnBecomeOwner clears autoIDMap
	say        func(format string, args ...any)
}

// newWithCli is newWithCli: the service and its election, campaigning
// with a 10 s lease ("10 means that autoid service's etcd lease is 10s").
func newWithCli(ctx context.Context, selfAddr string, cli *clientv3.Client,
	resetMap bool, say func(string, ...any)) (*Service, error) {
	l := newOwnerManager(cli, selfAddr, autoIDLeaderPath, say)
	s := &Service{
		autoIDMap:  make(map[autoIDKey]*autoIDValue),
		leaderShip: l,
		store:      &store{cli: cli},
		resetMap:   resetMap,
		say:        say,
	}
	l.SetListener(&ownerListener{Service: s, selfAddr: selfAddr})
	return s, l.CampaignOwner(ctx, 10)
}

func (s *Service) getAlloc(dbID, tblID int64) *autoIDValue {
	key := autoIDKey{dbID: dbID, tblID: tblID}
	s.autoIDLock.Lock()
	defer s.autoIDLock.Unlock()

	val, ok := s.autoIDMap[key]
	if !ok {
		val = &autoIDValue{}
		s.autoIDMap[key] = val
	}
	return val
}

// allocAutoID is Service.allocAutoID for a signed column: refused unless
// this server's owner manager holds the election; (min, max] otherwise.
// n 0 asks for the current base.
func (s *Service) allocAutoID(ctx context.Context, dbID, tblID int64,
	n uint64, increment, offset int64) (int64, int64, error) {
	if !s.leaderShip.IsOwner() {
		return 0, 0, errNotLeader
	}
	val := s.getAlloc(dbID, tblID)
	val.Lock()
	defer val.Unlock()

	if n == 0 {
		if val.base != 0 {
			return val.base, val.base, nil
		}
		err := s.store.runInNewTxn(ctx, dbID, tblID,
			func(cur int64) (int64, error) {
				val.base, val.end = cur, cur
				return cur, nil
			})
		return val.base, val.base, err
	}
	return val.alloc4Signed(ctx, s.store, dbID, tblID, n, increment,
		offset, s.say)
}

// alloc4Signed is autoIDValue.alloc4Signed: from the range it holds when
// it has n ids left, else from a new range read and written first.
func (alloc *autoIDValue) alloc4Signed(ctx context.Context, st *store,
	dbID, tblID int64, n uint64, increment, offset int64,
	say func(string, ...any)) (int64, int64, error) {
	if offset-1 > alloc.base {
		return 0, 0, errors.New("offset rebase is not modelled")
	}
	n1 := calcNeededBatchSize(alloc.base, int64(n), increment, offset)
	if math.MaxInt64-alloc.base <= n1 {
		return 0, 0, errAutoincReadFailed
	}
	if alloc.base+n1 > alloc.end || alloc.base == 0 {
		var newBase, newEnd int64
		nextStep := int64(batch)
		fromBase, fromEnd := alloc.base, alloc.end

		err := st.runInNewTxn(ctx, dbID, tblID,
			func(cur int64) (int64, error) {
				newBase = cur
				if alloc.base == 0 || newBase != alloc.end {
					alloc.base = newBase
					alloc.end = newBase
					n1 = calcNeededBatchSize(newBase,
						int64(n), increment, offset)
				}
				if nextStep < n1 {
					nextStep = n1
				}
				step := nextStep
				if math.MaxInt64-newBase < step {
					step = math.MaxInt64 - newBase
				}
				if step < n1 {
					return 0, errAutoincReadFailed
				}
				newEnd = newBase + step
				return newEnd, nil
			})
		if err != nil {
			return 0, 0, err
		}
		say("alloc4Signed table %d from base %d end %d to base %d "+
			"end %d", tblID, fromBase, fromEnd, newBase, newEnd)
		alloc.end = newEnd
	}
	min := alloc.base
	alloc.base += n1
	return min, alloc.base, nil
}

func seekToFirstAutoIDSigned(base, increment, offset int64) int64 {
	nr := (base + increment - offset) / increment
	return nr*increment + offset
}

func calcNeededBatchSize(base, n, increment, offset int64) int64 {
	if increment == 1 {
		return n
	}
	nr := seekToFirstAutoIDSigned(base, increment, offset)
	nr += (n - 1) * increment
	return nr - base
}

type ownerListener struct {
	*Service
	selfAddr string
}

// OnBecomeOwner is ownerListener.OnBecomeOwner: with the fix the map is
// cleared ("Reset the map to avoid a case that a node lose leadership and
// regain it, then improperly use the stale map"); before it, nothing.
func (l *ownerListener) OnBecomeOwner() {
	if l.resetMap {
		l.autoIDLock.Lock()
		for k := range l.autoIDMap {
			delete(l.autoIDMap, k)
		}
		l.autoIDLock.Unlock()
	}
	l.say("leader change of autoid service, this node become owner "+
		"(map %s)", map[bool]string{true: "reset", false: "kept"}[l.resetMap])
}

func (*ownerListener) OnRetireOwner() {
}
