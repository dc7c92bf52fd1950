package pgstore

import (
	"context"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/mnemobank/mnemobank/memorybank"
)

var _ memorybank.ChangeNotifier = (*Store)(nil)

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
// the pool). A notification only makes it read the change count, at most
// once per WatchCheckInterval (the first at once, then one for all those
// heard meanwhile), and it signals only when the count moved: any role of
// the database may NOTIFY the channel, and a flood of notifications costs
// one short read per interval and no signal, so no refresh by whoever
// receives the channel. While the connection is down it polls the change
// count every WatchPollInterval and connects again every
// WatchRetryInterval; on losing and on regaining it, it signals once, so a
// receiver reading Changes catches up on what it may have missed. The
// channel is closed when ctx ends.
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
	// heard: catch up once. The count read now is what notifications are
	// compared with.
	last, lerr := s.Changes(ctx)
	signal(out)

	// The connection is read by a goroutine of its own, so receiving a
	// notification never waits for a check; heard holds at most one, so
	// a flood of them coalesces there.
	lctx, cancel := context.WithCancel(ctx)
	heard := make(chan struct{}, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for {
			n, err := conn.WaitForNotification(lctx)
			if err != nil {
				return
			}
			if n.Payload == s.opts.Namespace {
				select {
				case heard <- struct{}{}:
				default:
				}
			}
		}
	}()
	defer func() { cancel(); <-done }() // before the connection is closed

	th := throttle{every: WatchCheckInterval}
	wake := time.NewTimer(time.Hour)
	wake.Stop() // reset when a notification must wait for its turn
	defer wake.Stop()
	check := func() {
		c, err := s.Changes(ctx)
		if err != nil || lerr != nil || c != last {
			last, lerr = c, err
			signal(out) // moved, or cannot tell: let the receiver look
		}
	}
	for {
		select {
		case <-done:
			return
		case <-heard:
			now, in := th.heard(time.Now())
			if now {
				check()
			} else if in > 0 {
				wake.Reset(in)
			}
		case <-wake.C:
			if th.woke(time.Now()) {
				check()
			}
		}
	}
}

// WatchCheckInterval is how often at most WatchChanges reads the change
// count because notifications arrived: the first notification after a
// quiet interval is checked at once, the others within the interval
// together, once, at its end.
const WatchCheckInterval = 100 * time.Millisecond

// throttle paces the checks notifications trigger: at most one per every.
type throttle struct {
	every   time.Duration
	next    time.Time // no check before then
	pending bool      // a notification is waiting for next
}

// heard is called with the time a notification arrived. It returns
// whether to check now; otherwise, when to wake the throttle (0: it is
// waiting already).
func (t *throttle) heard(now time.Time) (check bool, wakeIn time.Duration) {
	if t.pending {
		return false, 0
	}
	if !now.Before(t.next) {
		t.next = now.Add(t.every)
		return true, 0
	}
	t.pending = true
	return false, t.next.Sub(now)
}

// woke is called when the time heard asked for came; it returns whether
// to check.
func (t *throttle) woke(now time.Time) bool {
	if !t.pending {
		return false
	}
	t.pending = false
	t.next = now.Add(t.every)
	return true
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
