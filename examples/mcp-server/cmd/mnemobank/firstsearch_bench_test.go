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
// MB), in a fresh server each iteration, on two banks:
//   - "unindexed": the documents as other tools leave them, never searched
//     by mnemobank (a fresh copy each iteration), so the server reads and
//     analyses every document;
//   - "indexed": the same documents after one earlier server searched them,
//     which left the branch's full-text index beside it (.textindex.bin, as
//     a session that searched or warmed the bank leaves it).
//
// "at-once" searches as soon as the session is up; "after-context" first
// reads the context of main, as an agent starts, and waits a second (a
// model's turn takes longer), then searches: the server indexes the banks
// in the background from its start, so it finds the index ready. Medians.
func BenchmarkFirstSearch(b *testing.B) {
	pristine := chatBranchBank(b)
	query := fmt.Sprintf(`{"query":%q,"scope":"branch","branch":"feature/chat"}`, "retry a flaky test after a timeout")
	copyBank := func() string {
		dst := filepath.Join(b.TempDir(), "docs")
		require.NoError(b, os.CopyFS(dst, os.DirFS(pristine)))
		return dst
	}
	indexed := copyBank()
	s := connectStdio(b, nil, indexed, "--language", "en")
	timedCall(b, s, "search_documents", query)
	_ = s.Close()
	dir, err := memorybank.BranchDir("feature/chat")
	require.NoError(b, err)
	_, err = os.Stat(filepath.Join(indexed, memorybank.BranchPrefix, dir, ".textindex.bin"))
	require.NoError(b, err, "a search left no full-text index beside the branch")

	ds := map[string][]time.Duration{}
	firstSearch := func(name, root string, afterContext bool) {
		b.StopTimer()
		s := connectStdio(b, nil, root, "--language", "en")
		if afterContext {
			timedCall(b, s, "read_context", `{"branch":"main"}`)
			time.Sleep(time.Second)
		}
		b.StartTimer()
		ds[name] = append(ds[name], timedCall(b, s, "search_documents", query))
		b.StopTimer()
		_ = s.Close()
		b.StartTimer()
	}
	for b.Loop() {
		b.StopTimer()
		fresh, fresh2 := copyBank(), copyBank()
		b.StartTimer()
		firstSearch("indexed-at-once", indexed, false)
		firstSearch("unindexed-at-once", fresh, false)
		firstSearch("indexed-after-context", indexed, true)
		firstSearch("unindexed-after-context", fresh2, true)
	}
	names := make([]string, 0, len(ds))
	for name := range ds {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		m := ds[name]
		slices.Sort(m)
		b.ReportMetric(float64(m[len(m)/2])/float64(time.Millisecond), name+"-median-ms")
	}
	b.ReportMetric(0, "ns/op")
}
