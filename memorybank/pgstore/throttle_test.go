package pgstore

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// A flood of notifications, one every 100µs for a second, makes the
// throttle check once per interval (ten times), and the last notification
// is still followed by a check.
func TestThrottleChecksOncePerInterval(t *testing.T) {
	const every = 100 * time.Millisecond
	th := throttle{every: every}
	start := time.Unix(1_000_000, 0)
	var (
		checks int
		wakeAt time.Time // zero: no wake pending
	)
	for i := range 10_000 {
		now := start.Add(time.Duration(i) * 100 * time.Microsecond)
		if !wakeAt.IsZero() && !now.Before(wakeAt) {
			if th.woke(wakeAt) {
				checks++
			}
			wakeAt = time.Time{}
		}
		check, in := th.heard(now)
		switch {
		case check:
			checks++
		case in > 0:
			assert.True(t, wakeAt.IsZero(), "one wake pending at a time")
			wakeAt = now.Add(in)
		}
	}
	if !wakeAt.IsZero() && th.woke(wakeAt) {
		checks++ // the notifications of the last interval
	}
	assert.Equal(t, 11, checks, "one check at once, then one per interval of 100ms (the last one after the flood)")
	assert.False(t, th.woke(wakeAt.Add(time.Hour)), "nothing is left to check")

	// After a quiet interval a notification is checked at once.
	check, _ := th.heard(wakeAt.Add(2 * every))
	assert.True(t, check)
}
