package fsstore

import (
	"context"
	"time"
)

// MidWrite counts a change and holds the store lock until finish is called,
// as a writer in another process does between counting its change and
// renaming its file into place.
func MidWrite(ctx context.Context, s *Store) (finish func(), err error) {
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	done, err := s.countChange()
	if err != nil {
		unlock()
		return nil, err
	}
	return func() { done(); unlock() }, nil
}

// PollerDone returns a channel closed when the last change poller
// WatchChanges started has returned; nil if none was started.
func PollerDone(s *Store) <-chan struct{} {
	s.watch.mu.Lock()
	defer s.watch.mu.Unlock()
	return s.watch.done
}

// SetPollInterval sets how often s's WatchChanges reads the change count;
// call it before the first WatchChanges.
func SetPollInterval(s *Store, d time.Duration) { s.watch.interval = d }

// SweepAtOnce makes the stores opened until the test ends start their
// sweep of stale temporary files without delay.
func SweepAtOnce(t interface{ Cleanup(func()) }) {
	prev := sweepDelay
	sweepDelay = 0
	t.Cleanup(func() { sweepDelay = prev })
}

// SweepDone returns a channel closed when s's sweep has returned.
func SweepDone(s *Store) <-chan struct{} { return s.sweep.done }
