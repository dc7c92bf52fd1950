package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/peakrss"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// The benchmarks drive the built server through the SDK's client over
// stdio, on a bank on disk, as an agent's client does:
//
//	go test -run '^$' -bench . -benchtime 200x
//
// Each reports the median and the 99th percentile of one call, from the
// client's request to its answer.

// reportLatencies reports the median and p99 of ds in milliseconds.
func reportLatencies(b *testing.B, ds []time.Duration) {
	if len(ds) == 0 {
		return
	}
	slices.Sort(ds)
	ms := func(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
	b.ReportMetric(ms(ds[len(ds)/2]), "median-ms")
	b.ReportMetric(ms(ds[min(len(ds)-1, len(ds)*99/100)]), "p99-ms")
	b.ReportMetric(0, "ns/op") // the percentiles say it better than a mean
}

// timedCall calls a tool and returns how long the answer took.
func timedCall(b *testing.B, s *mcp.ClientSession, name string, args string) time.Duration {
	start := time.Now()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	d := time.Since(start)
	if err != nil || res.IsError {
		b.Fatalf("%s %s: %v %v", name, args, err, res)
	}
	return d
}

// BenchmarkStartup: from starting the process to the answer to the first
// tools/list (the initialize handshake included), timed alternately with
// the same for a minimal Go SDK server with one tool
// (testdata/minimalserver), started the same way; x-minimal is the ratio of
// the medians. On an empty bank and on one of 1,000 documents written
// straight to disk (as bench/peers.mjs starts it): opening a bank must not
// cost more as it grows.
func BenchmarkStartup(b *testing.B) {
	bin, minimal := serverBinary(b), minimalServerBinary(b)
	for _, n := range []int{0, 1000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			tmp := b.TempDir()
			root, memFile := filepath.Join(tmp, "docs"), filepath.Join(tmp, "memories.md")
			dir := filepath.Join(root, "global-memory-bank", "docs")
			require.NoError(b, os.MkdirAll(dir, 0o755))
			for i := range n {
				require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d.md", i)), []byte(fmt.Sprintf("# Note %d\nA decision.\n", i)), 0o644))
			}
			start := func(cmd *exec.Cmd) time.Duration {
				t := time.Now()
				s, err := newClient(nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
				require.NoError(b, err)
				_, err = s.ListTools(context.Background(), nil)
				require.NoError(b, err)
				d := time.Since(t)
				b.StopTimer()
				_ = s.Close()
				b.StartTimer()
				return d
			}
			var ds, ms []time.Duration
			for b.Loop() {
				ds = append(ds, start(exec.Command(bin, "--root", root, "--memories", memFile)))
				ms = append(ms, start(exec.Command(minimal)))
			}
			reportLatencies(b, ds)
			if len(ms) > 0 {
				slices.Sort(ms)
				b.ReportMetric(float64(ms[len(ms)/2])/float64(time.Millisecond), "minimal-median-ms")
				b.ReportMetric(float64(ds[len(ds)/2])/float64(ms[len(ms)/2]), "x-minimal")
			}
		})
	}
}

// minimalServerBinary builds testdata/minimalserver once.
func minimalServerBinary(b *testing.B) string {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "minimalserver")
	if out, err := exec.Command("go", "build", "-o", bin, "./testdata/minimalserver").CombinedOutput(); err != nil {
		b.Fatalf("go build: %s", out)
	}
	return bin
}

// bankOf1000 returns a bank directory holding 1,000 documents in the
// branch bank of "main" (with its core files) and 20 in the global bank.
func bankOf1000(b *testing.B) string {
	root := filepath.Join(b.TempDir(), "docs")
	store, err := fsstore.Open(root, nil)
	require.NoError(b, err)
	defer store.Close()
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	ctx := context.Background()
	_, err = bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"})
	require.NoError(b, err)
	for i := range 1000 {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "main",
			Path: fmt.Sprintf("notes/n%04d.json", i), Content: json.RawMessage(fmt.Sprintf(`{"n":%d,"text":"a note of some length, like a decision or a finding"}`, i)),
			Tags: []string{"note"}})
		require.NoError(b, err)
	}
	for i := range 20 {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("core/g%02d.md", i), Text: "# Global\nshared knowledge\n"})
		require.NoError(b, err)
	}
	return root
}

