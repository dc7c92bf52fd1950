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
	"github.com/mnemobank/mnemobank/memorybank/history"
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
// that this process has not listed, every write pattern an agent uses,
// timed alternately with their floor: one durable atomic replace of a file
// of the same size (internal/atomicfile: write, fsync, rename, fsync of the
// directory) plus decoding and encoding the document once with
// encoding/json. Each iteration times, in this order: the floor; a create
// of a new document c{i}; a patch of c{i}, just created (so creates and
// patches alternate, as an agent's writes do); a patch of one hot document
// written every iteration; a delete of c{i}. It reports the median and p99
// of each pattern, "pair" (create plus patch of c{i}, per write), and the
// medians' ratios to the floor (x-floor). Medians should not grow with the
// bank. History is on, as by default.
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
			bank := memorybank.New(s, &memorybank.Options{History: history.New(nil)})
			g := memorybank.ScopeGlobal
			_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "patched.json", Content: json.RawMessage(`{"items":[],"note":"a document patched over and over"}`)})
			require.NoError(b, err)
			doc, err := os.ReadFile(filepath.Join(dir, "global-memory-bank", "patched.json"))
			require.NoError(b, err)
			root, err := os.OpenRoot(b.TempDir())
			require.NoError(b, err)
			b.Cleanup(func() { _ = root.Close() })
			patch := jsonpatch.Patch{{Op: "replace", Path: "/content/items", Value: json.RawMessage(`[1,2,3]`)}}
			var floor, create, patchNew, patchHot, pair, del []time.Duration
			i := 0
			timed := func(into *[]time.Duration, f func() error) time.Duration {
				t := time.Now()
				if err := f(); err != nil {
					b.Fatal(err)
				}
				d := time.Since(t)
				*into = append(*into, d)
				return d
			}
			for b.Loop() {
				i++
				timed(&floor, func() error {
					var v any
					if err := json.Unmarshal(doc, &v); err != nil {
						return err
					}
					out, err := json.Marshal(v)
					if err != nil {
						return err
					}
					return atomicfile.Write(root, "floor.json", out, nil)
				})
				p := fmt.Sprintf("created/c%d-%d.json", b.N, i)
				c := timed(&create, func() error {
					_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: p, Content: json.RawMessage(`{"items":[],"note":"a document created, then patched"}`), Mode: memorybank.ModeCreate})
					return err
				})
				pn := timed(&patchNew, func() error {
					_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: p, Patches: patch})
					return err
				})
				pair = append(pair, (c+pn)/2)
				timed(&patchHot, func() error {
					_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "patched.json", Patches: patch})
					return err
				})
				timed(&del, func() error {
					return bank.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: p})
				})
			}
			fm := reportPercentiles(b, "floor", floor)
			for _, m := range []struct {
				name string
				ds   []time.Duration
			}{{"create", create}, {"patch-new", patchNew}, {"patch-hot", patchHot}, {"pair", pair}, {"delete", del}} {
				b.ReportMetric(reportPercentiles(b, m.name, m.ds)/fm, m.name+"-x-floor")
			}
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
