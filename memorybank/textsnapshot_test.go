package memorybank_test

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

const textSnapshotKey = "global-memory-bank/.textindex.bin"

// hideTextSnapshot is a store without text index snapshots: it reports
// them absent and drops their writes, as a host opting out would.
type hideTextSnapshot struct{ memorybank.Store }

func (s hideTextSnapshot) Get(ctx context.Context, key string) (memorybank.Object, error) {
	if strings.HasSuffix(key, "/.textindex.bin") {
		return memorybank.Object{}, memorybank.ErrNotFound
	}
	return s.Store.Get(ctx, key)
}

func (s hideTextSnapshot) Changes(ctx context.Context) (memorybank.ChangeCount, error) {
	return s.Store.(memorybank.ChangeCounter).Changes(ctx)
}

func (s hideTextSnapshot) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	if strings.HasSuffix(key, "/.textindex.bin") {
		return memorybank.Object{Key: key, Version: "hidden"}, nil
	}
	return s.Store.Put(ctx, key, data, cond)
}

// snapshotStore holds a global bank of 60 documents (about 190 KB) put
// by another process, some Markdown with tags, some JSON, some Japanese
// and Chinese.
func snapshotStore(t *testing.T) *memorybank.MemStore {
	store := &memorybank.MemStore{}
	loadCorpus(t, store, textCorpus(60, 3000))
	return store
}

// snapshotRequests are searches of every kind: frequent and rare words,
// Chinese and Japanese, a tag filter, a page past the first.
func snapshotRequests() []memorybank.TextSearchRequest {
	var reqs []memorybank.TextSearchRequest
	for _, q := range benchQueries() {
		reqs = append(reqs, memorybank.TextSearchRequest{Query: q, Scope: memorybank.ScopeGlobal, Limit: 20})
	}
	v := benchVocab()
	reqs = append(reqs,
		memorybank.TextSearchRequest{Query: v[3] + " " + v[40], Tags: []string{"t7"}},
		memorybank.TextSearchRequest{Query: v[1], Offset: 5, Limit: 7},
		memorybank.TextSearchRequest{Query: "zzzz nothing"},
	)
	return reqs
}

