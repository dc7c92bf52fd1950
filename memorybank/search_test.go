package memorybank_test

import (
	"context"
	"fmt"
	"iter"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentmemory/agentmemory/jsonpatch"
	"github.com/agentmemory/agentmemory/memorybank"
)

func seedSearch(t *testing.T, b *memorybank.Bank) {
	t.Helper()
	docs := []struct {
		scope memorybank.Scope
		path  string
		tags  []string
	}{
		{memorybank.ScopeBranch, "auth.json", []string{"auth", "design"}},
		{memorybank.ScopeBranch, "db.md", []string{"database"}},
		{memorybank.ScopeGlobal, "core/auth-policy.md", []string{"auth", "policy"}},
		{memorybank.ScopeGlobal, "design/overview.json", []string{"design", "architecture"}},
		{memorybank.ScopeGlobal, "untagged.md", nil},
	}
	for _, d := range docs {
		content := memorybank.TextContent("# Title of " + d.path + "\n")
		if d.path[len(d.path)-5:] == ".json" {
			content = raw(`{"schema":"memory_document_v2","metadata":{"title":"Title of ` + d.path + `","documentType":"design"},"content":{"k":1}}`)
		}
		mustWrite(t, b, memorybank.WriteRequest{Scope: d.scope, Branch: "feature/auth", Path: d.path, Content: content, Tags: d.tags})
	}
}

type hitKey struct {
	Scope memorybank.Scope
	Path  string
}

func hitKeys(hits []memorybank.SearchHit) []hitKey {
	out := []hitKey{}
	for _, h := range hits {
		out = append(out, hitKey{h.Scope, h.Path})
	}
	return out
}

func TestSearchByTags(t *testing.T) {
	br, gl := memorybank.ScopeBranch, memorybank.ScopeGlobal
	cases := []struct {
		name string
		req  memorybank.SearchRequest
		want []hitKey
		err  error
	}{
		{"or across all", memorybank.SearchRequest{Tags: []string{"auth", "database"}, Branch: "feature/auth"},
			[]hitKey{{br, "auth.json"}, {br, "db.md"}, {gl, "core/auth-policy.md"}}, nil},
		{"and across all", memorybank.SearchRequest{Tags: []string{"auth", "design"}, Match: memorybank.MatchAll, Scope: memorybank.ScopeAll, Branch: "feature/auth"},
			[]hitKey{{br, "auth.json"}}, nil},
		{"and with a tag nobody has", memorybank.SearchRequest{Tags: []string{"auth", "nope"}, Match: memorybank.MatchAll, Branch: "feature/auth"}, []hitKey{}, nil},
		{"or is the default match", memorybank.SearchRequest{Tags: []string{"design", "policy"}, Scope: gl},
			[]hitKey{{gl, "core/auth-policy.md"}, {gl, "design/overview.json"}}, nil},
		{"explicit or", memorybank.SearchRequest{Tags: []string{"design"}, Match: memorybank.MatchAny, Scope: gl}, []hitKey{{gl, "design/overview.json"}}, nil},
		{"branch only", memorybank.SearchRequest{Tags: []string{"auth", "design"}, Scope: br, Branch: "feature/auth"},
			[]hitKey{{br, "auth.json"}}, nil},
		{"all without branch is global", memorybank.SearchRequest{Tags: []string{"auth"}}, []hitKey{{gl, "core/auth-policy.md"}}, nil},
		{"other branch has nothing", memorybank.SearchRequest{Tags: []string{"auth"}, Scope: br, Branch: "main"}, []hitKey{}, nil},
		{"no tags", memorybank.SearchRequest{Branch: "feature/auth"}, nil, memorybank.ErrInvalidRequest},
		{"bad match", memorybank.SearchRequest{Tags: []string{"a"}, Match: "xor"}, nil, memorybank.ErrInvalidRequest},
		{"bad scope", memorybank.SearchRequest{Tags: []string{"a"}, Scope: "everywhere"}, nil, memorybank.ErrInvalidRequest},
		{"branch scope without branch", memorybank.SearchRequest{Tags: []string{"a"}, Scope: br}, nil, memorybank.ErrInvalidRequest},
	}
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		seedSearch(t, b)
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				hits, err := b.SearchByTags(ctx, tc.req)
				if tc.err != nil {
					assert.ErrorIs(t, err, tc.err)
					return
				}
				require.NoError(t, err)
				assert.Equal(t, tc.want, hitKeys(hits))
			})
		}
		// Real titles and metadata, not placeholders.
		hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"auth"}, Branch: "feature/auth"})
		require.NoError(t, err)
		require.Len(t, hits, 2)
		assert.Equal(t, "Title of auth.json", hits[0].Title)
		assert.Equal(t, "feature/auth", hits[0].Branch)
		assert.Equal(t, []string{"auth", "design"}, hits[0].Tags)
		assert.Equal(t, "Title of core/auth-policy.md", hits[1].Title)
		assert.Equal(t, int64(1), hits[1].Version)
		assert.False(t, hits[1].LastModified.IsZero())
	})
}

