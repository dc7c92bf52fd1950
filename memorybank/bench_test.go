package memorybank_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// populate stores n generic documents directly in the global bank, as
// another process or an existing bank would have. Document i carries the tag
// "t<i%100>" (so each such tag is on 1% of documents), "d<i>" (its own) and
// "all".
func populate(b testing.TB, store memorybank.Store, n int) {
	b.Helper()
	for i := range n {
		doc := fmt.Sprintf(`{"schema":"memory_document_v2","metadata":{"id":"d%d","title":"Document %d","documentType":"note","path":"docs/%05d.json","tags":["all","t%d","d%d"],"lastModified":"2025-03-17T09:00:00.000Z","createdAt":"2025-03-17T09:00:00.000Z","version":1},"content":{"text":"note %d"}}`, i, i, i, i%100, i, i)
		_, err := store.Put(ctx, fmt.Sprintf("global-memory-bank/docs/%05d.json", i), []byte(doc), memorybank.Condition{})
		require.NoError(b, err)
	}
}

// BenchmarkPatchWrite10KB: one patch write (read, patch, validate, CAS
// write, index update) on a 10 KB document.
func BenchmarkPatchWrite10KB(b *testing.B) {
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	items := make([]string, 0, 200)
	for i := 0; len(strings.Join(items, ",")) < 10_000; i++ {
		items = append(items, fmt.Sprintf(`{"title":"decision %d","decision":"use approach %d for module %d"}`, i, i, i))
	}
	content := `{"schema":"memory_document_v2","metadata":{"title":"Patterns","documentType":"system_patterns","tags":["core"]},"content":{"technicalDecisions":[` + strings.Join(items, ",") + `]}}`
	res, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "systemPatterns.json", Content: json.RawMessage(content)})
	require.NoError(b, err)
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "systemPatterns.json"})
	require.NoError(b, err)
	b.ReportMetric(float64(len(d.Content)), "doc-bytes")
	_ = res
	patch := jsonpatch.Patch{{Op: "replace", Path: "/content/technicalDecisions/3/decision", Value: json.RawMessage(`"changed"`)}}
	b.ResetTimer()
	for b.Loop() {
		if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "systemPatterns.json", Patches: patch}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReadContext1000: ReadContext (rules, 4 branch core files, global
// core files, the names of the other ~1,000 documents) on a bank of 1,000
// documents.
func BenchmarkReadContext1000(b *testing.B) {
	store := &memorybank.MemStore{}
	populate(b, store, 994)
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	for _, p := range []string{"architecture.md", "coding-standards.md", "domain-models.md", "glossary.md", "tech-stack.md", "user-guide.md"} {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p, Text: ("# " + p + "\n" + strings.Repeat("Some text. ", 50)), Tags: []string{"core"}})
		require.NoError(b, err)
	}
	res, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"}) // initialises the branch bank
	require.NoError(b, err)
	require.Equal(b, 994, len(res.OtherGlobalFiles)+res.More, "every other document is listed or counted")
	b.ResetTimer()
	for b.Loop() {
		if _, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSearchByTags10000: warm tag search over 10,000 documents (index
// built; the default IndexMaxAge adds a List of the bank every 2 s); each
// search matches 100 documents.
func BenchmarkSearchByTags10000(b *testing.B) {
	store := &memorybank.MemStore{}
	populate(b, store, 10_000)
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	for _, tc := range []struct {
		name string
		req  memorybank.SearchRequest
	}{
		{"or", memorybank.SearchRequest{Tags: []string{"t7"}, Scope: memorybank.ScopeGlobal}},
		{"and", memorybank.SearchRequest{Tags: []string{"all", "t7"}, Match: memorybank.MatchAll, Scope: memorybank.ScopeGlobal}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			hits, err := bank.SearchByTags(ctx, tc.req) // builds the index once
			require.NoError(b, err)
			require.Len(b, hits, 100)
			b.ResetTimer()
			for b.Loop() {
				if _, err := bank.SearchByTags(ctx, tc.req); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkSearchByTagsCold: the first search of a fresh Bank (a new
// process) over 10,000 documents. "snapshot": the bank holds an index
// snapshot (as any bank of 128+ documents does once indexed), so the search
// reads the marker and the snapshot and lists the bank, reading no document.
// "no-snapshot": the store hides the snapshot, so the search reads every
// document (one List, one Get and decode each) and encodes a snapshot. Later
// searches cost what BenchmarkSearchByTags10000 shows.
func BenchmarkSearchByTagsCold(b *testing.B) {
	mem := &memorybank.MemStore{}
	populate(b, mem, 10_000)
	req := memorybank.SearchRequest{Tags: []string{"t7"}, Scope: memorybank.ScopeGlobal}
	hits, err := memorybank.New(mem, &memorybank.Options{History: history.New(nil)}).SearchByTags(ctx, req) // stores the snapshot
	require.NoError(b, err)
	require.Len(b, hits, 100)
	for _, tc := range []struct {
		name  string
		store memorybank.Store
	}{
		{"snapshot", mem},
		{"no-snapshot", hideSnapshot{mem}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			store := &countingStore{Store: tc.store}
			for b.Loop() {
				hits, err := memorybank.New(store, &memorybank.Options{History: history.New(nil)}).SearchByTags(ctx, req)
				if err != nil || len(hits) != 100 {
					b.Fatal(len(hits), err)
				}
			}
			b.ReportMetric(float64(store.gets.Load())/float64(b.N), "gets/op")
		})
	}
}

// hideSnapshot is a store without index snapshots: it reports them absent
// and drops their writes.
type hideSnapshot struct{ memorybank.Store }

func (s hideSnapshot) Get(ctx context.Context, key string) (memorybank.Object, error) {
	if strings.HasSuffix(key, "/.tagindex.json") {
		return memorybank.Object{}, memorybank.ErrNotFound
	}
	return s.Store.Get(ctx, key)
}

func (s hideSnapshot) Changes(ctx context.Context) (memorybank.ChangeCount, error) {
	return s.Store.(memorybank.ChangeCounter).Changes(ctx)
}

func (s hideSnapshot) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	if strings.HasSuffix(key, "/.tagindex.json") {
		return memorybank.Object{Key: key, Version: "hidden"}, nil
	}
	return s.Store.Put(ctx, key, data, cond)
}

// BenchmarkWriteBankSize: the same patch write in banks of 100 and 10,000
// documents, with the tag index built and followed by a search each time,
// shows write (and search-after-write) cost does not grow with the bank.
func BenchmarkWriteBankSize(b *testing.B) {
	for _, n := range []int{100, 10_000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			store := &memorybank.MemStore{}
			populate(b, store, n)
			bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
			_, err := bank.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"t1"}, Scope: memorybank.ScopeGlobal})
			require.NoError(b, err)
			patch := jsonpatch.Patch{{Op: "replace", Path: "/content/text", Value: json.RawMessage(`"edited"`)}}
			b.Run("write", func(b *testing.B) {
				for b.Loop() {
					if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "docs/00001.json", Patches: patch}); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run("write+search", func(b *testing.B) {
				for b.Loop() {
					if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "docs/00001.json", Patches: patch}); err != nil {
						b.Fatal(err)
					}
					if _, err := bank.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"d1"}, Scope: memorybank.ScopeGlobal}); err != nil {
						b.Fatal(err)
					}
				}
			})
		})
	}
}

