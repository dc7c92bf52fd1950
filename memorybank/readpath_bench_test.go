package memorybank_test

import (
	"encoding/json"
	"fmt"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/cputime"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// serverBank1000 writes, on fsstore, the bank the server's benchmarks use:
// the branch bank of "main" with its core files and 1,000 small JSON notes,
// and 20 Markdown documents in the global bank.
func serverBank1000(b *testing.B, store memorybank.Store) {
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	_, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"})
	require.NoError(b, err)
	for i := range 1000 {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "main",
			Path:    fmt.Sprintf("notes/n%04d.json", i),
			Content: json.RawMessage(fmt.Sprintf(`{"n":%d,"text":"a note of some length, like a decision or a finding"}`, i)),
			Tags:    []string{"note"}})
		require.NoError(b, err)
	}
	for i := range 20 {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("core/g%02d.md", i), Text: "# Global\nshared knowledge\n"})
		require.NoError(b, err)
	}
}

// BenchmarkReadContextWarmFS: a warm ReadContext on fsstore over the
// server's 1,000-document bank (branch core files, 1,000 other paths, 20
// global documents), the in-process part of the server's
// read_context_warm_1000; "first" is the first call of a fresh Bank on the
// same store (a new process's first read_context).
func BenchmarkReadContextWarmFS(b *testing.B) {
	store, err := fsstore.Open(b.TempDir(), nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = store.Close() })
	serverBank1000(b, store)
	req := memorybank.ReadContextRequest{Branch: "main"}
	warm := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	res, err := warm.ReadContext(ctx, req)
	require.NoError(b, err)
	require.Equal(b, 1000, len(res.OtherBranchFiles)+res.More, "every other document is listed or counted")
	b.Run("warm", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			t := time.Now()
			if _, err := warm.ReadContext(ctx, req); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t))
		}
		reportMedian(b, "warm", ds)
	})
	b.Run("first", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			t := time.Now()
			if _, err := memorybank.New(store, &memorybank.Options{Language: memorybank.English}).ReadContext(ctx, req); err != nil {
				b.Fatal(err)
			}
			ds = append(ds, time.Since(t))
		}
		reportMedian(b, "first", ds)
	})
}

// reportMedian reports the median of ds in milliseconds as name-median-ms.
func reportMedian(b *testing.B, name string, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/float64(time.Millisecond), name+"-median-ms")
	b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*95/100)])/float64(time.Millisecond), name+"-p95-ms")
}

// chatBranch writes a branch bank of 50 chat-length documents (about 10 KB
// each, 0.5 MB in all: Markdown with tags, some JSON) into the branch
// "feature/chat", as an agent's session notes are.
func chatBranch(b *testing.B, store memorybank.Store) int {
	// A write through a Bank claims the branch's directory (its marker).
	_, err := memorybank.New(store, nil).Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/chat",
		Path: "activeContext.md", Text: "# Active context\n\nReviewing the chat notes.\n"})
	require.NoError(b, err)
	dir, err := memorybank.BranchDir("feature/chat")
	require.NoError(b, err)
	docs := textCorpus(50, 10_000)
	total := 0
	for k, v := range docs {
		k = strings.Replace(k, memorybank.GlobalPrefix, memorybank.BranchPrefix+dir+"/", 1)
		_, err := store.Put(ctx, k, v, memorybank.Condition{})
		require.NoError(b, err)
		total += len(v)
	}
	return total
}

// BenchmarkSearchFirstBranch: the first full-text search over a branch
// bank the process has not read yet (50 chat-length documents, 0.5 MB, on
// fsstore), a fresh Bank each time, timed alternately: "hidden" on a store
// that hides the bank's text index snapshot (the Bank reads, parses and
// indexes the branch, as before there were snapshots), "build" without a
// snapshot (the same, then it writes one), "first" with the snapshot that
// left, and "warm", the same query on a Bank that searched before.
func BenchmarkSearchFirstBranch(b *testing.B) {
	store, err := fsstore.Open(b.TempDir(), nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = store.Close() })
	total := chatBranch(b, store)
	dir, err := memorybank.BranchDir("feature/chat")
	require.NoError(b, err)
	snapshot := memorybank.BranchPrefix + dir + "/.textindex.bin"
	req := memorybank.TextSearchRequest{Query: benchQueries()[5], Scope: memorybank.ScopeBranch, Branch: "feature/chat"}
	warm := memorybank.New(store, nil)
	hits, err := warm.Search(ctx, req)
	require.NoError(b, err)
	require.NotEmpty(b, hits)
	var hs, bs, fs, ws []time.Duration
	var hcpu, bcpu, fcpu, wcpu time.Duration
	timed := func(bank *memorybank.Bank, ds *[]time.Duration, cpu *time.Duration) {
		// Each starts on a collected heap, so that none pays for the
		// garbage of the one before (a build leaves megabytes).
		runtime.GC()
		t, c := time.Now(), cputime.Process()
		got, err := bank.Search(ctx, req)
		if err != nil {
			b.Fatal(err)
		}
		*ds = append(*ds, time.Since(t))
		*cpu += cputime.Process() - c
		if len(got) != len(hits) || got[0].Path != hits[0].Path || got[0].Score != hits[0].Score {
			b.Fatalf("found %d hits, first %+v; want %d, first %+v", len(got), got[0], len(hits), hits[0])
		}
	}
	for b.Loop() {
		timed(memorybank.New(hideTextSnapshot{store}, nil), &hs, &hcpu)
		if err := store.Delete(ctx, snapshot, memorybank.Condition{}); err != nil {
			b.Fatal("the first search wrote no snapshot: ", err)
		}
		timed(memorybank.New(store, nil), &bs, &bcpu)
		timed(memorybank.New(store, nil), &fs, &fcpu)
		timed(warm, &ws, &wcpu)
	}
	b.ReportMetric(float64(total)/1e6, "branch-MB")
	// On a loaded machine the CPU time of the process says more than the
	// wall time (it includes the garbage collector's share).
	perOp := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) / float64(b.N) }
	b.ReportMetric(perOp(hcpu), "hidden-cpu-ms")
	b.ReportMetric(perOp(bcpu), "build-cpu-ms")
	b.ReportMetric(perOp(fcpu), "first-cpu-ms")
	b.ReportMetric(perOp(wcpu), "warm-cpu-ms")
	reportMedian(b, "hidden", hs)
	reportMedian(b, "build", bs)
	reportMedian(b, "first", fs)
	reportMedian(b, "warm", ws)
}
