package pgstore

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemobank/mnemobank/memorybank"
)

var (
	_ memorybank.ChangeNotifier = (*Store)(nil)
	_ memorybank.KeyLocker      = (*Store)(nil)
)

// ErrLockName is wrapped by the error of a LockKey whose name is too long.
var ErrLockName = errors.New("pgstore: invalid lock name")

// LockKey takes a session-level advisory lock named by the table, the
// namespace and name (hashed to PostgreSQL's two 32-bit advisory lock keys,
// so two names may share a lock and only wait for each other), waiting until
// it is granted or ctx ends. Goroutines of this Store queue in-process first
// (on lockStripes stripes), so one waits at the database per stripe; the
// lock is held on a connection of a pool of its own (at most as many
// connections as the Store's pool allows), never one the holder needs for
// its reads and writes. If the connection is lost the lock goes with it:
// the holder's write still runs under its compare-and-swap.
func (s *Store) LockKey(ctx context.Context, name string) (func(), error) {
	if len(name) > memorybank.MaxLockNameBytes {
		return nil, fmt.Errorf("%w: the name is %d bytes long, the maximum is %d", ErrLockName, len(name), memorybank.MaxLockNameBytes)
	}
	if err := s.begin(ctx, "lock", name); err != nil {
		return nil, err
	}
	k1, k2 := s.lockKeys(name)
	stripe := s.locks.stripes[uint32(k2)%lockStripes]
	select {
	case stripe <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	pool, err := s.locks.pool(ctx, s.pool)
	if err != nil {
		<-stripe
		return nil, s.fail(ctx, "lock", name, err)
	}
	conn, err := pool.Acquire(ctx)
	if err != nil {
		<-stripe
		return nil, s.fail(ctx, "lock", name, err)
	}
	if _, err := conn.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, k1, k2); err != nil {
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

// lockStripes is how many lock names of one Store wait at the database at
// once; names sharing a stripe wait for each other in-process.
const lockStripes = 64

// keyLocks are a Store's in-process stripes and the pool its advisory locks
// are held on, made on first use.
type keyLocks struct {
	stripes [lockStripes]chan struct{}
	mu      sync.Mutex
	p       *pgxpool.Pool
}

func newKeyLocks() *keyLocks {
	l := &keyLocks{}
	for i := range l.stripes {
		l.stripes[i] = make(chan struct{}, 1)
	}
	return l
}

func (l *keyLocks) pool(ctx context.Context, main *pgxpool.Pool) (*pgxpool.Pool, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.p != nil {
		return l.p, nil
	}
	cfg := main.Config() // a copy
	cfg.MinConns, cfg.MinIdleConns = 0, 0
	p, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, err
	}
	l.p = p
	return p, nil
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

// WatchPollInterval is how often WatchChanges reads the change count while
// it cannot listen (no connection, or the connection dropped), and
// WatchRetryInterval how long it waits before connecting again.
const (
	WatchPollInterval  = 200 * time.Millisecond
	WatchRetryInterval = time.Second
)

// WatchChanges returns a channel that receives a value soon after any
// Store on this table and namespace, in any process, wrote: each write
// notifies the table's channel when it commits (pg_notify in the writing
// statement) and WatchChanges listens on a connection of its own (outside
// the pool). While that connection is down it polls the change count every
// WatchPollInterval and connects again every WatchRetryInterval; on
// losing and on regaining it, it signals once, so a receiver reading
// Changes catches up on what it may have missed. The channel is closed when
// ctx ends.
func (s *Store) WatchChanges(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	go s.watch(ctx, out)
	return out
}

func signal(out chan<- struct{}) {
	select {
	case out <- struct{}{}:
	default: // one pending signal stands for any number of changes
	}
}

func (s *Store) watch(ctx context.Context, out chan struct{}) {
	defer close(out)
	for ctx.Err() == nil {
		s.listen(ctx, out)
		if ctx.Err() != nil {
			return
		}
		signal(out) // whatever happened while listening failed
		// Poll until it is time to connect again.
		last, _ := s.Changes(ctx)
		retry := time.NewTimer(WatchRetryInterval)
		tick := time.NewTicker(WatchPollInterval)
	poll:
		for {
			select {
			case <-ctx.Done():
				retry.Stop()
				tick.Stop()
				return
			case <-tick.C:
				if c, cerr := s.Changes(ctx); cerr == nil && c != last {
					last = c
					signal(out)
				}
			case <-retry.C:
				break poll
			}
		}
		tick.Stop()
	}
}

// listen runs one listening connection until it fails or ctx ends; the
// caller polls meanwhile, so why it failed does not matter.
func (s *Store) listen(ctx context.Context, out chan struct{}) {
	conn, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return
	}
	defer func() { _ = conn.Close(context.WithoutCancel(ctx)) }()
	if _, err := conn.Exec(ctx, `LISTEN `+ident(changeChannel(s.opts.Table))); err != nil {
		return
	}
	// Writes between the last poll and LISTEN taking effect were not
	// heard: catch up once.
	signal(out)
	for {
		n, err := conn.WaitForNotification(ctx)
		if err != nil {
			return
		}
		if n.Payload == s.opts.Namespace {
			signal(out)
		}
	}
}

// notifyWindow is how often one Store notifies the table's channel at most
// from within a write: a write within notifyWindow of the last notification
// does not notify (PostgreSQL serialises the commits of transactions that
// notify, which would make writers of distinct documents queue); instead
// one notification follows at the end of the window, after every such
// write has committed. Listeners hear of a write within about notifyWindow.
const notifyWindow = 5 * time.Millisecond

// notifier coalesces a Store's notifications.
type notifier struct {
	mu       sync.Mutex
	last     time.Time // when the last notification was sent or scheduled
	trailing bool      // a trailing notification is scheduled
}

// writeQueries returns the statements of the next write, and whether they
// notify (inline); pass inline to notified once the write succeeded.
func (s *Store) writeQueries() (q *queries, inline bool) {
	s.notes.mu.Lock()
	defer s.notes.mu.Unlock()
	if now := time.Now(); now.Sub(s.notes.last) >= notifyWindow {
		s.notes.last = now
		return &s.q, true
	}
	return &s.quiet, false
}

// notified follows a successful write: one that did not notify schedules
// the trailing notification, which is sent after it committed.
func (s *Store) notified(inline bool) {
	if inline || s.q.put == s.quiet.put {
		return
	}
	s.notes.mu.Lock()
	defer s.notes.mu.Unlock()
	if s.notes.trailing {
		return
	}
	s.notes.trailing = true
	time.AfterFunc(notifyWindow, func() {
		s.notes.mu.Lock()
		s.notes.trailing = false
		s.notes.last = time.Now()
		s.notes.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), CancelTimeout)
		defer cancel()
		// Lost only if the database cannot be reached; listeners then
		// learn of the write from the next one, or from polling.
		_, _ = s.pool.Exec(ctx, `SELECT pg_notify($1, $2)`, changeChannel(s.opts.Table), s.opts.Namespace)
	})
}