// patchDoc builds a system_patterns document of about size bytes.
func patchDoc(size int) string {
	items := make([]string, 0, size/70)
	n := 0
	for i := 0; n < size; i++ {
		it := fmt.Sprintf(`{"title":"decision %d","decision":"use approach %d for module %d"}`, i, i, i)
		items = append(items, it)
		n += len(it) + 1
	}
	return `{"schema":"memory_document_v2","metadata":{"title":"Patterns","documentType":"system_patterns","tags":["core"]},"content":{"technicalDecisions":[` + strings.Join(items, ",") + `]}}`
}

// BenchmarkPatchWriteVsFloor measures a one-operation patch write on
// MemStore against the floor of any write: decoding the stored document once
// and encoding the result once (encoding/json into and out of an any). The
// two are timed alternately inside one loop, so machine noise hits both; the
// x-floor metric is their ratio. gets/op and puts/op count store calls per
// patch write, with the document's history off and on (its entry is the one
// extra Put).
func BenchmarkPatchWriteVsFloor(b *testing.B) {
	for _, bc := range []struct {
		size    int
		history memorybank.Journal
	}{{10_000, nil}, {600_000, nil}, {10_000, history.New(nil)}, {600_000, history.New(nil)}} {
		name := fmt.Sprintf("%dKB/history=off", bc.size/1000)
		if bc.history != nil {
			name = fmt.Sprintf("%dKB/history=on", bc.size/1000)
		}
		size := bc.size
		b.Run(name, func(b *testing.B) {
			store := &countingStore{Store: &memorybank.MemStore{}}
			bank := memorybank.New(store, &memorybank.Options{History: bc.history})
			_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "systemPatterns.json", Content: json.RawMessage(patchDoc(size))})
			require.NoError(b, err)
			obj, err := store.Get(ctx, "global-memory-bank/systemPatterns.json")
			require.NoError(b, err)
			stored := obj.Data
			patch := jsonpatch.Patch{{Op: "replace", Path: "/content/technicalDecisions/3/decision", Value: json.RawMessage(`"changed"`)}}
			store.reset()
			var floor, write time.Duration
			for b.Loop() {
				t := time.Now()
				var v any
				if err := json.Unmarshal(stored, &v); err != nil {
					b.Fatal(err)
				}
				if _, err := json.Marshal(v); err != nil {
					b.Fatal(err)
				}
				floor += time.Since(t)
				t = time.Now()
				if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "systemPatterns.json", Patches: patch}); err != nil {
					b.Fatal(err)
				}
				write += time.Since(t)
			}
			b.ReportMetric(float64(write)/float64(floor), "x-floor")
			b.ReportMetric(float64(floor.Nanoseconds())/float64(b.N), "floor-ns")
			b.ReportMetric(float64(write.Nanoseconds())/float64(b.N), "write-ns")
			b.ReportMetric(float64(store.gets.Load())/float64(b.N), "gets/op")
			b.ReportMetric(float64(store.puts.Load())/float64(b.N), "puts/op")
		})
	}
}

