package memorybank

import (
	"context"
	"hash/maphash"
	"math/rand/v2"
	"time"
)

// Writers of one key inside one Bank queue on a lock instead of racing each
// other's compare-and-swap: with N goroutines on one document, N-1 would
// otherwise lose every round and could exhaust MaxRetries. The locks are
// striped (a fixed array indexed by a hash of the key), so memory stays
// bounded however many keys are written; two keys sharing a stripe only
// wait for each other. Between Banks (other processes), the store's
// compare-and-swap decides and the loser retries after a jittered,
// exponentially growing pause (see backoff).
const lockStripes = 64

type keyLocks struct {
	seed    maphash.Seed
	stripes [lockStripes]chan struct{}
}

func newKeyLocks() *keyLocks {
	l := &keyLocks{seed: maphash.MakeSeed()}
	for i := range l.stripes {
		l.stripes[i] = make(chan struct{}, 1)
	}
	return l
}

// lock takes the stripe of key, waiting at most as long as ctx allows, and
// returns the function that releases it.
func (l *keyLocks) lock(ctx context.Context, key string) (unlock func(), err error) {
	ch := l.stripes[maphash.String(l.seed, key)%lockStripes]
	select {
	case ch <- struct{}{}:
		return func() { <-ch }, nil
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
}

// Retry pauses after a lost compare-and-swap: the first is up to
// backoffBase, each next one up to twice as long, capped at backoffMax,
// each drawn uniformly from its upper half so that writers that collided
// once do not collide again in lockstep.
const (
	backoffBase = time.Millisecond
	backoffMax  = 50 * time.Millisecond
)

// backoff waits before retry number attempt (0-based), or until ctx ends.
func backoff(ctx context.Context, attempt int) error {
	d := backoffMax
	if attempt < 16 {
		d = min(backoffBase<<attempt, backoffMax)
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
