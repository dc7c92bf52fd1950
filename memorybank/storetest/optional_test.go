package storetest_test

import (
	"context"
	"sync"

	"github.com/mnemobank/mnemobank/memorybank"
)

// fullStore is a MemStore with every optional interface, correctly: the
// suite must pass it without skipping, and each broken store below breaks
// one rule of one interface.
type fullStore struct {
	*memorybank.MemStore
	mu       sync.Mutex
	locks    map[string]chan struct{}
	watchers map[chan struct{}]struct{}
}

var (
	_ memorybank.ChangeNotifier = (*fullStore)(nil)
	_ memorybank.KeyLocker      = (*fullStore)(nil)
	_ memorybank.LazyWriter     = (*fullStore)(nil)
	_ memorybank.BatchPutter    = (*fullStore)(nil)
	_ memorybank.OrderedWriter  = (*fullStore)(nil)
)

func newFullStore() *fullStore {
	return &fullStore{
		MemStore: new(memorybank.MemStore),
		locks:    map[string]chan struct{}{},
		watchers: map[chan struct{}]struct{}{},
	}
}

func (s *fullStore) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	obj, err := s.MemStore.Put(ctx, key, data, cond)
	if err == nil {
		s.signal()
	}
	return obj, err
}

func (s *fullStore) Delete(ctx context.Context, key string, cond memorybank.Condition) error {
	err := s.MemStore.Delete(ctx, key, cond)
	if err == nil {
		s.signal()
	}
	return err
}

func (s *fullStore) signal() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for ch := range s.watchers {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func (s *fullStore) WatchChanges(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{}, 1)
	s.mu.Lock()
	s.watchers[ch] = struct{}{}
	s.mu.Unlock()
	go func() {
		<-ctx.Done()
		s.mu.Lock()
		delete(s.watchers, ch)
		close(ch)
		s.mu.Unlock()
	}()
	return ch
}

func (s *fullStore) LockKey(ctx context.Context, name string) (func(), error) {
	s.mu.Lock()
	l, ok := s.locks[name]
	if !ok {
		l = make(chan struct{}, 1)
		s.locks[name] = l
	}
	s.mu.Unlock()
	select {
	case l <- struct{}{}:
		return func() { <-l }, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

func (s *fullStore) Lazy() memorybank.Store { return s }

func (s *fullStore) Ordered() memorybank.Store { return s }

func (s *fullStore) PutBatch(ctx context.Context, objs []memorybank.Object, cond memorybank.Condition) ([]error, error) {
	if err := cond.Validate(); err != nil {
		return nil, err
	}
	errs := make([]error, len(objs))
	for i, o := range objs {
		if err := ctx.Err(); err != nil {
			return errs, err
		}
		_, errs[i] = s.Put(ctx, o.Key, o.Data, cond)
	}
	return errs, nil
}

// lockDoesNotExclude grants every LockKey at once.
type lockDoesNotExclude struct{ *fullStore }

func (lockDoesNotExclude) LockKey(context.Context, string) (func(), error) { return func() {}, nil }

// lazyIsAnotherStore returns a view on other data.
type lazyIsAnotherStore struct{ *fullStore }

func (lazyIsAnotherStore) Lazy() memorybank.Store { return new(memorybank.MemStore) }

// orderedIsAnotherStore returns a view on other data.
type orderedIsAnotherStore struct{ *fullStore }

func (orderedIsAnotherStore) Ordered() memorybank.Store { return new(memorybank.MemStore) }

// batchIgnoresCondition writes every object whatever the condition.
type batchIgnoresCondition struct{ *fullStore }

func (s batchIgnoresCondition) PutBatch(ctx context.Context, objs []memorybank.Object, _ memorybank.Condition) ([]error, error) {
	return s.fullStore.PutBatch(ctx, objs, memorybank.Condition{})
}

// watchNeverSignals closes its channels on time but never signals.
type watchNeverSignals struct{ *fullStore }

func (watchNeverSignals) WatchChanges(ctx context.Context) <-chan struct{} {
	ch := make(chan struct{})
	go func() { <-ctx.Done(); close(ch) }()
	return ch
}
