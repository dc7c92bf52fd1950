package fsstore

import (
	"context"
	"errors"
	"sync"
	"time"

	"github.com/mnemobank/mnemobank/internal/lockfile"
	"github.com/mnemobank/mnemobank/memorybank"
)

var _ memorybank.ChangeNotifier = (*Store)(nil)

// WatchPollInterval is how often, while anyone listens (WatchChanges), a
// Store reads the change count to hear of writes made through other Stores
// on its directory, in this process or another.
const WatchPollInterval = 50 * time.Millisecond

// WatchChanges returns a channel that receives a value soon after a write
// to the directory (see [memorybank.ChangeNotifier]); it is closed when ctx
// ends. A write through this Store (or its Lazy view) signals as soon as it
// has released the store lock. Writes through other Stores on the
// directory, in any process, are heard by reading the change count every
// WatchPollInterval: a count that moved signals at once, and again once the
// store lock is free, because a writer counts its change before it renames
// its file, and a receiver that read while the rename was pending would
// otherwise keep the old file. The reading runs only while a channel is
// open, one per Store however many listen.
func (s *Store) WatchChanges(ctx context.Context) <-chan struct{} {
	out := make(chan struct{}, 1)
	if ctx.Err() != nil {
		close(out)
		return out
	}
	w := s.watch
	w.mu.Lock()
	w.subs[out] = struct{}{}
	if w.stop == nil {
		// The first reading is taken before WatchChanges returns, so a
		// write made after it returns always moves the count.
		// A writer that counted before that reading and is still at work
		// (holding the lock) is signalled when it is done.
		last, _ := s.Changes(context.Background())
		last = settled(last)
		pending := !s.lockFree()
		w.stop, w.done = make(chan struct{}), make(chan struct{})
		go s.poll(last, pending, w.stop, w.done)
	}
	w.mu.Unlock()
	context.AfterFunc(ctx, func() {
		w.mu.Lock()
		defer w.mu.Unlock()
		delete(w.subs, out)
		close(out)
		if len(w.subs) == 0 && w.stop != nil {
			close(w.stop)
			w.stop = nil
		}
	})
	return out
}

// watchers are the listeners of a Store and its Lazy views.
type watchers struct {
	// wrote receives a value when a writer of this Store released the
	// store lock (buffered by one, never blocking the writer).
	wrote chan struct{}
	// interval is WatchPollInterval (tests set it longer, to tell the
	// signals of this Store's writers from the poll's).
	interval time.Duration

	mu   sync.Mutex
	subs map[chan struct{}]struct{}
	stop chan struct{} // closed to end the poller; nil while none runs
	done chan struct{} // closed when the last poller started has returned
}

func newWatchers() *watchers {
	return &watchers{wrote: make(chan struct{}, 1), interval: WatchPollInterval, subs: map[chan struct{}]struct{}{}}
}

// written is called by every writer of the Store after it released the
// store lock, so listeners of this process hear of its write at once.
func (w *watchers) written() {
	select {
	case w.wrote <- struct{}{}:
	default: // one pending wake-up stands for any number of writes
	}
}

func (w *watchers) broadcast() {
	w.mu.Lock()
	defer w.mu.Unlock()
	for out := range w.subs {
		select {
		case out <- struct{}{}:
		default: // one pending signal stands for any number of changes
		}
	}
}

// poll signals the listeners when the change count moves, until stop is
// closed. pending means a move was seen whose writer may not have finished:
// the next tick that finds the store lock free signals once more.
func (s *Store) poll(last memorybank.ChangeCount, pending bool, stop, done chan struct{}) {
	defer close(done)
	w := s.watch
	tick := time.NewTicker(w.interval)
	defer tick.Stop()
	for {
		ticked := false
		select {
		case <-stop:
			return
		case <-w.wrote:
		case <-tick.C:
			ticked = true
		}
		c, err := s.Changes(context.Background())
		if err != nil {
			continue // closed, or unreadable for now: the next tick tries again
		}
		c = settled(c)
		moved := c != last
		if moved {
			last, pending = c, true
		}
		switch {
		case !ticked:
			// A writer of this Store has just finished: its write is
			// in place. Whether another writer's is waits for the tick,
			// so writers here never contend with the lock check.
			if moved {
				w.broadcast()
			}
		case pending && s.lockFree():
			pending = false
			w.broadcast()
		case moved:
			w.broadcast() // the writer is still at work: once now, once when it is done
		}
	}
}

// lockFree reports whether the store lock can be taken at once, so that
// every write counted so far has finished. It takes and releases the lock;
// a lock it cannot try (a closed Store) counts as free, so that listeners
// look.
func (s *Store) lockFree() bool {
	l, err := lockfile.AcquireIn(context.Background(), s.root, LockFileName, time.Nanosecond)
	if err != nil {
		return !errors.Is(err, lockfile.ErrTimeout)
	}
	_ = l.Unlock()
	return true
}
