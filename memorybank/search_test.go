package memorybank_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
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
		req := memorybank.WriteRequest{Scope: d.scope, Branch: "feature/auth", Path: d.path, Text: "# Title of " + d.path + "\n", Tags: d.tags}
		if d.path[len(d.path)-5:] == ".json" {
			req.Text, req.Content = "", raw(`{"schema":"memory_document_v2","metadata":{"title":"Title of `+d.path+`","documentType":"design"},"content":{"k":1}}`)
		}
		mustWrite(t, b, req)
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
		mustWrite(t, other, memorybank.WriteRequest{Scope: gl, Path: "untagged.md", Text: ("# Now tagged\n"), Tags: []string{"auth"}})
		assert.Equal(t, []hitKey{{gl, "design/overview.json"}, {gl, "untagged.md"}}, search(a, "auth"))
		assert.Equal(t, []hitKey{}, search(a, "policy"))
		hits, err := a.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"auth"}, Scope: gl})
		require.NoError(t, err)
		assert.Equal(t, "Now tagged", hits[1].Title)

		// A write straight to the store (another tool) is seen once the
		// marker changes.
		_, err = store.Put(ctx, "global-memory-bank/external.md", []byte("tags: #auth\n"), memorybank.Condition{})
		require.NoError(t, err)
		mustWrite(t, other, memorybank.WriteRequest{Scope: gl, Path: "n.md", Text: ("n")})
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
		assert.Len(t, list, 2, "the branch marker is not a document")

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

// countingStore counts the calls a Bank makes. The store it wraps must be
// a ChangeCounter (MemStore and fsstore are).
type countingStore struct {
	memorybank.Store
	gets, lists, puts, changes atomic.Int64
	conflicts                  atomic.Int64 // Puts refused with ErrConflict
}

func (s *countingStore) Changes(ctx context.Context) (memorybank.ChangeCount, error) {
	s.changes.Add(1)
	return s.Store.(memorybank.ChangeCounter).Changes(ctx)
}

func (s *countingStore) Get(ctx context.Context, key string) (memorybank.Object, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, key)
}

func (s *countingStore) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	s.puts.Add(1)
	obj, err := s.Store.Put(ctx, key, data, cond)
	if errors.Is(err, memorybank.ErrConflict) {
		s.conflicts.Add(1)
	}
	return obj, err
}

func (s *countingStore) List(ctx context.Context, prefix string) iter.Seq2[memorybank.Object, error] {
	s.lists.Add(1)
	return s.Store.List(ctx, prefix)
}

func (s *countingStore) reset() {
	s.gets.Store(0)
	s.lists.Store(0)
	s.puts.Store(0)
	s.changes.Store(0)
	s.conflicts.Store(0)
}

// A search reads the store's change count, not the documents; a write is
// one Get and one Put; the Bank's own writes keep its index current without
// a List; another process's write costs one List and one read of the changed
// document.
func TestSearchCost(t *testing.T) {
	mem := &memorybank.MemStore{}
	store := &countingStore{Store: mem}
	// A fixed clock: IndexMaxAge never passes, so only the change count matters.
	b := memorybank.New(store, &memorybank.Options{History: history.New(nil), Clock: func() time.Time { return t0 }})
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
	assert.Equal(t, int64(10), store.changes.Load(), "one change count per search")
	assert.Equal(t, int64(0), store.gets.Load(), "no document read")
	assert.Equal(t, int64(0), store.lists.Load())

	store.reset()
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "new.json", Content: raw(`{"k":1}`), Tags: []string{"x"}})
	assert.Equal(t, int64(2), store.gets.Load(), "a create reads its document and the version a delete may have consumed")
	assert.Equal(t, int64(2), store.puts.Load(), "a write stores its document and its history entry")
	require.Equal(t, 51, search())
	assert.Equal(t, int64(0), store.lists.Load(), "own writes need no refresh")

	store.reset()
	other := memorybank.New(mem, &memorybank.Options{History: history.New(nil)})
	mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "d07.json", Patches: jsonpatch.Patch{op("replace", "/metadata/tags", `["y"]`)}})
	require.Equal(t, 50, search())
	assert.Equal(t, int64(1), store.lists.Load(), "another process's write: one List")
	assert.Equal(t, int64(1), store.gets.Load(), "the one changed document")
}

const snapshotKey = "global-memory-bank/.tagindex.json"

// noteDoc is document i as populate stores it, with the given tags.
func noteDoc(i int, tags string) []byte {
	return fmt.Appendf(nil, `{"schema":"memory_document_v2","metadata":{"id":"d%d","title":"Document %d","documentType":"note","path":"docs/%05d.json","tags":%s,"lastModified":"2025-03-17T09:00:00.000Z","createdAt":"2025-03-17T09:00:00.000Z","version":1},"content":{"text":"note %d"}}`, i, i, i, tags, i)
}