// The index follows every write and delete, of this Bank and of others
// sharing the store.
func TestSearchStaysConsistent(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		a, other := newBank(store), newBank(store)
		seedSearch(t, a)
		search := func(b *memorybank.Bank, tags ...string) []hitKey {
			hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: tags, Scope: memorybank.ScopeGlobal})
			require.NoError(t, err)
			return hitKeys(hits)
		}
		gl := memorybank.ScopeGlobal
		require.Equal(t, []hitKey{{gl, "core/auth-policy.md"}}, search(other, "auth")) // builds other's index

		// Own tag patch.
		mustWrite(t, a, memorybank.WriteRequest{Scope: gl, Path: "design/overview.json", Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", `"auth"`)}})
		assert.Equal(t, []hitKey{{gl, "core/auth-policy.md"}, {gl, "design/overview.json"}}, search(a, "auth"))
		assert.Equal(t, []hitKey{{gl, "core/auth-policy.md"}, {gl, "design/overview.json"}}, search(other, "auth"), "another Bank sees the write")

		// Other's delete and retag, seen by a.
		require.NoError(t, other.Delete(ctx, memorybank.DeleteRequest{Scope: gl, Path: "core/auth-policy.md"}))
		mustWrite(t, other, memorybank.WriteRequest{Scope: gl, Path: "untagged.md", Content: memorybank.TextContent("# Now tagged\n"), Tags: []string{"auth"}})
		assert.Equal(t, []hitKey{{gl, "design/overview.json"}, {gl, "untagged.md"}}, search(a, "auth"))
		assert.Equal(t, []hitKey{}, search(a, "policy"))
		hits, err := a.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"auth"}, Scope: gl})
		require.NoError(t, err)
		assert.Equal(t, "Now tagged", hits[1].Title)

		// A write straight to the store (another tool) is seen once the
		// marker changes.
		_, err = store.Put(ctx, "global-memory-bank/external.md", []byte("tags: #auth\n"), memorybank.Condition{})
		require.NoError(t, err)
		mustWrite(t, other, memorybank.WriteRequest{Scope: gl, Path: "n.md", Content: memorybank.TextContent("n")})
		assert.Contains(t, search(a, "auth"), hitKey{gl, "external.md"})

		// List agrees.
		list, err := a.List(ctx, memorybank.ListRequest{Scope: gl})
		require.NoError(t, err)
		var paths []string
		for _, e := range list {
			paths = append(paths, e.Path)
		}
		assert.Equal(t, []string{"design/overview.json", "external.md", "n.md", "untagged.md"}, paths)
	})
}

