package pgstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemobank/mnemobank/memorybank"
)

var _ memorybank.KeyLocker = (*Store)(nil)

// ErrLockName is wrapped by the error of a LockKey whose name is too long.
var ErrLockName = errors.New("pgstore: invalid lock name")

// An advisory lock's key is computable by anyone who knows the table,
// namespace and name, and any role of the database may take it: no rights
// on the tables are needed. A server that stopped (SIGSTOP) while holding
// one holds it too. So LockKey never waits past Options.LockWait: it then
// returns ErrLockTimeout, and memorybank.Bank writes under compare-and-swap
// alone, which loses nothing (the lock only spares retries). The name is
// then marked busy for lockBusyWaits times LockWait: LockKey on it tries
// once (pg_try_advisory_lock) instead of waiting, so writers of that
// document do not each wait LockWait in turn, and the log gets one line per
// mark, not one per write. A try that succeeds clears the mark.

// lockBusyWaits is how many times LockWait a name stays marked busy.
const lockBusyWaits = 10

// maxBusyLocks bounds the names a Store remembers as busy; past it, expired
// marks are dropped, and if none has expired a name is not marked (its
// writers then wait LockWait each, which is still bounded).
const maxBusyLocks = 4096

// lockNotAvailable is the SQLSTATE of a lock wait that ran past lock_timeout.
const lockNotAvailable = "55P03"

// LockKey takes a session-level advisory lock named by the table, the
// namespace and name (hashed to PostgreSQL's two 32-bit advisory lock keys,
// so two names may share a lock and only wait for each other), waiting until
// it is granted, ctx ends, or Options.LockWait passes twice (once queueing
// in this process, once at the database; opening a connection may add up
// to CancelTimeout); then it returns an error wrapping ErrLockTimeout. Goroutines of this Store queue in-process first (on
// lockStripes stripes), so one waits at the database per stripe; the lock
// is held on a connection of a pool of its own (at most as many connections
// as the Store's pool allows), never one the holder needs for its reads and
// writes. If the connection is lost the lock goes with it: the holder's
// write still runs under its compare-and-swap.
func (s *Store) LockKey(ctx context.Context, name string) (func(), error) {
	if len(name) > memorybank.MaxLockNameBytes {
		return nil, fmt.Errorf("%w: the name is %d bytes long, the maximum is %d", ErrLockName, len(name), memorybank.MaxLockNameBytes)
	}
	if err := s.begin(ctx, "lock", name); err != nil {
		return nil, err
	}
	k1, k2 := s.lockKeys(name)
	stripe := s.locks.stripes[uint32(k2)%lockStripes]
	// Queueing in-process waits at most LockWait; the wait at the
	// database has its own deadline (lock_timeout).
	qctx, cancel := context.WithTimeout(ctx, s.opts.LockWait)
	defer cancel()
	gaveUp := func(what string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		return fmt.Errorf("%w: lock %q: %s took longer than %s; write under compare-and-swap alone", ErrLockTimeout, name, what, s.opts.LockWait)
	}
	select {
	case stripe <- struct{}{}:
	case <-qctx.Done():
		return nil, gaveUp("waiting for this Store's other holders of its stripe")
	}
	pool, err := s.locks.pool(ctx, s.pool, s.opts.LockWait)
	if err != nil {
		<-stripe
		return nil, s.fail(ctx, "lock", name, err)
	}
	// Opening a connection may take longer than LockWait on its own:
	// allow it CancelTimeout more.
	actx, cancelAcquire := context.WithTimeout(ctx, s.opts.LockWait+CancelTimeout)
	conn, err := pool.Acquire(actx)
	cancelAcquire()
	if err != nil {
		<-stripe
		if ctx.Err() == nil && errors.Is(err, context.DeadlineExceeded) {
			return nil, gaveUp("waiting for a connection to hold it on")
		}
		return nil, s.fail(ctx, "lock", name, err)
	}
	key := [2]int32{k1, k2}
	if s.locks.isBusy(key, time.Now()) {
		var got bool
		if err := conn.QueryRow(ctx, `SELECT pg_try_advisory_lock($1, $2)`, k1, k2).Scan(&got); err != nil || !got {
			if err != nil {
				_ = conn.Conn().Close(context.WithoutCancel(ctx))
			}
			conn.Release()
			<-stripe
			if err != nil {
				return nil, s.fail(ctx, "lock", name, err)
			}
			return nil, fmt.Errorf("%w: lock %q: another session has held it since it was last waited for; write under compare-and-swap alone", ErrLockTimeout, name)
		}
		s.locks.clearBusy(key)
	} else if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, k1, k2); err != nil {
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == lockNotAvailable && ctx.Err() == nil {
			// Not granted: nothing to release, and the session is fine.
			s.lockBusy(ctx, conn, key, name)
			conn.Release()
			<-stripe
			return nil, gaveUp("waiting for another session to release it")
		}
		// The lock may have been granted as the wait was cancelled:
		// closing the session releases it whatever happened.
		_ = conn.Conn().Close(context.WithoutCancel(ctx))
		conn.Release()
		<-stripe
		return nil, s.fail(ctx, "lock", name, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			uctx, cancel := context.WithTimeout(context.Background(), CancelTimeout)
			defer cancel()
			var released bool
			if err := conn.QueryRow(uctx, `SELECT pg_advisory_unlock($1, $2)`, k1, k2).Scan(&released); err != nil || !released {
				_ = conn.Conn().Close(uctx)
			}
			conn.Release()
			<-stripe
		})
	}, nil
}

