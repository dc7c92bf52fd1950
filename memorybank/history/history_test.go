package history_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// Every kind of write records an entry; every recorded version can be read
// back exactly as Read showed it then, and Diff turns one into another.
func TestHistoryRebuildsEveryVersion(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		g := memorybank.ScopeGlobal
		for _, path := range []string{"progress.json", "notes.md"} {
			var seen []*memorybank.Document
			write := func(req memorybank.WriteRequest) {
				t.Helper()
				req.Scope, req.Path, req.Actor = g, path, "claude-code"
				res := mustWrite(t, b, req)
				seen = append(seen, mustRead(t, b, g, "", path))
				assert.Equal(t, int64(len(seen)), res.Version)
			}
			if path == "notes.md" {
				write(memorybank.WriteRequest{Text: "# Notes\n\nfirst\n", Tags: []string{"a"}})
				write(memorybank.WriteRequest{Text: "# Notes\n\nsecond\n", Reason: "rewrite"})
				write(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("replace", "/content", `"# Notes\n\nthird\n"`)}})
				write(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", `"b"`)}})
			} else {
				write(memorybank.WriteRequest{Content: raw(`{"status":"start","items":[1,2,3],"nested":{"a":{"b":1}}}`)})
				write(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("replace", "/content/status", `"halfway"`), op("add", "/content/items/-", `4`)}, Reason: "progress"})
				write(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("remove", "/content/items/0", ""), mv("move", "/content/nested/a/b", "/content/moved"), op("test", "/content/status", `"halfway"`)}})
				write(memorybank.WriteRequest{Content: raw(`{"status":"done","items":[],"extra":{"x":"y"}}`), Tags: []string{"t"}})
				write(memorybank.WriteRequest{Patches: jsonpatch.Patch{mv("copy", "/content/extra", "/content/extra2"), op("replace", "/metadata/title", `"Progress"`)}})
			}
			hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: path})
			require.NoError(t, err)
			require.Len(t, hist, len(seen))
			for i, e := range hist {
				assert.Equal(t, int64(len(seen)-i), e.Version, "newest first")
				assert.Equal(t, "claude-code", e.Actor)
				assert.Equal(t, seen[len(seen)-1-i].LastModified, e.Time)
				assert.NotEmpty(t, e.Patch)
			}
			assert.True(t, hist[len(hist)-1].Created)
			wantReason := map[string]string{"notes.md": "rewrite", "progress.json": "progress"}[path]
			assert.Equal(t, wantReason, hist[len(hist)-2].Reason)
			for i, want := range seen {
				got, err := history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: path}, int64(i+1))
				require.NoError(t, err, "version %d", i+1)
				assert.JSONEq(t, string(want.Content), string(got.Content), "%s version %d", path, i+1)
				assert.Equal(t, want.Version, got.Version)
				assert.Equal(t, want.Tags, got.Tags)
			}
			// Diffs apply to the value patches apply to: the canonical
			// envelope (for a text document, built from its parts).
			patchable := func(d *memorybank.Document) []byte {
				if d.Format == memorybank.FormatJSON {
					return d.Content
				}
				return []byte(`{"schema":"memory_document_v2","metadata":` + string(d.Metadata) + `,"content":` + string(d.Content) + `}`)
			}
			for from := range seen {
				for to := range seen {
					p, err := history.Diff(ctx, b, memorybank.ReadRequest{Scope: g, Path: path}, int64(from+1), int64(to+1))
					require.NoError(t, err)
					out, err := jsonpatch.New(nil).Apply(patchable(seen[from]), p)
					require.NoError(t, err, "diff %d→%d: %v", from+1, to+1, p)
					assert.JSONEq(t, string(patchable(seen[to])), string(out), "diff %d→%d", from+1, to+1)
				}
			}
			limited, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: path, Limit: 2})
			require.NoError(t, err)
			assert.Equal(t, hist[:2], limited)
		}
		list, err := b.List(ctx, memorybank.ListRequest{Scope: g})
		require.NoError(t, err)
		assert.Len(t, list, 2, "history is not a document")
	})
}