func TestListAndDelete(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		seedSearch(t, b)
		list, err := b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal, Prefix: "design/"})
		require.NoError(t, err)
		require.Len(t, list, 1)
		e := list[0]
		assert.Equal(t, "design/overview.json", e.Path)
		assert.Equal(t, "Title of design/overview.json", e.Title)
		assert.Equal(t, "design", e.DocumentType)
		assert.Equal(t, []string{"design", "architecture"}, e.Tags)
		assert.Equal(t, int64(1), e.Version)
		obj, err := store.Get(ctx, "global-memory-bank/design/overview.json")
		require.NoError(t, err)
		assert.Equal(t, len(obj.Data), e.Size)
		assert.False(t, e.LastModified.IsZero())

		list, err = b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeBranch, Branch: "feature/auth"})
		require.NoError(t, err)
		assert.Len(t, list, 2, "the branch marker and generation marker are not documents")

		br := memorybank.ScopeBranch
		err = b.Delete(ctx, memorybank.DeleteRequest{Scope: br, Branch: "feature/auth", Path: "db.md", IfVersion: 3})
		var ce *memorybank.ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, int64(1), ce.CurrentVersion)
		require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: br, Branch: "feature/auth", Path: "db.md", IfVersion: 1}))
		assert.ErrorIs(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: br, Branch: "feature/auth", Path: "db.md"}), memorybank.ErrNotFound)
		_, err = b.Read(ctx, memorybank.ReadRequest{Scope: br, Branch: "feature/auth", Path: "db.md"})
		assert.ErrorIs(t, err, memorybank.ErrNotFound)
		assert.ErrorIs(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: br, Branch: "feature/auth", Path: "../x"}), memorybank.ErrInvalidPath)
		list, err = b.List(ctx, memorybank.ListRequest{Scope: br, Branch: "feature/auth"})
		require.NoError(t, err)
		assert.Len(t, list, 1)
	})
}

// countingStore counts the calls a Bank makes.
type countingStore struct {
	memorybank.Store
	gets, lists, puts atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) (memorybank.Object, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, key)
}

func (s *countingStore) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	s.puts.Add(1)
	return s.Store.Put(ctx, key, data, cond)
}

func (s *countingStore) List(ctx context.Context, prefix string) iter.Seq2[memorybank.Object, error] {
	s.lists.Add(1)
	return s.Store.List(ctx, prefix)
}

func (s *countingStore) reset() { s.gets.Store(0); s.lists.Store(0); s.puts.Store(0) }

// A search reads one marker, not the documents; the Bank's own writes keep
// its index current without a List; another process's write costs one List
// and one read of the changed document.
func TestSearchCost(t *testing.T) {
	mem := &memorybank.MemStore{}
	store := &countingStore{Store: mem}
	// A fixed clock: IndexMaxAge never passes, so only the marker matters.
	b := memorybank.New(store, &memorybank.Options{Clock: func() time.Time { return t0 }})
	for i := range 50 {
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("d%02d.json", i), Content: raw(`{"k":1}`), Tags: []string{"x"}})
	}
	search := func() int {
		hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}, Scope: memorybank.ScopeGlobal})
		require.NoError(t, err)
		return len(hits)
	}
	require.Equal(t, 50, search()) // builds the index: one List, 50 reads
	store.reset()
	for range 10 {
		require.Equal(t, 50, search())
	}
	assert.Equal(t, int64(10), store.gets.Load(), "one marker read per search")
	assert.Equal(t, int64(0), store.lists.Load())

	store.reset()
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "new.json", Content: raw(`{"k":1}`), Tags: []string{"x"}})
	assert.Equal(t, int64(1), store.gets.Load(), "a write reads its document once")
	assert.Equal(t, int64(2), store.puts.Load(), "a write stores its document and the marker")
	require.Equal(t, 51, search())
	assert.Equal(t, int64(0), store.lists.Load(), "own writes need no refresh")

	store.reset()
	other := memorybank.New(mem, nil)
	mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "d07.json", Patches: jsonpatch.Patch{op("replace", "/metadata/tags", `["y"]`)}})
	require.Equal(t, 50, search())
	assert.Equal(t, int64(1), store.lists.Load(), "another process's write: one List")
	assert.Equal(t, int64(2), store.gets.Load(), "the marker and the one changed document")
}