func BenchmarkCalls(b *testing.B) {
	root := bankOf1000(b)
	s := connectStdio(b, nil, root, "--language", "en")
	timedCall(b, s, "write_global_memory_bank", `{"path":"patched.json","content":{"items":[]}}`)

	b.Run("create", func(b *testing.B) {
		var ds []time.Duration
		i := 0
		for b.Loop() {
			i++
			ds = append(ds, timedCall(b, s, "write_global_memory_bank",
				fmt.Sprintf(`{"path":"created/c%d-%d.json","content":{"n":%d},"mode":"create"}`, b.N, i, i)))
		}
		reportLatencies(b, ds)
	})
	b.Run("patch", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			ds = append(ds, timedCall(b, s, "write_global_memory_bank",
				`{"path":"patched.json","patches":[{"op":"replace","path":"/content/items","value":[1,2,3]}]}`))
		}
		reportLatencies(b, ds)
	})
	b.Run("read_context_warm_1000", func(b *testing.B) {
		timedCall(b, s, "read_context", `{"branch":"main"}`)
		var ds []time.Duration
		for b.Loop() {
			ds = append(ds, timedCall(b, s, "read_context", `{"branch":"main"}`))
		}
		reportLatencies(b, ds)
	})
	b.Run("read_context_first_1000", func(b *testing.B) {
		var ds []time.Duration
		for b.Loop() {
			b.StopTimer()
			fresh := connectStdio(b, nil, root, "--language", "en")
			b.StartTimer()
			ds = append(ds, timedCall(b, fresh, "read_context", `{"branch":"main"}`))
			b.StopTimer()
			_ = fresh.Close()
			b.StartTimer()
		}
		reportLatencies(b, ds)
	})
}

// BenchmarkPeakMemory: the server's own peak resident memory (VmHWM in its
// /proc status, read before it exits) after start-up, a
// first and 20 warm read_context calls on the 1,000-document bank, 50
// creates and 50 patches; one process per iteration. It reports the median
// and the largest peak, which varies with when the garbage collector ran.
func BenchmarkPeakMemory(b *testing.B) {
	root := bankOf1000(b)
	var peaks []float64
	for b.Loop() {
		cmd := exec.Command(serverBinary(b), "--root", root, "--language", "en")
		s, err := newClient(nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(b, err)
		for range 21 {
			timedCall(b, s, "read_context", `{"branch":"main"}`)
		}
		timedCall(b, s, "write_global_memory_bank", `{"path":"p.json","content":{"items":[]}}`)
		for i := range 50 {
			timedCall(b, s, "write_global_memory_bank", fmt.Sprintf(`{"path":"m/c%d.json","content":{"n":%d}}`, i, i))
			timedCall(b, s, "write_global_memory_bank", `{"path":"p.json","patches":[{"op":"add","path":"/content/items/-","value":1}]}`)
		}
		peak, err := peakrss.MiB(cmd.Process.Pid) // before Close: the server's own /proc entry
		require.NoError(b, s.Close())
		if err != nil {
			b.Skipf("peak memory not measured: %v", err)
		}
		peaks = append(peaks, peak)
	}
	if len(peaks) > 0 {
		slices.Sort(peaks)
		b.ReportMetric(peaks[len(peaks)/2], "median-peak-RSS-MiB")
		b.ReportMetric(peaks[len(peaks)-1], "max-peak-RSS-MiB")
	}
}

// BenchmarkWritesBankSize: create and patch through the server in global
// banks of 100, 1,000 and 10,000 documents written straight to disk (as an
// existing bank is, never listed by the server before), timed alternately;
// neither should grow with the bank.
func BenchmarkWritesBankSize(b *testing.B) {
	for _, n := range []int{100, 1000, 10_000} {
		b.Run(fmt.Sprintf("docs=%d", n), func(b *testing.B) {
			root := filepath.Join(b.TempDir(), "docs")
			dir := filepath.Join(root, "global-memory-bank", "docs")
			require.NoError(b, os.MkdirAll(dir, 0o755))
			for i := range n {
				doc := fmt.Sprintf(`{"schema":"memory_document_v2","metadata":{"id":"d%d","title":"Document %d","documentType":"note","path":"docs/%05d.json","tags":["all"],"lastModified":"2025-03-17T09:00:00.000Z","createdAt":"2025-03-17T09:00:00.000Z","version":1},"content":{"text":"note %d"}}`, i, i, i, i)
				require.NoError(b, os.WriteFile(filepath.Join(dir, fmt.Sprintf("%05d.json", i)), []byte(doc), 0o644))
			}
			s := connectStdio(b, nil, root, "--language", "en")
			timedCall(b, s, "write_global_memory_bank", `{"path":"patched.json","content":{"items":[]}}`)
			var creates, patches []time.Duration
			i := 0
			for b.Loop() {
				i++
				creates = append(creates, timedCall(b, s, "write_global_memory_bank",
					fmt.Sprintf(`{"path":"created/c%d-%d.json","content":{"n":%d},"mode":"create"}`, b.N, i, i)))
				patches = append(patches, timedCall(b, s, "write_global_memory_bank",
					`{"path":"patched.json","patches":[{"op":"replace","path":"/content/items","value":[1,2,3]}]}`))
			}
			report := func(name string, ds []time.Duration) {
				if len(ds) == 0 {
					return
				}
				slices.Sort(ds)
				b.ReportMetric(float64(ds[len(ds)/2])/float64(time.Millisecond), name+"-median-ms")
				b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*99/100)])/float64(time.Millisecond), name+"-p99-ms")
			}
			report("create", creates)
			report("patch", patches)
			b.ReportMetric(0, "ns/op")
		})
	}
}