// readContextBank is a bank of n generic documents plus the six global core
// files, with the branch bank of "main" initialised.
func readContextBank(b testing.TB, store memorybank.Store, n int) *memorybank.Bank {
	populate(b, store, n)
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	for _, p := range []string{"architecture.md", "coding-standards.md", "domain-models.md", "glossary.md", "tech-stack.md", "user-guide.md"} {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p, Text: "# " + p + "\n" + strings.Repeat("Some text. ", 50), Tags: []string{"core"}})
		require.NoError(b, err)
	}
	_, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"}) // initialises the branch bank
	require.NoError(b, err)
	return bank
}

// BenchmarkReadContextBankSize: warm ReadContext on banks of 100 and 10,000
// documents, timed alternately in one loop; x-100 is the 10,000-document
// cost over the 100-document cost.
func BenchmarkReadContextBankSize(b *testing.B) {
	for _, kind := range []string{"mem", "fs"} {
		b.Run(kind, func(b *testing.B) {
			open := func() memorybank.Store {
				if kind == "mem" {
					return &memorybank.MemStore{}
				}
				s, err := fsstore.Open(b.TempDir(), nil)
				require.NoError(b, err)
				b.Cleanup(func() { _ = s.Close() })
				return s
			}
			small, large := readContextBank(b, open(), 100), readContextBank(b, open(), 10_000)
			var ts, tl time.Duration
			req := memorybank.ReadContextRequest{Branch: "main"}
			for b.Loop() {
				t := time.Now()
				if _, err := small.ReadContext(ctx, req); err != nil {
					b.Fatal(err)
				}
				ts += time.Since(t)
				t = time.Now()
				if _, err := large.ReadContext(ctx, req); err != nil {
					b.Fatal(err)
				}
				tl += time.Since(t)
			}
			b.ReportMetric(float64(ts.Nanoseconds())/float64(b.N), "ns-100")
			b.ReportMetric(float64(tl.Nanoseconds())/float64(b.N), "ns-10000")
			b.ReportMetric(float64(tl)/float64(ts), "x-100")
		})
	}
}

// BenchmarkHistory100: History of a document with 100 retained entries on
// fsstore (one listing of its history directory and 100 small reads).
func BenchmarkHistory100(b *testing.B) {
	s, err := fsstore.Open(b.TempDir(), nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	bank := memorybank.New(s, &memorybank.Options{History: history.New(nil)})
	g := memorybank.ScopeGlobal
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "progress.json", Content: json.RawMessage(`{"n":0}`)})
	require.NoError(b, err)
	for i := 1; i < 100; i++ {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "progress.json", Patches: jsonpatch.Patch{{Op: "replace", Path: "/content/n", Value: json.RawMessage(fmt.Sprint(i))}}})
		require.NoError(b, err)
	}
	for b.Loop() {
		hist, err := history.List(ctx, bank, memorybank.HistoryRequest{Scope: g, Path: "progress.json"})
		if err != nil || len(hist) != 100 {
			b.Fatal(len(hist), err)
		}
	}
}