func searchPaths(t *testing.T, b *memorybank.Bank, tag string) []string {
	t.Helper()
	hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{tag}, Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

// A fresh Bank (a new process) over a bank with an index snapshot reads the
// snapshot, lists the bank once and re-reads only the documents changed since
// the snapshot, on MemStore and on a reopened fsstore.
func TestColdBankReadsSnapshot(t *testing.T) {
	for _, kind := range []struct {
		name string
		open func(t *testing.T) (first, reopen func() memorybank.Store)
	}{
		{"mem", func(t *testing.T) (func() memorybank.Store, func() memorybank.Store) {
			s := &memorybank.MemStore{}
			return func() memorybank.Store { return s }, func() memorybank.Store { return s }
		}},
		{"fs", func(t *testing.T) (func() memorybank.Store, func() memorybank.Store) {
			dir := t.TempDir()
			open := func() memorybank.Store {
				s, err := fsstore.Open(dir, nil)
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Close() })
				return s
			}
			return open, open
		}},
	} {
		t.Run(kind.name, func(t *testing.T) {
			first, reopen := kind.open(t)
			store := first()
			populate(t, store, 300) // t7 on docs 7, 107, 207
			require.Equal(t, []string{"docs/00007.json", "docs/00107.json", "docs/00207.json"}, searchPaths(t, memorybank.New(store, &memorybank.Options{History: history.New(nil)}), "t7"))
			snap, err := store.Get(ctx, snapshotKey)
			require.NoError(t, err, "building the index of 300 documents stores a snapshot")

			// Changes after the snapshot, made outside any Bank.
			_, err = store.Put(ctx, "global-memory-bank/docs/00007.json", noteDoc(7, `["moved"]`), memorybank.Condition{})
			require.NoError(t, err)
			require.NoError(t, store.Delete(ctx, "global-memory-bank/docs/00107.json", memorybank.Condition{}))
			_, err = store.Put(ctx, "global-memory-bank/docs/00300.json", noteDoc(300, `["t7"]`), memorybank.Condition{})
			require.NoError(t, err)

			counting := &countingStore{Store: reopen()}
			// A fixed clock: IndexMaxAge never passes between the searches.
			b := memorybank.New(counting, &memorybank.Options{History: history.New(nil), Clock: func() time.Time { return t0 }})
			assert.Equal(t, []string{"docs/00207.json", "docs/00300.json"}, searchPaths(t, b, "t7"))
			assert.Equal(t, []string{"docs/00007.json"}, searchPaths(t, b, "moved"))
			assert.Equal(t, int64(1), counting.lists.Load(), "one List")
			// The snapshot, the changed and the new document.
			assert.Equal(t, int64(3), counting.gets.Load())
			assert.Equal(t, int64(0), counting.puts.Load(), "a few changes do not rewrite the snapshot")

			list, err := b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
			require.NoError(t, err)
			assert.Len(t, list, 300)
			for _, e := range list {
				assert.NotContains(t, e.Path, ".tagindex", "the snapshot is not a document")
			}
			now, err := counting.Get(ctx, snapshotKey)
			require.NoError(t, err)
			assert.Equal(t, snap.Version, now.Version)
		})
	}
}

