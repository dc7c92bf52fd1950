package tokens

import (
	"context"
	"crypto/subtle"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// MemStore keeps tokens in memory; its zero value is empty and ready.
type MemStore struct {
	mu     sync.Mutex
	tokens []Token
}

var _ Store = (*MemStore)(nil)

func (m *MemStore) Create(_ context.Context, t Token) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	var err error
	m.tokens, err = create(m.tokens, t)
	return err
}

func (m *MemStore) Lookup(_ context.Context, hash string) (Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return lookup(m.tokens, hash)
}

func (m *MemStore) List(context.Context) ([]Token, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return sorted(m.tokens), nil
}

func (m *MemStore) Revoke(_ context.Context, name string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return revoke(m.tokens, name, at)
}

func (m *MemStore) Touch(_ context.Context, name string, at time.Time) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	return touch(m.tokens, name, at)
}

// The helpers below are the store's rules over a slice, shared by
// MemStore and FileStore.

func create(ts []Token, t Token) ([]Token, error) {
	if err := ValidateName(t.Name); err != nil {
		return ts, err
	}
	for i, o := range ts {
		if o.Name != t.Name {
			continue
		}
		if o.Revoked.IsZero() {
			return ts, fmt.Errorf("%w: %q (revoke it first: mnemobank token revoke %s)", ErrExists, t.Name, t.Name)
		}
		ts[i] = t
		return ts, nil
	}
	return append(ts, t), nil
}

// lookup compares every hash in constant time, so the time taken says
// nothing about how close a guess came.
func lookup(ts []Token, hash string) (Token, error) {
	var found Token
	ok := 0
	for _, t := range ts {
		if subtle.ConstantTimeCompare([]byte(t.Hash), []byte(hash)) == 1 {
			found, ok = t, 1
		}
	}
	if ok == 0 {
		return Token{}, ErrNotFound
	}
	return found, nil
}

func sorted(ts []Token) []Token {
	out := slices.Clone(ts)
	slices.SortFunc(out, func(a, b Token) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func revoke(ts []Token, name string, at time.Time) error {
	for i := range ts {
		if ts[i].Name == name {
			if ts[i].Revoked.IsZero() {
				ts[i].Revoked = at.UTC()
			}
			return nil
		}
	}
	return notFound(ts, name)
}

func touch(ts []Token, name string, at time.Time) error {
	for i := range ts {
		if ts[i].Name == name {
			ts[i].LastUsed = at.UTC()
			return nil
		}
	}
	return notFound(ts, name)
}

// notFound names the tokens that exist instead.
func notFound(ts []Token, name string) error {
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name)
	}
	slices.Sort(names)
	return fmt.Errorf("%w: %q; the tokens are %q", ErrNotFound, name, names)
}
