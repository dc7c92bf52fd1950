package ui_test

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// Sizes of BenchmarkPages: the 10,000 documents and 40,000
// memories.
const (
	benchGlobalDocs  = 8000
	benchBranches    = 4
	benchBranchDocs  = 500 // each
	benchMemories    = 40000
	benchDocVersions = 20
)

// BenchmarkPages measures the server time of each page, warm (the bank's
// index and the memories' index built by a first request), on a bank of
// 10,000 documents in a directory (fsstore) and a memories file of 40,000
// entries. ms/op is the mean; median-ms the median of the iterations,
// the figure the issue bounds (20 ms).
//
//	go test -run '^$' -bench BenchmarkPages -benchtime 50x ./ui
func BenchmarkPages(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "docs")
	words := []string{"database", "migration", "login", "cache", "deploy", "index", "token", "queue", "schema", "retry"}
	writeFile := func(rel, text string) {
		p := filepath.Join(root, filepath.FromSlash(rel))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(text), 0o644))
	}
	note := func(i int) string {
		return fmt.Sprintf("# Note %d about %s\n\ntags: #%s #area%d\n\nThe %s of service %d uses %s; see the %s notes before changing it.\n",
			i, words[i%10], words[i%10], i%50, words[i%10], i, words[(i/10)%10], words[(i/100)%10])
	}
	for i := range benchGlobalDocs {
		writeFile(fmt.Sprintf("global-memory-bank/notes/%03d/note-%05d.md", i/100, i), note(i))
	}
	for br := range benchBranches {
		for i := range benchBranchDocs {
			writeFile(fmt.Sprintf("branch-memory-bank/feature-%d/notes/note-%05d.md", br, i), note(i))
		}
	}
	store, err := fsstore.Open(root, nil)
	require.NoError(b, err)
	defer store.Close()
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	ctx := b.Context()
	for v := range benchDocVersions {
		_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md",
			Text: fmt.Sprintf("# Architecture\n\nRevision %d.\n\n%s", v, note(v)), Actor: "agent", Reason: fmt.Sprintf("revision %d", v)})
		require.NoError(b, err)
	}

	memFile := filepath.Join(dir, ".agent", "memories.md")
	require.NoError(b, os.MkdirAll(filepath.Dir(memFile), 0o755))
	data := []byte(memories.Header)
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := range benchMemories {
		entry, err := memories.EncodeEntry(memories.Memory{
			ID: fmt.Sprintf("mem-%d-%08x", day.Unix()+int64(i), i), Tags: []string{"lesson", fmt.Sprintf("area-%d", i%50)},
			Date:    day.AddDate(0, 0, i/100).Format(time.DateOnly),
			Content: fmt.Sprintf("Memory %d: when the %s step fails with error E%04d, check the %s settings first", i, words[i%10], i%10000, words[(i/10)%10]),
		})
		require.NoError(b, err)
		data = append(data, entry...)
	}
	require.NoError(b, os.WriteFile(memFile, data, 0o644))
	mem, err := memories.New(filestore.New(memFile, nil), &memories.Options{Trash: filestore.New(filepath.Join(dir, ".agent", "memories.trash.md"), nil)})
	require.NoError(b, err)

	h, err := ui.New(ui.Options{Bank: bank, Memories: mem})
	require.NoError(b, err)
	defer h.Close()

	doc := url.Values{"scope": {"global"}, "path": {"architecture.md"}}.Encode()
	for _, p := range []struct {
		name, url, want string
		recount         bool // the banks page without its counting of the last second
	}{
		{"banks", "/ui/", "feature-3", false},
		{"banks-recount", "/ui/", "feature-3", true},
		{"documents", "/ui/docs?scope=global&offset=5000", "note-04", false},
		{"document", "/ui/doc?" + doc, "Revision 19", false},
		{"history", "/ui/history?" + doc, "revision 0", false},
		{"diff", "/ui/diff?" + doc + "&from=1&to=20", `id="diff"`, false},
		{"search", "/ui/search?q=database+migration&scope=all", "Note", false},
		{"memories", "/ui/memories?offset=20000", "Memory 20000", false},
		// A word of every memory: the whole file is scanned for it.
		{"memories-search", "/ui/memories?q=deploy+settings+E0042", "Memory", false},
		{"memories-search-rare", "/ui/memories?q=E0042", "Memory 42:", false},
	} {
		b.Run(p.name, func(b *testing.B) {
			serve := func() *httptest.ResponseRecorder {
				req := httptest.NewRequest(http.MethodGet, p.url, nil)
				req.Host = "localhost:7777"
				rec := httptest.NewRecorder()
				h.ServeHTTP(rec, req)
				return rec
			}
			rec := serve() // warm: the indexes are built once per process
			require.Equal(b, http.StatusOK, rec.Code, rec.Body.String())
			require.Contains(b, rec.Body.String(), p.want)
			var times []time.Duration
			b.ResetTimer()
			for b.Loop() {
				if p.recount {
					h.ForgetBanks()
				}
				start := time.Now()
				if rec := serve(); rec.Code != http.StatusOK {
					b.Fatalf("%s: %d", p.url, rec.Code)
				}
				times = append(times, time.Since(start))
			}
			slices.Sort(times)
			b.ReportMetric(float64(b.Elapsed().Microseconds())/1000/float64(b.N), "ms/op")
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}