// A snapshot that is corrupt, of another format or bank, or wrong about a
// document is never believed: results are those of the store, and a full
// build replaces the snapshot.
func TestBadSnapshotIgnored(t *testing.T) {
	for _, tc := range []struct{ name, data string }{
		{"not JSON", `{"format":`},
		{"not an object", `[1,2,3]`},
		{"other format", `{"format":"something-else","bank":"global-memory-bank/","entries":[]}`},
		{"other bank", `{"format":"mnemobank-tagindex-v1","bank":"branch-memory-bank/x/","entries":[{"storeVersion":"1","path":"docs/00000.json","tags":["t7"]}]}`},
		{"entry without version", `{"format":"mnemobank-tagindex-v1","bank":"global-memory-bank/","entries":[{"path":"docs/00000.json","tags":["t7"]}]}`},
		{"stale versions and ghosts", `{"format":"mnemobank-tagindex-v1","bank":"global-memory-bank/","entries":[{"storeVersion":"no-such-version","path":"docs/00000.json","title":"lie","tags":["t7"]},{"storeVersion":"9","path":"ghost.json","tags":["t7"]}]}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			populate(t, store, 200)
			_, err := store.Put(ctx, snapshotKey, []byte(tc.data), memorybank.Condition{})
			require.NoError(t, err)
			b := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
			assert.Equal(t, []string{"docs/00007.json", "docs/00107.json"}, searchPaths(t, b, "t7"))
			list, err := b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
			require.NoError(t, err)
			require.Len(t, list, 200)
			assert.Equal(t, "Document 0", list[0].Title)

			obj, err := store.Get(ctx, snapshotKey)
			require.NoError(t, err)
			var snap struct {
				Format  string `json:"format"`
				Entries []any  `json:"entries"`
			}
			require.NoError(t, json.Unmarshal(obj.Data, &snap), "the snapshot was rewritten")
			assert.Equal(t, "mnemobank-tagindex-v1", snap.Format)
			assert.Len(t, snap.Entries, 200)
		})
	}
}

// Writes never rewrite the snapshot: their cost must not grow with the bank.
func TestWritesDoNotTouchSnapshot(t *testing.T) {
	mem := &memorybank.MemStore{}
	populate(t, mem, 200)
	store := &countingStore{Store: mem}
	b := memorybank.New(store, &memorybank.Options{History: history.New(nil), Clock: func() time.Time { return t0 }})
	require.Len(t, searchPaths(t, b, "t7"), 2) // builds the index and the snapshot
	before, err := mem.Get(ctx, snapshotKey)
	require.NoError(t, err)
	store.reset()
	for i := range 5 {
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("docs/%05d.json", i),
			Patches: jsonpatch.Patch{op("replace", "/metadata/tags", `["t7"]`)}})
	}
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "new.md", Text: ("n"), Tags: []string{"t7"}})
	require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "docs/00107.json"}))
	// Each write stores its document and its history entry; the delete its
	// tombstone and its entry. Nothing else.
	assert.Equal(t, int64(6+6+2), store.puts.Load())
	assert.Len(t, searchPaths(t, b, "t7"), 7)
	after, err := mem.Get(ctx, snapshotKey)
	require.NoError(t, err)
	assert.Equal(t, before.Version, after.Version)
}

// Paths lists what List lists, by prefix, without reading a document.
func TestPathsReadsNoDocument(t *testing.T) {
	mem := &memorybank.MemStore{}
	populate(t, mem, 300)
	store := &countingStore{Store: mem}
	b := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	paths, err := b.Paths(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal, Prefix: "docs/0010"})
	require.NoError(t, err)
	assert.Equal(t, []string{"docs/00100.json", "docs/00101.json", "docs/00102.json", "docs/00103.json", "docs/00104.json",
		"docs/00105.json", "docs/00106.json", "docs/00107.json", "docs/00108.json", "docs/00109.json"}, paths)
	assert.Equal(t, int64(0), store.gets.Load())
	all, err := b.Paths(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	list, err := b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.Len(t, all, len(list))
	for i := range list {
		assert.Equal(t, list[i].Path, all[i])
	}
	none, err := b.Paths(ctx, memorybank.ListRequest{Scope: memorybank.ScopeBranch, Branch: "no-bank"})
	require.NoError(t, err)
	assert.Empty(t, none)
}

// A patch write is one Get and one Put, plus one Put for its history entry
// when history is on; nothing else, whatever the size of the bank.
func TestPatchWriteStoreCalls(t *testing.T) {
	for _, tc := range []struct {
		name    string
		history memorybank.Journal
		puts    int64
	}{{"history off", nil, 1}, {"history on", history.New(nil), 2}} {
		t.Run(tc.name, func(t *testing.T) {
			mem := &memorybank.MemStore{}
			populate(t, mem, 200)
			store := &countingStore{Store: mem}
			b := memorybank.New(store, &memorybank.Options{History: tc.history})
			require.Len(t, searchPaths(t, b, "t7"), 2)
			store.reset()
			mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "docs/00001.json",
				Patches: jsonpatch.Patch{op("replace", "/content/text", `"edited"`)}})
			assert.Equal(t, int64(1), store.gets.Load())
			assert.Equal(t, tc.puts, store.puts.Load())
			assert.Equal(t, int64(0), store.lists.Load())
			assert.Equal(t, int64(0), store.changes.Load())
		})
	}
}

// A search sees every write acknowledged before it started, whichever Bank
// wrote it, while both Banks keep writing: the change count never lets a
// foreign write hide behind the searching Bank's own.
func TestTagSearchSeesEveryAcknowledgedWrite(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		a, b := memorybank.New(store, &memorybank.Options{History: history.New(nil)}), memorybank.New(store, &memorybank.Options{History: history.New(nil)})
		g := memorybank.ScopeGlobal
		var wg sync.WaitGroup
		wg.Go(func() { // b's own writes, interleaved
			for i := range 40 {
				_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: fmt.Sprintf("b/%02d.md", i), Text: "b", Tags: []string{"b"}})
				assert.NoError(t, err)
			}
		})
		for i := range 40 {
			tag := fmt.Sprintf("a%02d", i)
			_, err := a.Write(ctx, memorybank.WriteRequest{Scope: g, Path: fmt.Sprintf("a/%02d.md", i), Text: "a", Tags: []string{tag}})
			require.NoError(t, err)
			hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{tag}, Scope: g})
			require.NoError(t, err)
			require.Len(t, hits, 1, "b's search after a's write %d", i)
			paths, err := b.Paths(ctx, memorybank.ListRequest{Scope: g, Prefix: "a/"})
			require.NoError(t, err)
			require.Len(t, paths, i+1)
		}
		wg.Wait()
	})
}