// results are every request's page and the bank's listing, from a fresh
// Bank (a new process) over store.
func results(t *testing.T, store memorybank.Store) []any {
	t.Helper()
	b := memorybank.New(store, nil)
	var out []any
	for _, req := range snapshotRequests() {
		p, err := b.SearchTextPage(ctx, req)
		require.NoError(t, err, req.Query)
		out = append(out, p)
	}
	list, err := b.ListPage(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	return append(out, list)
}

// docGets counts what a fresh Bank's first search reads: the documents
// (not the snapshot), with a limit of one hit (one snippet).
func docGets(t *testing.T, store memorybank.Store) int64 {
	t.Helper()
	c := &countingStore{Store: store}
	_, err := memorybank.New(c, nil).Search(ctx, memorybank.TextSearchRequest{Query: benchVocab()[2], Scope: memorybank.ScopeGlobal, Limit: 1})
	require.NoError(t, err)
	return c.gets.Load()
}

// A search writes the bank's text index snapshot; a new process's
// searches and listing from it are those of one reading every document,
// and it reads no document but the hits' for their snippets.
func TestTextSnapshotSameResults(t *testing.T) {
	store := snapshotStore(t)
	without := results(t, hideTextSnapshot{store})
	_, err := store.Get(ctx, textSnapshotKey)
	require.ErrorIs(t, err, memorybank.ErrNotFound, "a Bank that cannot see its snapshot leaves none")

	_, err = memorybank.New(store, nil).Search(ctx, memorybank.TextSearchRequest{Query: "anything"})
	require.NoError(t, err)
	snap, err := store.Get(ctx, textSnapshotKey)
	require.NoError(t, err, "the first search leaves a snapshot")
	assert.Equal(t, without, results(t, store))
	assert.Equal(t, int64(1+1), docGets(t, store), "the snapshot and one hit's document")
	assert.Equal(t, int64(1+60+1), docGets(t, hideTextSnapshot{store}), "without it (listed, but not found): every document and one hit's")

	after, err := store.Get(ctx, textSnapshotKey)
	require.NoError(t, err)
	assert.Equal(t, snap.Version, after.Version, "a snapshot that matched is not written again")
	list, err := memorybank.New(store, nil).List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	for _, e := range list {
		assert.NotContains(t, e.Path, ".textindex", "the snapshot is not a document")
	}
}

// Documents changed, added and deleted after the snapshot was written,
// by a Bank or by another process writing the store, are read again: the
// results are those of a Bank reading every document, and a Bank that
// loaded the snapshot sees later changes as any Bank does.
func TestTextSnapshotStale(t *testing.T) {
	store := snapshotStore(t)
	_, err := memorybank.New(store, nil).Search(ctx, memorybank.TextSearchRequest{Query: "anything"})
	require.NoError(t, err)
	_, err = store.Get(ctx, textSnapshotKey)
	require.NoError(t, err)

	other := memorybank.New(store, nil)
	mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/00000.md", Text: "# Replaced\n\nquokkaword now lives here\n"})
	mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/new.md", Text: "# New\n\nwombatword arrived later\n"})
	err = other.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/00001.md"})
	require.NoError(t, err)
	// Another process writes the store directly.
	_, err = store.Put(ctx, "global-memory-bank/notes/00002.md", []byte("# Direct\n\nnumbatword written by hand\n"), memorybank.Condition{})
	require.NoError(t, err)

	assert.Equal(t, results(t, hideTextSnapshot{store}), results(t, store))
	b := memorybank.New(store, nil)
	for word, want := range map[string][]string{
		"quokkaword": {"notes/00000.md"}, "wombatword": {"notes/new.md"}, "numbatword": {"notes/00002.md"},
	} {
		hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: word})
		require.NoError(t, err)
		assert.Equal(t, want, hitPaths(hits), word)
	}
	old, err := memorybank.New(store, nil).Search(ctx, memorybank.TextSearchRequest{Query: benchVocab()[0], Limit: 100})
	require.NoError(t, err)
	for _, h := range old {
		assert.NotEqual(t, "notes/00001.md", h.Path, "the deleted document is not found")
	}

	// The Bank that loaded the snapshot, after another process's write.
	_, err = store.Put(ctx, "global-memory-bank/notes/00003.md", []byte("# Later\n\nbilbyword\n"), memorybank.Condition{})
	require.NoError(t, err)
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "bilbyword"})
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/00003.md"}, hitPaths(hits))
	assert.Equal(t, results(t, hideTextSnapshot{store}), results(t, store))
}

