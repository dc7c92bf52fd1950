package stdio

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// BenchmarkToolCallText is the transport's look at the text of a tool call
// whose arguments hold 256 KiB: the whole line checked as well as its depth
// (as before the tools owned the arguments' check) against the arguments
// left out, timed alternately in one loop so that load on the machine
// weighs on both alike. ratio is before/after.
func BenchmarkToolCallText(b *testing.B) {
	var sb strings.Builder
	sb.WriteString(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"write_branch_memory_bank","arguments":{"branch":"main","path":"notes.md","content":"`)
	for sb.Len() < 256<<10 {
		fmt.Fprintf(&sb, "note %d: the cache is warmed on start — a miss reads the store. ", sb.Len())
	}
	sb.WriteString(`"}}}`)
	line := []byte(sb.String())
	var before, after time.Duration
	b.SetBytes(int64(len(line)))
	for b.Loop() {
		t0 := time.Now()
		over, _ := scanLine(line, maxLineDepth)
		at, _ := jsontext.Check(line)
		t1 := time.Now()
		over2, args := scanLine(line, maxLineDepth)
		at2, _ := jsontext.CheckOutside(line, args[0], args[1])
		t2 := time.Now()
		if over || over2 || at >= 0 || at2 >= 0 || args[0] < 0 {
			b.Fatal("the line was refused")
		}
		before += t1.Sub(t0)
		after += t2.Sub(t1)
	}
	b.ReportMetric(float64(before.Nanoseconds())/float64(b.N), "before-ns/op")
	b.ReportMetric(float64(after.Nanoseconds())/float64(b.N), "after-ns/op")
	b.ReportMetric(float64(before)/float64(after), "ratio")
}