// A deleted document keeps its history and can be restored; a re-created
// document continues after the version its delete consumed, so a writer or
// deleter holding a version of the old document cannot touch the new one.
func TestDeleteRestoreAndNoRepeatedVersions(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		g := memorybank.ScopeGlobal
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"status":"old"}`)})
		old := mustRead(t, b, g, "", "p.json")
		require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "p.json", Actor: "me", Reason: "cleanup"}))

		hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "p.json"})
		require.NoError(t, err)
		require.Len(t, hist, 2)
		assert.True(t, hist[0].Deleted)
		assert.Equal(t, int64(2), hist[0].Version, "the delete consumed version 2")
		assert.Equal(t, "cleanup", hist[0].Reason)

		res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"status":"new"}`)})
		assert.Equal(t, int64(3), res.Version, "a re-created document continues after the delete")
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", IfVersion: 1, Patches: jsonpatch.Patch{op("replace", "/content/status", `"stale"`)}})
		var ce *memorybank.ConflictError
		require.ErrorAs(t, err, &ce, "a writer holding version 1 of the old document")
		assert.Equal(t, int64(3), ce.CurrentVersion)
		require.ErrorAs(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "p.json", IfVersion: 1}), &ce)
		assert.Equal(t, "new", decode(t, mustRead(t, b, g, "", "p.json")).Content["status"])

		// Delete again and restore version 1.
		require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "p.json"}))
		_, err = history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "p.json"}, 2)
		require.ErrorIs(t, err, memorybank.ErrVersionUnavailable, "version 2 was the delete")
		rev, err := history.Revert(ctx, b, memorybank.RevertRequest{Scope: g, Path: "p.json", ToVersion: 1, IfVersion: 4})
		require.NoError(t, err)
		assert.Equal(t, int64(5), rev.Version)
		now := mustRead(t, b, g, "", "p.json")
		assert.Equal(t, "old", decode(t, now).Content["status"])
		assert.Equal(t, old.ID, now.ID, "the restored document keeps its id")
		hist, err = history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "p.json", Limit: 1})
		require.NoError(t, err)
		assert.Equal(t, "revert to version 1", hist[0].Reason)

		_, err = history.Revert(ctx, b, memorybank.RevertRequest{Scope: g, Path: "p.json", ToVersion: 3, IfVersion: 4})
		require.ErrorAs(t, err, &ce, "a revert honours IfVersion")
		_, err = history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "p.json"}, 9)
		require.ErrorIs(t, err, memorybank.ErrVersionUnavailable)
		_, err = history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "../x"})
		require.ErrorIs(t, err, memorybank.ErrInvalidPath)
	})
}

// History is bounded: old entries are dropped, and versions before them
// cannot be rebuilt.
func TestHistoryRetention(t *testing.T) {
	mem := &memorybank.MemStore{}
	b := memorybank.New(mem, &memorybank.Options{History: history.New(&history.Options{Versions: 20})})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "c.json", Content: raw(`{"n":0}`)})
	for i := 1; i < 100; i++ {
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "c.json", Patches: jsonpatch.Patch{op("replace", "/content/n", fmt.Sprint(i))}})
	}
	hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "c.json"})
	require.NoError(t, err)
	assert.LessOrEqual(t, len(hist), 20+15)
	assert.GreaterOrEqual(t, len(hist), 20)
	got, err := history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "c.json"}, 81)
	require.NoError(t, err)
	assert.Equal(t, float64(80), decode(t, got).Content["n"])
	_, err = history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "c.json"}, 10)
	require.ErrorIs(t, err, memorybank.ErrVersionUnavailable)

	off := memorybank.New(mem, nil) // no journal: no history
	mustWrite(t, off, memorybank.WriteRequest{Scope: g, Path: "off.json", Content: raw(`{"n":0}`)})
	hist, err = history.List(ctx, off, memorybank.HistoryRequest{Scope: g, Path: "off.json"})
	require.NoError(t, err)
	assert.Empty(t, hist)
}

// failHistory fails the first Put of a history entry, as a process dying
// between a write and its record would leave things.
type failHistory struct {
	memorybank.Store
	mu     sync.Mutex
	failed bool
}

func (s *failHistory) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	s.mu.Lock()
	fail := !s.failed && strings.HasPrefix(key, ".history/") && !strings.HasSuffix(key, "deleted.json")
	s.failed = s.failed || fail
	s.mu.Unlock()
	if fail {
		return memorybank.Object{}, errors.New("disk full")
	}
	return s.Store.Put(ctx, key, data, cond)
}

// A lost entry leaves a gap: the write stands, the other entries are
// listed, versions after the gap rebuild, versions before it are refused
// rather than guessed.
func TestHistoryGap(t *testing.T) {
	store := &failHistory{Store: &memorybank.MemStore{}}
	store.failed = true // the creation is recorded
	b := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "g.json", Content: raw(`{"n":1}`)})
	store.failed = false
	for i := 2; i <= 4; i++ {
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "g.json", Patches: jsonpatch.Patch{op("replace", "/content/n", fmt.Sprint(i))}})
	}
	assert.Equal(t, float64(4), decode(t, mustRead(t, b, g, "", "g.json")).Content["n"], "the write stands")
	hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "g.json"})
	require.NoError(t, err)
	var versions []int64
	for _, e := range hist {
		versions = append(versions, e.Version)
	}
	assert.Equal(t, []int64{4, 3, 1}, versions, "the entry of version 2 is missing, nothing else")
	got, err := history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "g.json"}, 2)
	require.NoError(t, err, "undoing versions 4 and 3 reaches version 2")
	assert.Equal(t, float64(2), decode(t, got).Content["n"])
	_, err = history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "g.json"}, 1)
	require.ErrorIs(t, err, memorybank.ErrVersionUnavailable)
	assert.Contains(t, err.Error(), "version 2 is not retained")
}

