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
// ReadContext and SearchByTags once IndexMaxAge has passed: the
// store's change count does not see them.
func TestExternalEditsAreSeen(t *testing.T) {
	dir := t.TempDir()
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	clock := &manualClock{now: t0}
	b := memorybank.New(s, &memorybank.Options{Clock: clock.Now})
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
	clock.Advance(memorybank.IndexMaxAge)
	assert.Equal(t, []string{"glossary.md", "notes.md"}, globalPaths(t, b), "List reconciles with the store")
	rc, err := b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no})
	require.NoError(t, err)
	assert.Equal(t, []string{"glossary.md"}, mapKeys(rc.GlobalMemory))
	assert.Equal(t, []string{"notes.md"}, rc.OtherGlobalFiles)

	// ReadContext brought the index up to date; another external edit is
	// left for the max age to catch.
	require.NoError(t, os.WriteFile(filepath.Join(bankDir, "late.md"), []byte("---\ntags: [glossary]\n---\nlate\n"), 0o644))
	clock.Advance(memorybank.IndexMaxAge)
	assert.Equal(t, []string{"glossary.md", "late.md"}, search("glossary"), "search reconciles after IndexMaxAge")
	require.NoError(t, os.Remove(filepath.Join(bankDir, "late.md")))
	clock.Advance(memorybank.IndexMaxAge)
	assert.Equal(t, []string{"glossary.md"}, search("glossary"))
}

// A file added by hand beside a document, spelled like one about to be
// created (differing only by letter case), is seen by the check of new
// paths under the same rule as List and search: once IndexMaxAge has
// passed, though no Store counted it.
func TestExternalEditsReachThePathCheck(t *testing.T) {
	dir := t.TempDir()
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	clock := &manualClock{now: t0}
	b := memorybank.New(s, &memorybank.Options{Clock: clock.Now})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "architecture.md", Text: "v1"})
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "notes/a.md", Text: "a"})

	bankDir := filepath.Join(dir, "global-memory-bank")
	require.NoError(t, os.WriteFile(filepath.Join(bankDir, "Glossary.md"), []byte("terms\n"), 0o644))
	clock.Advance(memorybank.IndexMaxAge)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "glossary.md", Text: "mine"})
	require.ErrorIs(t, err, memorybank.ErrPathConflict, "the hand-made file is seen")
	assert.Contains(t, err.Error(), `"Glossary.md"`)

	// A document removed by hand frees its folder's name, under the same rule.
	require.NoError(t, os.RemoveAll(filepath.Join(bankDir, "notes")))
	clock.Advance(memorybank.IndexMaxAge)
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "notes", Text: "now a document"})
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