// lockBusy marks a lock that was not granted within LockWait, and logs who
// holds it, so an operator can find the session (pg_stat_activity) and
// end it (pg_terminate_backend).
func (s *Store) lockBusy(ctx context.Context, conn *pgxpool.Conn, key [2]int32, name string) {
	busyFor := lockBusyWaits * s.opts.LockWait
	if !s.locks.markBusy(key, time.Now().Add(busyFor)) {
		return // marked already (by a concurrent waiter): logged there
	}
	var (
		pids  []int32
		roles []string
	)
	// An advisory lock on two int4 keys is listed with classid and objid
	// the keys as unsigned (oid) values, and objsubid 2.
	_ = conn.QueryRow(ctx, `SELECT coalesce(array_agg(l.pid), '{}'), coalesce(array_agg(coalesce(a.usename::text, '?')), '{}')
		FROM pg_locks l LEFT JOIN pg_stat_activity a ON a.pid = l.pid
		WHERE l.locktype = 'advisory' AND l.granted AND l.objsubid = 2
		AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
		AND l.classid = $1::bigint::oid AND l.objid = $2::bigint::oid`,
		int64(uint32(key[0])), int64(uint32(key[1]))).Scan(&pids, &roles)
	s.opts.Logger.WarnContext(ctx, "pgstore: a lock was not granted within LockWait, because another session holds it; writers of its document go on under compare-and-swap alone (nothing is lost, they may retry), and only try the lock once, until it is free or the mark ends",
		"table", s.opts.Table, "namespace", s.opts.Namespace, "lock", name,
		"lock_wait", s.opts.LockWait, "mark", busyFor, "holder_pids", pids, "holder_roles", roles)
}

// lockStripes is how many lock names of one Store wait at the database at
// once; names sharing a stripe wait for each other in-process.
const lockStripes = 64

// keyLocks are a Store's in-process stripes, the pool its advisory locks
// are held on (made on first use), and the names marked busy.
type keyLocks struct {
	stripes [lockStripes]chan struct{}
	mu      sync.Mutex
	p       *pgxpool.Pool
	busy    map[[2]int32]time.Time // lock keys -> end of the mark
}

func newKeyLocks() *keyLocks {
	l := &keyLocks{busy: map[[2]int32]time.Time{}}
	for i := range l.stripes {
		l.stripes[i] = make(chan struct{}, 1)
	}
	return l
}

// pool returns the pool locks are held on: main's configuration with
// lock_timeout set to wait, so a wait at the database ends with SQLSTATE
// 55P03 and a session still usable.
func (l *keyLocks) pool(ctx context.Context, main *pgxpool.Pool, wait time.Duration) (*pgxpool.Pool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		return l.p, nil
	}
	cfg := main.Config() // a copy
	cfg.MinConns, cfg.MinIdleConns = 0, 0
	if cfg.ConnConfig.RuntimeParams == nil {
		cfg.ConnConfig.RuntimeParams = map[string]string{}
	}
	// 0 would mean no timeout: round up to the millisecond.
	cfg.ConnConfig.RuntimeParams["lock_timeout"] = strconv.FormatInt(max(1, (wait+time.Millisecond-1).Milliseconds()), 10)
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	l.p = p
	return p, nil
}

func (l *keyLocks) isBusy(key [2]int32, now time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	until, ok := l.busy[key]
	if ok && !now.Before(until) {
		delete(l.busy, key)
		return false
	}
	return ok
}

// markBusy marks key busy until then; it reports false if it was already.
func (l *keyLocks) markBusy(key [2]int32, until time.Time) bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	now := time.Now()
	if end, ok := l.busy[key]; ok && now.Before(end) {
		return false
	}
	if len(l.busy) >= maxBusyLocks {
		for k, end := range l.busy {
			if !now.Before(end) {
				delete(l.busy, k)
			}
		}
		if len(l.busy) >= maxBusyLocks {
			return true // not remembered, but still worth a log line
		}
	}
	l.busy[key] = until
	return true
}

func (l *keyLocks) clearBusy(key [2]int32) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.busy, key)
}

func (l *keyLocks) close() {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		l.p.Close()
		l.p = nil
	}
}

// lockKeys hashes a lock's name, with the table and namespace, to the two
// keys of pg_advisory_lock(int, int) (a space apart from the one-bigint
// locks, which the migrations use).
func (s *Store) lockKeys(name string) (int32, int32) {
	h := fnv.New64a()
	_, _ = h.Write([]byte(s.opts.Table + "\x00" + s.opts.Namespace + "\x00" + name))
	v := h.Sum64()
	return int32(v >> 32), int32(v)
}
