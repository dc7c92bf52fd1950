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

// SimulateReboot makes the stores opened until the test ends believe the
// machine rebooted since every journal record written so far, as after a
// power failure.
func SimulateReboot(t interface{ Cleanup(func()) }) {
	prev := bootID
	bootID = func() (id [16]byte) {
		id[0] = 0xbe
		return id
	}
	t.Cleanup(func() { bootID = prev })
}

// SetAfterJournal makes f run after each of s's journal appends (before the
// file is renamed into place).
func SetAfterJournal(s *Store, f func()) { s.afterJournal = f }

// JournalSupported reports whether durable writes go through the journal
// on this system.
const JournalSupported = journalSupported
