package memorybank_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// manualClock is a Bank clock the test moves by hand.
type manualClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *manualClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *manualClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

func globalPaths(t *testing.T, b *memorybank.Bank) []string {
	t.Helper()
	list, err := b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	out := []string{}
	for _, e := range list {
		out = append(out, e.Path)
	}
	return out
}

// Files added or removed in the folder by something other than a Store (a
// person, git pull, another tool) show in Read at once, and in List,
// ReadContext and SearchByTags once Options.IndexMaxAge has passed: the
// store's change count does not see them.
func TestExternalEditsAreSeen(t *testing.T) {
	dir := t.TempDir()
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	clock := &manualClock{now: t0}
	b := memorybank.New(s, &memorybank.Options{Clock: clock.Now, IndexMaxAge: time.Minute})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "architecture.md", Text: ("v1"), Tags: []string{"core"}})
	search := func(tag string) []string {
		hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{tag}, Scope: g})
		require.NoError(t, err)
		out := []string{}
		for _, h := range hits {
			out = append(out, h.Path)
		}
		return out
	}
	require.Equal(t, []string{"architecture.md"}, search("core"))
	require.Equal(t, []string{"architecture.md"}, globalPaths(t, b))

	bankDir := filepath.Join(dir, "global-memory-bank")
	require.NoError(t, os.WriteFile(filepath.Join(bankDir, "glossary.md"), []byte("---\ntags: [core, glossary]\n---\nterms\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(bankDir, "notes.md"), []byte("note\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(bankDir, "architecture.md")))

	_, err = b.Read(ctx, memorybank.ReadRequest{Scope: g, Path: "notes.md"})
	require.NoError(t, err, "Read reads the store")
	assert.Equal(t, []string{"architecture.md"}, globalPaths(t, b), "uncounted edits wait for IndexMaxAge")
	clock.Advance(time.Minute)
	assert.Equal(t, []string{"glossary.md", "notes.md"}, globalPaths(t, b), "List reconciles with the store")
	rc, err := b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no})
	require.NoError(t, err)
	assert.Equal(t, []string{"glossary.md"}, mapKeys(rc.GlobalMemory))
	assert.Equal(t, []string{"notes.md"}, rc.OtherGlobalFiles)

	// ReadContext brought the index up to date; another external edit is
	// left for the max age to catch.
	require.NoError(t, os.WriteFile(filepath.Join(bankDir, "late.md"), []byte("---\ntags: [glossary]\n---\nlate\n"), 0o644))
	clock.Advance(time.Minute)
	assert.Equal(t, []string{"glossary.md", "late.md"}, search("glossary"), "search reconciles after IndexMaxAge")
	require.NoError(t, os.Remove(filepath.Join(bankDir, "late.md")))
	clock.Advance(time.Minute)
	assert.Equal(t, []string{"glossary.md"}, search("glossary"))
}

// A negative IndexMaxAge makes every search reconcile.
func TestIndexMaxAgeNegative(t *testing.T) {
	store := &memorybank.MemStore{}
	b := memorybank.New(store, &memorybank.Options{Clock: func() time.Time { return t0 }, IndexMaxAge: -1})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Text: ("a"), Tags: []string{"x"}})
	hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	_, err = store.Put(ctx, "global-memory-bank/b.md", []byte("---\ntags: [x]\n---\nb\n"), memorybank.Condition{})
	require.NoError(t, err)
	hits, err = b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	assert.Len(t, hits, 2)
	assert.Equal(t, memorybank.DefaultIndexMaxAge, memorybank.New(store, nil).Options().IndexMaxAge)
}

// cancelAfterDocPut cancels the writer's context as soon as a document (not
// a history entry) is stored, as a caller giving up at that instant.
type cancelAfterDocPut struct {
	*memorybank.MemStore
	cancel context.CancelFunc
}

func (s cancelAfterDocPut) Put(ctx context.Context, key string, data []byte, c memorybank.Condition) (memorybank.Object, error) {
	o, err := s.MemStore.Put(ctx, key, data, c)
	if err == nil && strings.HasSuffix(key, ".json") && !strings.Contains(key, "/.") {
		s.cancel()
	}
	return o, err
}

// Cancelling the writer's context after its document is stored still lets
// other Banks' searches see the write (the Store counted the change).
func TestCancelAfterDocumentPutStillSignals(t *testing.T) {
	mem := &memorybank.MemStore{}
	fixed := &memorybank.Options{Clock: func() time.Time { return t0 }}
	other := memorybank.New(mem, fixed)
	seed := memorybank.New(mem, fixed)
	mustWrite(t, seed, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Text: ("a"), Tags: []string{"x"}})
	hits, err := other.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.Len(t, hits, 1)

	cctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := memorybank.New(cancelAfterDocPut{mem, cancel}, fixed)
	_, err = w.Write(cctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "b.json", Content: raw(`{"k":1}`), Tags: []string{"x"}})
	require.NoError(t, err)
	require.Error(t, cctx.Err(), "the context was cancelled during the write")
	hits, err = other.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	assert.Len(t, hits, 2, "the other Bank sees the write")
}

// Searching or listing branches that have no bank does not grow the Bank's
// memory.
func TestIndexesStayBounded(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	for i := range 100 {
		_, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Branch: fmt.Sprintf("nobank-%d", i)})
		require.NoError(t, err)
		_, err = b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeBranch, Branch: fmt.Sprintf("nobank-%d", i)})
		require.NoError(t, err)
	}
	assert.LessOrEqual(t, memorybank.IndexCount(b), 1)
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "real", Path: "a.md", Text: ("a"), Tags: []string{"x"}})
	hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Branch: "real"})
	require.NoError(t, err)
	assert.Len(t, hits, 1)
}