// A snapshot that is damaged, cut short, of another format or bank, or
// larger than allowed is ignored: the documents are read, the results are
// those without it, and a new snapshot replaces it.
func TestTextSnapshotUnusable(t *testing.T) {
	store := snapshotStore(t)
	want := results(t, hideTextSnapshot{store})
	_, err := memorybank.New(store, nil).Search(ctx, memorybank.TextSearchRequest{Query: "anything"})
	require.NoError(t, err)
	good, err := store.Get(ctx, textSnapshotKey)
	require.NoError(t, err)

	other := &memorybank.MemStore{}
	docs := map[string][]byte{}
	for k, v := range textCorpus(60, 3000) {
		docs[strings.Replace(k, memorybank.GlobalPrefix, memorybank.BranchPrefix+"x/", 1)] = v
	}
	loadCorpus(t, other, docs)
	_, err = memorybank.New(other, nil).Search(ctx, memorybank.TextSearchRequest{Query: "anything", Scope: memorybank.ScopeBranch, Branch: "x"})
	require.NoError(t, err)
	otherBank, err := other.Get(ctx, memorybank.BranchPrefix+"x/.textindex.bin")
	require.NoError(t, err)

	flip := func(i int) []byte {
		b := append([]byte(nil), good.Data...)
		b[i] ^= 0x20
		return b
	}
	cases := map[string]struct {
		data []byte
		why  string // in the warning
	}{
		"a byte changed in the index":   {flip(len(good.Data) * 2 / 3), "checksum"},
		"a byte changed in the entries": {flip(100), "checksum"},
		"the checksum changed":          {flip(len(good.Data) - 1), "checksum"},
		"cut short":                     {good.Data[:len(good.Data)/2], "checksum"},
		"empty":                         {[]byte{}, "format line"},
		"another format":                {append([]byte("mnemobank-textindex-v0\n"), good.Data[len("mnemobank-textindex-v1\n"):]...), "format line"},
		"another bank's":                {otherBank.Data, `describes bank`},
		"JSON":                          {[]byte(`{"format":"mnemobank-textindex-v1"}`), "format line"},
		"larger than allowed":           {append(append([]byte(nil), good.Data...), make([]byte, 64<<20)...), "more than the 67108864 allowed"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := store.Put(ctx, textSnapshotKey, c.data, memorybank.Condition{})
			require.NoError(t, err)
			var log strings.Builder
			c0 := &countingStore{Store: store}
			_, err = memorybank.New(c0, &memorybank.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).Search(ctx,
				memorybank.TextSearchRequest{Query: benchVocab()[2], Scope: memorybank.ScopeGlobal, Limit: 1})
			require.NoError(t, err)
			assert.Contains(t, log.String(), "ignoring the text index snapshot")
			assert.Contains(t, log.String(), c.why)
			assert.Equal(t, int64(1+60+1), c0.gets.Load(), "the snapshot, every document and one hit's")
			_, err = store.Put(ctx, textSnapshotKey, c.data, memorybank.Condition{})
			require.NoError(t, err)
			assert.Equal(t, want, results(t, store))
			rebuilt, err := store.Get(ctx, textSnapshotKey)
			require.NoError(t, err)
			assert.Equal(t, len(good.Data), len(rebuilt.Data), "a new snapshot replaced it")
			assert.Equal(t, int64(1+1), docGets(t, store), "which the next process reads")
		})
	}
}

// Writes never write the snapshot; a search rewrites it once a sixteenth
// of the bank's documents changed since, not for every write, nor for a
// document rewritten again and again; a small bank gets none.
func TestTextSnapshotRewrites(t *testing.T) {
	store := snapshotStore(t)
	b := memorybank.New(store, nil)
	_, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "anything"})
	require.NoError(t, err)
	first, err := store.Get(ctx, textSnapshotKey)
	require.NoError(t, err)
	version := func() string {
		obj, err := store.Get(ctx, textSnapshotKey)
		require.NoError(t, err)
		return obj.Version
	}
	for i := range 10 {
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/hot.md", Text: fmt.Sprintf("# Hot\n\nwritten %d\n", i)})
		assert.Equal(t, first.Version, version(), "a write leaves the snapshot alone")
		_, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "written"})
		require.NoError(t, err)
		assert.Equal(t, first.Version, version(), "one document of 61 changed, %d times: not rewritten", i+1)
	}
	for i := range 2 {
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("notes/w%d.md", i), Text: "# W\n\nwritten\n"})
		_, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "written"})
		require.NoError(t, err)
		assert.Equal(t, first.Version, version(), "%d of %d documents changed: not rewritten", i+2, 62+i)
	}
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/w2.md", Text: "# W\n\nwritten\n"})
	_, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "written"})
	require.NoError(t, err)
	assert.NotEqual(t, first.Version, version(), "4 of 64 documents changed: rewritten")
	assert.Equal(t, int64(1+1), docGets(t, store), "and complete")

	small := &memorybank.MemStore{}
	sb := memorybank.New(small, nil)
	for i := range 20 {
		mustWrite(t, sb, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("n%d.md", i), Text: strings.Repeat("small note words ", 100)})
	}
	_, err = sb.Search(ctx, memorybank.TextSearchRequest{Query: "note"})
	require.NoError(t, err)
	_, err = small.Get(ctx, textSnapshotKey)
	assert.ErrorIs(t, err, memorybank.ErrNotFound, "34 KB of documents: no snapshot")
}
