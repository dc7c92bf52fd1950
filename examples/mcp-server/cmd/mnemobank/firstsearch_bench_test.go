package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// chatBranchBank returns a bank directory whose branch "feature/chat"
// holds 50 chat-length documents (about 10 KB of sentences each, 0.5 MB),
// written straight to disk as a session's notes are, never read by a
// server; and "main" a few core files.
func chatBranchBank(b *testing.B) string {
	root := filepath.Join(b.TempDir(), "docs")
	store, err := fsstore.Open(root, nil)
	require.NoError(b, err)
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	ctx := context.Background()
	_, err = bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"})
	require.NoError(b, err)
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/chat", Path: "activeContext.md", Text: "# Active context\n\nReviewing the chat notes.\n"})
	require.NoError(b, err)
	require.NoError(b, store.Close())
	dir, err := memorybank.BranchDir("feature/chat")
	require.NoError(b, err)
	for i := range 50 {
		var text strings.Builder
		fmt.Fprintf(&text, "# Session %d\n\n", i)
		for k := 0; text.Len() < 10_000; k++ {
			text.WriteString(searchSentence(i*100 + k))
			text.WriteString(".\n")
		}
		p := filepath.Join(root, memorybank.BranchPrefix, dir, "notes", fmt.Sprintf("s%02d.md", i))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(text.String()), 0o644))
	}
	return root
}

// BenchmarkFirstSearch: what the user sees of the first search_documents
// over a branch the server has not read (50 chat-length documents, 0.5
// MB), in a fresh server each iteration: "at-once" searches as soon as the
// session is up; "after-context" first reads the context of main, as an
// agent starts, and waits a second (a model's turn takes longer), then searches. The
// server indexes the banks in the background from its start, so the
// second finds the index ready. Medians.
func BenchmarkFirstSearch(b *testing.B) {
	root := chatBranchBank(b)
	query := fmt.Sprintf(`{"query":%q,"scope":"branch","branch":"feature/chat"}`, "retry a flaky test after a timeout")
	var atOnce, after []time.Duration
	for b.Loop() {
		b.StopTimer()
		s := connectStdio(b, nil, root, "--language", "en")
		b.StartTimer()
		atOnce = append(atOnce, timedCall(b, s, "search_documents", query))
		b.StopTimer()
		_ = s.Close()
		s = connectStdio(b, nil, root, "--language", "en")
		timedCall(b, s, "read_context", `{"branch":"main"}`)
		time.Sleep(time.Second)
		b.StartTimer()
		after = append(after, timedCall(b, s, "search_documents", query))
		b.StopTimer()
		_ = s.Close()
		b.StartTimer()
	}
	for _, m := range []struct {
		name string
		ds   []time.Duration
	}{{"at-once", atOnce}, {"after-context", after}} {
		slices.Sort(m.ds)
		if len(m.ds) > 0 {
			b.ReportMetric(float64(m.ds[len(m.ds)/2])/float64(time.Millisecond), m.name+"-median-ms")
		}
	}
	b.ReportMetric(0, "ns/op")
}
