package foreign_test

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
)

// checkDocs: a reader returns Docs with valid bank paths under prefix, or
// a *SourceError wrapping one of the sentinels; never both, never a panic.
// Whatever it returns imports into a fresh bank without a store error.
func checkDocs(t *testing.T, docs []foreign.Doc, err error, prefix string) {
	t.Helper()
	if err != nil {
		var se *foreign.SourceError
		if !errors.As(err, &se) || !(errors.Is(err, foreign.ErrFormat) || errors.Is(err, foreign.ErrLimit) || errors.Is(err, foreign.ErrUnsafePath)) {
			t.Fatalf("error %v is not a SourceError with a sentinel", err)
		}
		if docs != nil {
			t.Fatalf("docs and an error")
		}
		return
	}
	for _, d := range docs {
		if d.NotRead != "" {
			// Left out and only reported: it has no path in the bank.
			if d.Path != "" || d.Source == "" {
				t.Fatalf("a file not read has path %q, source %q", d.Path, d.Source)
			}
			continue
		}
		if !strings.HasPrefix(d.Path, prefix) || memorybank.ValidateKey(d.Path) != nil {
			t.Fatalf("path %q", d.Path)
		}
	}
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	if _, err := foreign.Import(context.Background(), bank, docs, &foreign.Options{Apply: true}); err != nil {
		t.Fatalf("import: %v", err)
	}
}

func FuzzReadMCPMemory(f *testing.F) {
	sample, _ := os.ReadFile("testdata/mcp-memory/memory.jsonl")
	f.Add(sample)
	f.Add([]byte(`{"type":"entity","name":"","observations":["\u0000"]}` + "\n" + `{"type":"relation","from":"","to":"x"}`))
	f.Add([]byte("{\"type\":\"entity\",\"name\":\"../..\"}\r\n\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := foreign.ReadMCPMemory(bytes.NewReader(data), "fuzz", "", &foreign.Limits{MaxFileBytes: 4096, MaxFiles: 64})
		checkDocs(t, docs, err, foreign.MCPMemoryPrefix)
	})
}

func FuzzReadMemoryStore(f *testing.F) {
	sample, _ := os.ReadFile("testdata/memory-store/listing.json")
	f.Add(sample)
	f.Add([]byte(`[{"path":"/a/../b.md","content":"x"},{"type":"memory_prefix","path":"/a/"}]`))
	f.Add([]byte(`{"data":[{"path":"/x.md","content":"---\n: [\n---\n"}]}`))
	f.Fuzz(func(t *testing.T, data []byte) {
		docs, err := foreign.ReadMemoryStore(bytes.NewReader(data), "fuzz", &foreign.Limits{MaxFileBytes: 4096, MaxFiles: 64})
		checkDocs(t, docs, err, foreign.MemoryStorePrefix)
	})
}

// FuzzReadMarkdownDir fuzzes the directory readers with one file of
// fuzzed name and text (and the claude-code reader over the same tree).
func FuzzReadMarkdownDir(f *testing.F) {
	f.Add("note.md", []byte("---\ntags: [a]\n---\n# A\n"))
	f.Add("CLAUDE.md", []byte("# x"))
	f.Add("MEMORY.md", []byte("- [a](a.md)"))
	f.Add("a b/ü.markdown", []byte("---\n- not a map\n---\n"))
	f.Fuzz(func(t *testing.T, name string, text []byte) {
		if name == "" || strings.ContainsRune(name, 0) || len(name) > 200 || !fs.ValidPath(name) || name == "." {
			return
		}
		// A directory in memory: the readers take any fs.FS, and the
		// fuzzer's files need no disk.
		fsys := fstest.MapFS{name: {Data: text}}
		docs, err := foreign.ReadMarkdownDir(fsys, "fuzz", "", &foreign.DirOptions{Limits: foreign.Limits{MaxFileBytes: 4096}})
		checkDocs(t, docs, err, foreign.MarkdownPrefix)
		docs, err = foreign.ReadClaudeCode(fsys, "fuzz", "", &foreign.DirOptions{Limits: foreign.Limits{MaxFileBytes: 4096}})
		checkDocs(t, docs, err, foreign.ClaudeCodePrefix)
	})
}
