package memorybank_test

import (
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Paths that differ only by case or Unicode normalisation, or that are a
// folder of another document, would collide on macOS or Windows (or on any
// file system): the second is refused with ErrPathConflict naming the
// first, and nothing is written.
func TestPathsThatCollideElsewhere(t *testing.T) {
	const nfc, nfd = "caf\u00e9.md", "cafe\u0301.md"
	cases := []struct{ first, second string }{
		{"Notes.md", "notes.md"},
		{nfc, nfd},
		{nfd, nfc},
		{"\u00c9t\u00e9.md", "\u00e9t\u00e9.md"},
		{"docs/Design.md", "DOCS/design.md"},
		{"a", "a/b.md"},
		{"a/b.md", "a"},
		{"A", "a/b.md"},
	}
	for _, tc := range cases {
		t.Run(tc.first+" then "+tc.second, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, store memorybank.Store) {
				for _, warm := range []bool{false, true} {
					b := newBank(store)
					g := memorybank.ScopeGlobal
					mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: tc.first, Text: "first"})
					if warm {
						_, err := b.List(ctx, memorybank.ListRequest{Scope: g})
						require.NoError(t, err)
					}
					before := snapshot(t, store)
					_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: tc.second, Text: "second"})
					require.ErrorIs(t, err, memorybank.ErrPathConflict)
					assert.Contains(t, err.Error(), `"`+tc.first+`"`, "names the existing document")
					assert.Equal(t, before, snapshot(t, store))
					_, err = b.CheckWrite(ctx, memorybank.WriteRequest{Scope: g, Path: tc.second, Text: "second"})
					require.ErrorIs(t, err, memorybank.ErrPathConflict)
					// The existing spelling stays writable.
					mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: tc.first, Text: "again"})
					require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: tc.first}))
				}
			})
		})
	}
}

// Branch names whose directories differ only by case or normalisation are
// refused once one of them has a bank, naming the owner; nothing of the
// second is written.
func TestBranchesThatCollideElsewhere(t *testing.T) {
	for _, tc := range []struct{ first, second string }{
		{"Feature/Login", "feature/login"},
		{"feature/caf\u00e9", "feature/cafe\u0301"},
	} {
		forEachStore(t, func(t *testing.T, store memorybank.Store) {
			b := newBank(store)
			br := memorybank.ScopeBranch
			mustWrite(t, b, memorybank.WriteRequest{Scope: br, Branch: tc.first, Path: "notes.md", Text: "x"})
			before := snapshot(t, store)
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: br, Branch: tc.second, Path: "notes.md", Text: "y"})
			require.ErrorIs(t, err, memorybank.ErrBranchCollision)
			var be *memorybank.BranchError
			require.ErrorAs(t, err, &be)
			assert.Equal(t, tc.first, be.Owner)
			assert.Contains(t, err.Error(), tc.first)
			assert.Equal(t, before, snapshot(t, store))
			// A fresh Bank (another process) sees the same.
			_, err = newBank(store).Write(ctx, memorybank.WriteRequest{Scope: br, Branch: tc.second, Path: "other.md", Text: "y"})
			require.ErrorIs(t, err, memorybank.ErrBranchCollision)
			mustWrite(t, b, memorybank.WriteRequest{Scope: br, Branch: tc.first, Path: "notes.md", Text: "z"})
		})
	}
}

// Concurrent creates of spellings of one name through one Bank: exactly
// one wins, the others are refused naming it.
func TestConcurrentCollidingCreates(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		names := []string{"notes.md", "Notes.md", "NOTES.md", "nOtes.md", "noTes.md", "notEs.md", "NoTeS.md", "nOTES.md"}
		errs := make([]error, len(names))
		var wg sync.WaitGroup
		for i, n := range names {
			wg.Go(func() {
				_, errs[i] = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: n, Text: n})
			})
		}
		wg.Wait()
		won := 0
		for i, err := range errs {
			if err == nil {
				won++
				continue
			}
			assert.ErrorIs(t, err, memorybank.ErrPathConflict, names[i])
		}
		assert.Equal(t, 1, won)
		paths, err := b.Paths(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
		require.NoError(t, err)
		assert.Len(t, paths, 1)
	})
}

// The collision check keeps its folded paths current: it sees a document
// another Bank created after its first check, and forgets one this Bank
// deleted.
func TestPathCollisionFollowsChanges(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		g := memorybank.ScopeGlobal
		b1, b2 := newBank(store), newBank(store)
		mustWrite(t, b1, memorybank.WriteRequest{Scope: g, Path: "first.md", Text: "x"})
		mustWrite(t, b2, memorybank.WriteRequest{Scope: g, Path: "Other.md", Text: "x"})
		mustWrite(t, b2, memorybank.WriteRequest{Scope: g, Path: "dir/doc.md", Text: "x"})
		_, err := b1.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "other.md", Text: "y"})
		require.ErrorIs(t, err, memorybank.ErrPathConflict)
		assert.Contains(t, err.Error(), `"Other.md"`)
		_, err = b1.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "DIR", Text: "y"})
		require.ErrorIs(t, err, memorybank.ErrPathConflict)
		assert.Contains(t, err.Error(), `"dir/doc.md"`)

		mustWrite(t, b1, memorybank.WriteRequest{Scope: g, Path: "gone.md", Text: "x"})
		require.NoError(t, b1.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "gone.md"}))
		mustWrite(t, b1, memorybank.WriteRequest{Scope: g, Path: "Gone.md", Text: "x"})
		_, err = b1.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "Gone.md/under.md", Text: "y"})
		require.ErrorIs(t, err, memorybank.ErrPathConflict)
		assert.Contains(t, err.Error(), `"Gone.md"`)
	})
}
