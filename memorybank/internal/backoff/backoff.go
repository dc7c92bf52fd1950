// Package backoff is the pause every writer of a memory bank takes after a
// lost compare-and-swap, shared by the Bank and the readers of its history
// so they retry at the same pace.
package backoff

import (
	"context"
	"math/rand/v2"
	"time"
)

// Pauses: the first is up to Base, each next one up to twice as long,
// capped at Max, each drawn uniformly from its upper half so that writers
// that collided once do not collide again in lockstep.
const (
	Base = time.Millisecond
	Max  = 50 * time.Millisecond
)

// Wait waits before retry number attempt (0-based), or until ctx ends.
func Wait(ctx context.Context, attempt int) error {
	d := Max
	if attempt < 16 {
		d = min(Base<<attempt, Max)
	}
	d = d/2 + rand.N(d/2+1)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}