// Several Banks (as processes would) writing one document: one entry per
// version, no version twice, every version rebuildable.
func TestHistoryUnderConcurrentWriters(t *testing.T) {
	mem := &memorybank.MemStore{}
	g := memorybank.ScopeGlobal
	mustWrite(t, memorybank.New(mem, &memorybank.Options{History: history.New(nil)}), memorybank.WriteRequest{Scope: g, Path: "shared.json", Content: raw(`{"items":[]}`)})
	const writers, each = 4, 15
	var wg sync.WaitGroup
	for w := range writers {
		bank := memorybank.New(mem, &memorybank.Options{History: history.New(nil)})
		wg.Go(func() {
			for i := range each {
				_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "shared.json", Actor: fmt.Sprint("w", w),
					Patches: jsonpatch.Patch{op("add", "/content/items/-", fmt.Sprintf(`"w%d-%d"`, w, i))}})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	checkHistoryConsistent(t, memorybank.New(mem, &memorybank.Options{History: history.New(nil)}), "shared.json", 1+writers*each)
}

// checkHistoryConsistent: the history of path has exactly the versions
// 1..last once each, and each rebuilds to a document of that version whose
// items list grew by one per write.
func checkHistoryConsistent(t *testing.T, b *memorybank.Bank, path string, last int) {
	t.Helper()
	g := memorybank.ScopeGlobal
	hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: path})
	require.NoError(t, err)
	require.Len(t, hist, last)
	for i, e := range hist {
		require.Equal(t, int64(last-i), e.Version)
	}
	for v := 1; v <= last; v++ {
		d, err := history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: path}, int64(v))
		require.NoError(t, err)
		assert.Equal(t, int64(v), d.Version)
		assert.Len(t, decode(t, d).Content["items"], v-1)
	}
}

// Two OS processes writing one document on fsstore, then a writer killed
// at random instants: the history never shows a write that did not happen
// nor a version twice, and the document is always whole.
func TestHistoryAcrossProcessesAndKills(t *testing.T) {
	dir := t.TempDir()
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = s.Close() })
	b := memorybank.New(s, &memorybank.Options{History: history.New(nil)})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "shared.json", Content: raw(`{"items":[]}`)})

	cmds := []*exec.Cmd{historyChild(dir, "20"), historyChild(dir, "20")}
	for _, c := range cmds {
		require.NoError(t, c.Start())
	}
	for _, c := range cmds {
		require.NoError(t, c.Wait(), "child: %s", c.Stderr)
	}
	checkHistoryConsistent(t, b, "shared.json", 41)

	for kill := range 5 {
		c := historyChild(dir, "1000")
		out := &lineWaiter{ch: make(chan struct{}, 1)}
		c.Stdout = out
		require.NoError(t, c.Start())
		select {
		case <-out.ch:
		case <-time.After(30 * time.Second):
			t.Fatal("the child wrote nothing")
		}
		time.Sleep(time.Duration(kill) * 3 * time.Millisecond) // kill at varying points of later writes
		require.NoError(t, c.Process.Kill())
		_ = c.Wait()
	}
	cur := mustRead(t, b, g, "", "shared.json")
	hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "shared.json"})
	require.NoError(t, err)
	seen := map[int64]bool{}
	for _, e := range hist {
		assert.False(t, seen[e.Version], "version %d recorded twice", e.Version)
		seen[e.Version] = true
		assert.LessOrEqual(t, e.Version, cur.Version, "an entry for a write that did not happen")
	}
	assert.Len(t, decode(t, cur).Content["items"], int(cur.Version)-1, "the document is whole and every write counted once")
	// Versions after the last gap rebuild.
	for v := cur.Version; v >= 1 && seen[v]; v-- {
		_, err := history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: g, Path: "shared.json"}, v-1)
		if v == 1 {
			break
		}
		assert.NoError(t, err, "version %d", v-1)
	}
}

// lineWaiter signals the first write to it.
type lineWaiter struct {
	once sync.Once
	ch   chan struct{}
}

func (w *lineWaiter) Write(p []byte) (int, error) {
	w.once.Do(func() { w.ch <- struct{}{} })
	return len(p), nil
}

const envHistoryChild = "MEMORYBANK_TEST_HISTORY_CHILD"

func historyChild(dir, n string) *exec.Cmd {
	c := exec.Command(os.Args[0], "-test.run=^$")
	c.Env = append(os.Environ(), envHistoryChild+"="+dir+"|"+n)
	c.Stderr = new(strings.Builder)
	return c
}

func TestMain(m *testing.M) {
	if v := os.Getenv(envHistoryChild); v != "" {
		dir, n, _ := strings.Cut(v, "|")
		os.Exit(historyWriter(dir, n))
	}
	os.Exit(m.Run())
}

// historyWriter appends n items to shared.json, printing a line after each.
func historyWriter(dir, n string) int {
	s, err := fsstore.Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	b := memorybank.New(s, &memorybank.Options{History: history.New(nil)})
	var count int
	_, _ = fmt.Sscan(n, &count)
	for i := range count {
		v, _ := json.Marshal(fmt.Sprintf("p%d-%d", os.Getpid(), i))
		_, err := b.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "shared.json",
			Patches: jsonpatch.Patch{{Op: "add", Path: "/content/items/-", Value: v}}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("wrote", i)
	}
	return 0
}