// searchWords make the short documents and memories of the search
// latency benchmark: sentences of a small vocabulary, as notes are.
var searchWords = strings.Fields(`adapter error retry cache deploy database migration index query token budget branch
review test flaky timeout lock conflict version history revert schema validation search memory agent user prefers short answers
always wrap calls logs metrics release build pipeline config secret rotate backup restore latency throughput queue worker`)

func searchSentence(i int) string {
	var b strings.Builder
	for k := range 12 {
		if k > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(searchWords[(i*7+k*13+k*k*i)%len(searchWords)])
	}
	return b.String()
}

// BenchmarkSearchLatency: warm search_documents on a bank of 6,000 short
// documents and search_memories on a memories file of 6,000 entries,
// through the server over stdio, with sentence queries; median and p95
// per call.
func BenchmarkSearchLatency(b *testing.B) {
	const n = 6000
	dir := b.TempDir()
	root := filepath.Join(dir, "docs")
	store, err := fsstore.Open(root, nil)
	require.NoError(b, err)
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	ctx := context.Background()
	for i := range n {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("notes/n%05d.md", i), Text: "# Note " + fmt.Sprint(i) + "\n\n" + searchSentence(i) + "\n"})
		require.NoError(b, err)
	}
	require.NoError(b, store.Close())
	var mem strings.Builder
	mem.WriteString(memories.Header)
	for i := range n {
		fmt.Fprintf(&mem, "## %s\n- Date: 2026-11-01\n- Content: %s\n\n", searchSentence(i + n)[:30], searchSentence(i+n))
	}
	memFile := filepath.Join(dir, "memories.md")
	require.NoError(b, os.WriteFile(memFile, []byte(mem.String()), 0o644))
	s := connectStdio(b, nil, root, "--language", "en", "--memories", memFile)
	queries := []string{"how do I retry a flaky test after a timeout", "what did the user say about short answers",
		"database migration rollback and backup restore", "which lock conflict broke the release pipeline"}
	for _, q := range queries { // warm: the first search builds the index
		timedCall(b, s, "search_documents", fmt.Sprintf(`{"query":%q}`, q))
		timedCall(b, s, "search_memories", fmt.Sprintf(`{"query":%q}`, q))
	}
	for _, tool := range []string{"search_documents", "search_memories"} {
		b.Run(tool, func(b *testing.B) {
			var ds []time.Duration
			i := 0
			for b.Loop() {
				ds = append(ds, timedCall(b, s, tool, fmt.Sprintf(`{"query":%q}`, queries[i%len(queries)])))
				i++
			}
			reportLatencies(b, ds)
			slices.Sort(ds)
			b.ReportMetric(float64(ds[min(len(ds)-1, len(ds)*95/100)])/float64(time.Millisecond), "p95-ms")
		})
	}
}
