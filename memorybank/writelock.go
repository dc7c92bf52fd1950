package memorybank

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"hash/maphash"

	retry "github.com/mnemobank/mnemobank/memorybank/internal/backoff"
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

// backoff waits before retry number attempt (0-based), or until ctx ends:
// a jittered pause growing from 1 ms to 50 ms.
func backoff(ctx context.Context, attempt int) error { return retry.Wait(ctx, attempt) }

// LockDocument takes the lock a Write or Delete of the document at store
// key takes, and returns the function that releases it. The writers of a
// document queue on it instead of racing: this Bank's goroutines on its
// striped locks (by the folded key, so spellings of one name queue
// together), and, when the store is a KeyLocker (pgstore: a PostgreSQL
// advisory lock), every writer of every process on the store. The store's
// lock is advisory: if taking it fails for any reason but ctx, the write
// goes on under compare-and-swap alone, which still loses nothing (it may
// retry). A host that writes the keys of a document itself (an import of a
// document with its history) holds it so that the Bank's writers see them
// land together; a reader that takes and releases it knows that every
// write of this Bank that began before has finished, its journal entry
// included. It waits at most as long as ctx allows.
func (b *Bank) LockDocument(ctx context.Context, key string) (unlock func(), err error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	return b.lockDocument(ctx, key)
}

func (b *Bank) lockDocument(ctx context.Context, key string) (unlock func(), err error) {
	folded := foldKey(key)
	unlockLocal, err := b.locks.lock(ctx, folded)
	if err != nil {
		return nil, err
	}
	kl, ok := b.store.(KeyLocker)
	if !ok {
		return unlockLocal, nil
	}
	sum := sha256.Sum256([]byte(folded)) // a fixed-length name, whatever the key
	unlockStore, err := kl.LockKey(ctx, "mnemobank/doc/"+hex.EncodeToString(sum[:]))
	if err != nil {
		if ctx.Err() != nil {
			unlockLocal()
			return nil, context.Cause(ctx)
		}
		b.opts.Logger.DebugContext(ctx, "memorybank: the store's document lock failed; writing under compare-and-swap alone", "key", key, "err", err)
		return unlockLocal, nil
	}
	return func() { unlockStore(); unlockLocal() }, nil
}
