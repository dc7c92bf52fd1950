package memorybank

import (
	"context"
	"fmt"
	"iter"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// MemStore is the in-memory Store: the default for tests, examples and
// programs that need no durability. The zero value is an empty store ready
// to use; a MemStore must not be copied after first use.
//
// It is safe for concurrent use. It copies data on Put and on Get, so
// callers never share bytes with the store. Versions are decimal numbers
// from a counter that increases on every successful write across the whole
// store, so a key that is deleted and written again never gets back an old
// version.
type MemStore struct {
	// Now returns the ModTime of writes; nil means time.Now. Set it, if at
	// all, before the first use (for example to get deterministic output).
	Now func() time.Time

	mu      sync.RWMutex
	objects map[string]memObject
	counter uint64 // versions
	changes uint64 // successful Puts and Deletes
}

type memObject struct {
	data    []byte
	version string
	modTime time.Time
}

var (
	_ Store         = (*MemStore)(nil)
	_ ChangeCounter = (*MemStore)(nil)
)

// Changes counts the store's successful Puts and Deletes.
func (s *MemStore) Changes(ctx context.Context) (ChangeCount, error) {
	if err := ctx.Err(); err != nil {
		return ChangeCount{}, err
	}
	s.mu.RLock()
	defer s.mu.RUnlock()
	return ChangeCount{N: s.changes}, nil
}

// Get returns a copy of the object stored at key, or an error wrapping
// ErrNotFound.
func (s *MemStore) Get(ctx context.Context, key string) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	s.mu.RLock()
	o, ok := s.objects[key]
	s.mu.RUnlock()
	if !ok {
		return Object{}, notFound(key)
	}
	// o.data is never modified in place (Put stores a fresh copy), so it
	// can be copied outside the lock.
	return Object{Key: key, Data: clone(o.data), Version: o.version, ModTime: o.modTime}, nil
}

// Put stores a copy of data at key if cond holds, and returns the new
// Object without Data.
func (s *MemStore) Put(ctx context.Context, key string, data []byte, cond Condition) (Object, error) {
	if err := ValidateKey(key); err != nil {
		return Object{}, err
	}
	if err := cond.Validate(); err != nil {
		return Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return Object{}, err
	}
	data = clone(data) // outside the lock: copying may be slow
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.objects[key]
	if err := cond.Check(key, exists, old.version); err != nil {
		return Object{}, err
	}
	if s.objects == nil {
		s.objects = make(map[string]memObject)
	}
	s.counter++
	s.changes++
	o := memObject{data: data, version: strconv.FormatUint(s.counter, 10), modTime: s.now()}
	s.objects[key] = o
	return Object{Key: key, Version: o.version, ModTime: o.modTime}, nil
}

// Delete removes key if it exists (else ErrNotFound) and cond holds (else
// ErrConflict).
func (s *MemStore) Delete(ctx context.Context, key string, cond Condition) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := cond.Validate(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	old, exists := s.objects[key]
	if !exists {
		return notFound(key)
	}
	if err := cond.Check(key, true, old.version); err != nil {
		return err
	}
	delete(s.objects, key)
	s.changes++
	return nil
}

// List yields, sorted by key, the objects whose key starts with prefix, as
// they were when List started iterating.
func (s *MemStore) List(ctx context.Context, prefix string) iter.Seq2[Object, error] {
	return func(yield func(Object, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(Object{}, err)
			return
		}
		s.mu.RLock()
		objs := make([]Object, 0, len(s.objects))
		for k, o := range s.objects {
			if strings.HasPrefix(k, prefix) {
				objs = append(objs, Object{Key: k, Version: o.version, ModTime: o.modTime})
			}
		}
		s.mu.RUnlock()
		slices.SortFunc(objs, func(a, b Object) int { return strings.Compare(a.Key, b.Key) })
		for _, o := range objs {
			if err := ctx.Err(); err != nil {
				yield(Object{}, err)
				return
			}
			if !yield(o, nil) {
				return
			}
		}
	}
}

func (s *MemStore) now() time.Time {
	if s.Now != nil {
		return s.Now()
	}
	return time.Now()
}

// Validate returns an error wrapping ErrInvalidCondition if c sets both
// IfAbsent and IfVersion, and nil otherwise. Store implementations call it
// before doing any I/O.
func (c Condition) Validate() error {
	if c.IfAbsent && c.IfVersion != "" {
		return fmt.Errorf("%w: IfAbsent and IfVersion %q are both set; set at most one",
			ErrInvalidCondition, c.IfVersion)
	}
	return nil
}

// Check returns nil if c holds for key whose current state is given by
// exists and version, and otherwise an error wrapping ErrConflict that says
// what was expected and what was found. Store implementations call it inside
// their read-check-write critical section, after Validate.
func (c Condition) Check(key string, exists bool, version string) error {
	switch {
	case c.IfAbsent && exists:
		return fmt.Errorf("%w: key %q: IfAbsent is set but the key exists at version %q",
			ErrConflict, key, version)
	case c.IfVersion != "" && !exists:
		return fmt.Errorf("%w: key %q: IfVersion %q is set but the key does not exist (it was deleted, or never written)",
			ErrConflict, key, c.IfVersion)
	case c.IfVersion != "" && c.IfVersion != version:
		return fmt.Errorf("%w: key %q: IfVersion %q is set but the current version is %q (it was written since you read it; read it again and retry)",
			ErrConflict, key, c.IfVersion, version)
	}
	return nil
}

func notFound(key string) error {
	return fmt.Errorf("%w: key %q", ErrNotFound, key)
}

// clone copies b; a nil or empty b gives a non-nil empty slice so a stored
// empty value reads back as present and empty.
func clone(b []byte) []byte {
	c := make([]byte, len(b))
	copy(c, b)
	return c
}
