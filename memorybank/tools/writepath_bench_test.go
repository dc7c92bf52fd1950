package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// writeCallArgs is the arguments of one write_branch_memory_bank call
// whose content holds about size bytes of text.
func writeCallArgs(path string, size int) json.RawMessage {
	var b strings.Builder
	fmt.Fprintf(&b, `{"branch":"main","path":%q,"content":{"schema":"memory_document_v2","content":{"notes":[`, path)
	for i := 0; b.Len() < size; i++ {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"note %d: the cache is warmed on start, and a miss reads the store"`, i)
	}
	b.WriteString(`]}}}`)
	return json.RawMessage(b.String())
}

func writeDef(tb testing.TB) tools.Def {
	tb.Helper()
	d, err := tools.Lookup(tools.Defs(memorybank.New(&memorybank.MemStore{}, nil)), tools.WriteBranchMemoryBank)
	require.NoError(tb, err)
	return d
}

// BenchmarkWriteCall is one write call through the tools layer, from the
// arguments as a transport hands them over to the stored document: its
// B/op divided by the arguments' size is how many times the content is
// copied on the way (the Put's own copy and the index's included).
func BenchmarkWriteCall(b *testing.B) {
	for _, size := range []int{4 << 10, 256 << 10} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			d := writeDef(b)
			args := writeCallArgs("notes.json", size)
			ctx := context.Background()
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Handle(ctx, tools.Env{}, args); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(0, "ns/op") // load makes wall time meaningless here
		})
		// The same arguments to a write that Bank.Write refuses before it
		// reads the content (mode update of a missing document): what the
		// tools layer's decoding costs alone.
		b.Run(fmt.Sprintf("decode/%dKiB", size>>10), func(b *testing.B) {
			d := writeDef(b)
			args := json.RawMessage(strings.Replace(string(writeCallArgs("missing.json", size)), `"branch":"main",`, `"branch":"main","mode":"update",`, 1))
			ctx := context.Background()
			b.SetBytes(int64(len(args)))
			b.ReportAllocs()
			for b.Loop() {
				if _, err := d.Handle(ctx, tools.Env{}, args); err == nil {
					b.Fatal("an update of a missing document succeeded")
				}
			}
			b.ReportMetric(0, "ns/op")
		})
	}
}

// bytesAllocated is the bytes f allocates, averaged over n runs.
func bytesAllocated(n int, f func()) float64 {
	f() // warm caches (schemas are derived once)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	for range n {
		f()
	}
	runtime.ReadMemStats(&after)
	return float64(after.TotalAlloc-before.TotalAlloc) / float64(n)
}

// The tools layer copies a write's content once, into the decoded
// argument: the arguments are validated whole and split in place, and the
// envelope is looked into without decoding it. Decoding them member by
// member and the envelope into a map cost about seven times their size.
func TestWriteArgumentsAreCopiedOnce(t *testing.T) {
	d := writeDef(t)
	args := json.RawMessage(strings.Replace(string(writeCallArgs("missing.json", 256<<10)), `"branch":"main",`, `"branch":"main","mode":"update",`, 1))
	ctx := context.Background()
	var err error
	got := bytesAllocated(5, func() { _, err = d.Handle(ctx, tools.Env{}, args) })
	require.ErrorIs(t, err, memorybank.ErrNotFound, "the update is refused after decoding, before the content is read")
	assert.Less(t, got, 1.5*float64(len(args)), "bytes allocated by one call with %d bytes of arguments", len(args))
}
