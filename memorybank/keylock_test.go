package memorybank_test

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/memorybank"
)

// lockingStore is a MemStore that is a KeyLocker (as pgstore is), and
// counts the compare-and-swaps it refuses.
type lockingStore struct {
	*memorybank.MemStore
	mu        sync.Mutex
	locks     map[string]*sync.Mutex
	taken     atomic.Int64
	conflicts atomic.Int64
	fail      bool // LockKey fails (a lost connection)
}

func (s *lockingStore) LockKey(ctx context.Context, name string) (func(), error) {
	if s.fail {
		return nil, errors.New("connection lost")
	}
	s.mu.Lock()
	m := s.locks[name]
	if m == nil {
		m = &sync.Mutex{}
		s.locks[name] = m
	}
	s.mu.Unlock()
	m.Lock()
	s.taken.Add(1)
	return m.Unlock, nil
}

func (s *lockingStore) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	obj, err := s.MemStore.Put(ctx, key, data, cond)
	if errors.Is(err, memorybank.ErrConflict) {
		s.conflicts.Add(1)
	}
	return obj, err
}

var _ memorybank.KeyLocker = (*lockingStore)(nil)

// Writers of one document through two Banks (two processes) on a store
// that can lock a document queue on the store's lock instead of racing
// their compare-and-swap; when the lock fails, the writes still all land.
func TestBanksQueueOnTheStoresDocumentLock(t *testing.T) {
	for _, fail := range []bool{false, true} {
		store := &lockingStore{MemStore: new(memorybank.MemStore), locks: map[string]*sync.Mutex{}, fail: fail}
		banks := []*memorybank.Bank{memorybank.New(store, nil), memorybank.New(store, nil)}
		appendConcurrently(t, banks, 32)
		if fail {
			assert.Zero(t, store.taken.Load())
			continue
		}
		assert.Positive(t, store.taken.Load(), "the Bank takes the store's lock")
		assert.Zero(t, store.conflicts.Load(), "writers of two Banks raced instead of queueing on the store's lock")
	}
}
