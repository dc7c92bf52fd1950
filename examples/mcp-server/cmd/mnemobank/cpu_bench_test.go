package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"
)

// processCPUOf is the CPU time (user and system) process pid has used,
// from /proc/pid/stat; ok is false where there is no such file.
func processCPUOf(pid int) (d time.Duration, ok bool) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, false
	}
	// The fields after the command name, which is in parentheses and may
	// hold spaces: utime and stime are the 12th and 13th of them.
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
	if len(f) < 13 {
		return 0, false
	}
	u, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	const ticks = 100 // USER_HZ, 100 on every Linux the benchmark runs on
	return time.Duration(u+st) * time.Second / ticks, true
}

// BenchmarkReadContextCPU: warm read_context of the 1,000-document bank
// through the server over stdio, as read_context_warm_1000 of
// BenchmarkCalls, with the CPU time the server spent per call beside the
// median wall time: on a loaded machine the wall time is mostly waiting
// for a core.
func BenchmarkReadContextCPU(b *testing.B) {
	root := bankOf1000(b)
	cmd := exec.Command(serverBinary(b), "--root", root, "--language", "en")
	s, err := newClient(nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = s.Close() })
	timedCall(b, s, "read_context", `{"branch":"main"}`)
	// What the server's background warm-up builds (the credential rules,
	// the search indexes) is built now, so its CPU is not counted as the
	// calls'.
	timedCall(b, s, "search_documents", `{"query":"note"}`)
	timedCall(b, s, "write_global_memory_bank", `{"path":"warm.json","content":{"n":1}}`)
	var ds []time.Duration
	c0, ok := processCPUOf(cmd.Process.Pid)
	for b.Loop() {
		ds = append(ds, timedCall(b, s, "read_context", `{"branch":"main"}`))
	}
	c1, _ := processCPUOf(cmd.Process.Pid)
	slices.Sort(ds)
	b.ReportMetric(float64(ds[len(ds)/2])/float64(time.Millisecond), "median-ms")
	if ok {
		b.ReportMetric(float64(c1-c0)/float64(time.Millisecond)/float64(len(ds)), "server-cpu-ms/call")
	}
	b.ReportMetric(0, "ns/op")
}
