package memorybank_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// populateDir writes n generic documents of the global bank straight into
// dir, as an existing bank on disk would hold them (without fsync: only the
// benchmark's own writes are measured).
func populateDir(b testing.TB, dir string, n int) {
	b.Helper()
	require.NoError(b, os.MkdirAll(filepath.Join(dir, "global-memory-bank", "docs"), 0o755))
	for i := range n {
		doc := fmt.Sprintf(`{"schema":"memory_document_v2","metadata":{"id":"d%d","title":"Document %d","documentType":"note","path":"docs/%05d.json","tags":["all","t%d"],"lastModified":"2025-03-17T09:00:00.000Z","createdAt":"2025-03-17T09:00:00.000Z","version":1},"content":{"text":"note %d"}}`, i, i, i, i%100, i)
		require.NoError(b, os.WriteFile(filepath.Join(dir, "global-memory-bank", "docs", fmt.Sprintf("%05d.json", i)), []byte(doc), 0o644))
	}
}

// BenchmarkFSWrite: on fsstore, in banks of 100, 1,000 and 10,000 documents
// that this process has not listed, a create and a one-operation patch
// write, timed alternately with their floor: one durable atomic replace of
// a file of the same size (internal/atomicfile: write, fsync, rename, fsync
// of the directory) plus decoding and encoding the document once with
// encoding/json. It reports the median and p99 of each, and the medians'
// ratios to the floor (x-floor); create and patch medians should not grow
// with the bank. History is on, as by default.
//
//	go test -run '^$' -bench FSWrite -benchtime 300x ./memorybank/
func BenchmarkFSWrite(b *testing.B) {
	for _, n := range []int{100, 1000, 10_000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			dir := b.TempDir()
			populateDir(b, dir, n)
			s, err := fsstore.Open(dir, nil)
			require.NoError(b, err)
			b.Cleanup(func() { _ = s.Close() })
			bank := memorybank.New(s, nil)
			g := memorybank.ScopeGlobal
			res, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "patched.json", Content: json.RawMessage(`{"items":[],"note":"a document patched over and over"}`)})
			require.NoError(b, err)
			doc, err := os.ReadFile(filepath.Join(dir, "global-memory-bank", "patched.json"))
			require.NoError(b, err)
			_ = res
			root, err := os.OpenRoot(b.TempDir())
			require.NoError(b, err)
			b.Cleanup(func() { _ = root.Close() })
			patch := jsonpatch.Patch{{Op: "replace", Path: "/content/items", Value: json.RawMessage(`[1,2,3]`)}}
			var floor, create, patchW []time.Duration
			i := 0
			for b.Loop() {
				i++
				t := time.Now()
				var v any
				if err := json.Unmarshal(doc, &v); err != nil {
					b.Fatal(err)
				}
				out, err := json.Marshal(v)
				if err != nil {
					b.Fatal(err)
				}
				if err := atomicfile.Write(root, "floor.json", out, nil); err != nil {
					b.Fatal(err)
				}
				floor = append(floor, time.Since(t))

				t = time.Now()
				if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: fmt.Sprintf("created/c%d-%d.json", b.N, i), Content: json.RawMessage(`{"n":1}`), Mode: memorybank.ModeCreate}); err != nil {
					b.Fatal(err)
				}
				create = append(create, time.Since(t))

				t = time.Now()
				if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "patched.json", Patches: patch}); err != nil {
					b.Fatal(err)
				}
				patchW = append(patchW, time.Since(t))
			}
			fm := reportPercentiles(b, "floor", floor)
			cm := reportPercentiles(b, "create", create)
			pm := reportPercentiles(b, "patch", patchW)
			b.ReportMetric(cm/fm, "create-x-floor")
			b.ReportMetric(pm/fm, "patch-x-floor")
			b.ReportMetric(0, "ns/op")
		})
	}
}

// reportPercentiles reports the median and p99 of ds in milliseconds under
// name and returns the median.
func reportPercentiles(b *testing.B, name string, ds []time.Duration) float64 {
	if len(ds) == 0 {
		return 0
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	med := ms(ds[len(ds)/2])
	b.ReportMetric(med, name+"-median-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, len(ds)*99/100)]), name+"-p99-ms")
	return med
}
