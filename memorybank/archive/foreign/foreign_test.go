package foreign_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// paths are the paths of the docs read (not those left out).
func paths(docs []foreign.Doc) []string {
	out := []string{}
	for _, d := range docs {
		if d.NotRead == "" {
			out = append(out, d.Path)
		}
	}
	return out
}

// notRead maps each file left out to why.
func notRead(docs []foreign.Doc) map[string]string {
	out := map[string]string{}
	for _, d := range docs {
		if d.NotRead != "" {
			out[d.Source] = d.NotRead
		}
	}
	return out
}

func dirOpts(l *foreign.Limits) *foreign.DirOptions {
	if l == nil {
		return nil
	}
	return &foreign.DirOptions{Limits: *l}
}

func byPath(docs []foreign.Doc) map[string]foreign.Doc {
	m := map[string]foreign.Doc{}
	for _, d := range docs {
		m[d.Path] = d
	}
	return m
}

// dirFS is dir as the program gives it: an os.Root's FS, which refuses
// links that leave it.
func dirFS(t *testing.T, dir string) fs.FS {
	t.Helper()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return root.FS()
}

// copyTree copies testdata dir src to a temporary directory, so tests can
// add what git cannot hold (.git, node_modules, links).
func copyTree(t *testing.T, src string) string {
	t.Helper()
	dst := t.TempDir()
	require.NoError(t, os.CopyFS(dst, os.DirFS(src)))
	return dst
}

func TestReadClaudeCodeProject(t *testing.T) {
	dir := copyTree(t, "testdata/claude-code/project")
	for _, d := range []string{".git", "node_modules/dep", "vendor/.cache"} {
		require.NoError(t, os.MkdirAll(filepath.Join(dir, d), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, d, "CLAUDE.md"), []byte("# not read\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".claude", "settings.json"), []byte("{}"), 0o644))
	docs, err := foreign.ReadClaudeCode(dirFS(t, dir), dir, "", &foreign.DirOptions{IncludeLocal: true})
	require.NoError(t, err)
	assert.Equal(t, []string{
		"claude-code/claude/CLAUDE.md", "claude-code/claude/rules/testing.md",
		"claude-code/CLAUDE.local.md", "claude-code/CLAUDE.md",
		"claude-code/api/CLAUDE.md",
	}, paths(docs))
	assert.Empty(t, notRead(docs), "the rest of a project is left out without a word")
	want, err := os.ReadFile("testdata/claude-code/project/.claude/rules/testing.md")
	require.NoError(t, err)
	assert.Equal(t, string(want), byPath(docs)["claude-code/claude/rules/testing.md"].Text)
	assert.Equal(t, ".claude/rules/testing.md", byPath(docs)["claude-code/claude/rules/testing.md"].Source)
}

func TestReadClaudeCodeAutoMemory(t *testing.T) {
	require.True(t, foreign.IsAutoMemoryDir(dirFS(t, "testdata/claude-code/memory")))
	docs, err := foreign.ReadClaudeCode(dirFS(t, "testdata/claude-code/memory"), "testdata/claude-code/memory", "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude-code/memory/MEMORY.md", "claude-code/memory/feedback_testing.md",
		"claude-code/memory/project_release.md", "claude-code/memory/user_role.md"}, paths(docs))

	bank := memorybank.New(&memorybank.MemStore{}, nil)
	res, err := foreign.Import(context.Background(), bank, docs, &foreign.Options{Apply: true, Source: "claude-code"})
	require.NoError(t, err)
	assert.Equal(t, foreign.Result{Applied: true, Created: 4}, *res)
	d, err := bank.Read(context.Background(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "claude-code/memory/feedback_testing.md"})
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(d.Text(), "\nIntegration tests must hit a real database"), d.Text())
	assert.Contains(t, string(d.Metadata), `"type":"feedback"`, "the topic file's front matter is the document's")
}

func TestReadMCPMemory(t *testing.T) {
	f, err := os.Open("testdata/mcp-memory/memory.jsonl")
	require.NoError(t, err)
	defer f.Close()
	docs, err := foreign.ReadMCPMemory(f, "memory.jsonl", "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp-memory/mnemobank.md", "mcp-memory/ada-lovelace.md", "mcp-memory/fsstore.md",
		"mcp-memory/etc-passwd.md", "mcp-memory/日本語のメモ.md", "mcp-memory/empty.md"}, paths(docs))
	fs := byPath(docs)["mcp-memory/fsstore.md"]
	assert.Equal(t, "fsstore", fs.Source)
	assert.Contains(t, fs.Text, "- fsyncs every write\n")
	assert.Contains(t, fs.Text, "- is reviewed by [[Ada Lovelace]]\n")
	assert.Contains(t, fs.Text, "- [[mnemobank]] uses\n")

	bank := memorybank.New(&memorybank.MemStore{}, nil)
	ctx := context.Background()
	res, err := foreign.Import(ctx, bank, docs, &foreign.Options{Apply: true})
	require.NoError(t, err)
	assert.Equal(t, 6, res.Created)
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "mcp-memory/etc-passwd.md"})
	require.NoError(t, err)
	assert.Equal(t, "../etc/passwd", d.Title)
	assert.Equal(t, []string{"weird-name"}, d.Tags)
	d, err = bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "mcp-memory/日本語のメモ.md"})
	require.NoError(t, err)
	assert.Contains(t, d.Text(), "- multi\n  line observation\n")

	// Again: every document is there already.
	res, err = foreign.Import(ctx, bank, docs, &foreign.Options{Apply: true})
	require.NoError(t, err)
	assert.Equal(t, foreign.Result{Applied: true, Skipped: 6}, *res)
}

func TestReadMCPMemoryErrors(t *testing.T) {
	tests := []struct {
		name, input string
		lim         *foreign.Limits
		want        error
		line        int
	}{
		{"not JSON", `{"type":"entity","name":"a"}` + "\nnope\n", nil, foreign.ErrFormat, 2},
		{"unknown type", `{"type":"thing","name":"a"}`, nil, foreign.ErrFormat, 1},
		{"entity without name", `{"type":"entity"}`, nil, foreign.ErrFormat, 1},
		{"relation without to", `{"type":"relation","from":"a"}`, nil, foreign.ErrFormat, 1},
		{"observations not strings", `{"type":"entity","name":"a","observations":[1]}`, nil, foreign.ErrFormat, 1},
		{"line over the limit", `{"type":"entity","name":"` + strings.Repeat("a", 100) + `"}`, &foreign.Limits{MaxFileBytes: 50}, foreign.ErrLimit, 1},
		{"too many items", "{\"type\":\"entity\",\"name\":\"a\"}\n{\"type\":\"entity\",\"name\":\"b\"}\n", &foreign.Limits{MaxFiles: 1}, foreign.ErrLimit, 2},
		{"document over the limit", `{"type":"entity","name":"a","observations":["x` + strings.Repeat(`\n`, 20) + `"]}`, &foreign.Limits{MaxFileBytes: 95}, foreign.ErrLimit, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := foreign.ReadMCPMemory(strings.NewReader(tt.input), "m.jsonl", "", tt.lim)
			require.ErrorIs(t, err, tt.want)
			var se *foreign.SourceError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.line, se.Line)
			assert.Contains(t, err.Error(), "m.jsonl")
		})
	}
}

func TestMCPMemoryMergesAndSlugs(t *testing.T) {
	in := `{"type":"entity","name":"A b","entityType":"t","observations":["one"]}
{"type":"entity","name":"a-B","entityType":"t","observations":["two"]}
{"type":"entity","name":"A b","observations":["one","three"]}
{"type":"relation","from":"ghost","to":"A b","relationType":"haunts"}
`
	docs, err := foreign.ReadMCPMemory(strings.NewReader(in), "m", "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"mcp-memory/a-b.md", "mcp-memory/a-b-2.md", "mcp-memory/ghost.md"}, paths(docs))
	assert.Contains(t, docs[0].Text, "- one\n- three\n")
	assert.Contains(t, docs[0].Text, "- [[ghost]] haunts\n")
}

func TestReadMemoryStoreRoundTrip(t *testing.T) {
	sample, err := os.ReadFile("testdata/memory-store/listing.json")
	require.NoError(t, err)
	docs, err := foreign.ReadMemoryStore(bytes.NewReader(sample), "listing.json", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"memories/preferences.md", "memories/projects/alpha/todo.md", "memories/日本語/メモ.txt", "memories/empty.md"}, paths(docs))

	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	res, err := foreign.Import(ctx, bank, docs, &foreign.Options{Apply: true})
	require.NoError(t, err)
	assert.Equal(t, 4, res.Created)

	// The memory tool reads each file byte for byte, front matter included.
	text, _, err := claudememory.BankFiles(bank).ReadText(ctx, "projects/alpha/todo.md")
	require.NoError(t, err)
	assert.Equal(t, "---\ntitle: not metadata here\n---\n# Alpha\n\n- [ ] ship the importer\n", text)

	// Export to the listing shape and back gives the same files.
	var out bytes.Buffer
	n, err := foreign.ExportMemoryStore(ctx, bank, &out)
	require.NoError(t, err)
	assert.Equal(t, 4, n)
	back, err := foreign.ReadMemoryStore(&out, "export", nil)
	require.NoError(t, err)
	assert.ElementsMatch(t, docs, back)
}

func TestReadMemoryStoreErrors(t *testing.T) {
	tests := []struct {
		name, input string
		want        error
		entry       string
	}{
		{"not JSON", `{`, foreign.ErrFormat, ""},
		{"one page", `{"data":[],"has_more":true}`, foreign.ErrFormat, ""},
		{"basic view", `{"data":[{"type":"memory","path":"/a.md","content":null}]}`, foreign.ErrFormat, "/a.md"},
		{"sha mismatch", `[{"type":"memory","path":"/a.md","content":"x","content_sha256":"00"}]`, foreign.ErrFormat, "/a.md"},
		{"size mismatch", `[{"type":"memory","path":"/a.md","content":"x","content_size_bytes":2}]`, foreign.ErrFormat, "/a.md"},
		{"escape", `[{"type":"memory","path":"/../etc/passwd","content":"x"}]`, foreign.ErrUnsafePath, "/../etc/passwd"},
		{"relative", `[{"type":"memory","path":"a.md","content":"x"}]`, foreign.ErrUnsafePath, "a.md"},
		{"dot segment", `[{"type":"memory","path":"/.hidden/a.md","content":"x"}]`, foreign.ErrUnsafePath, "/.hidden/a.md"},
		{"json path", `[{"type":"memory","path":"/a.json","content":"{}"}]`, foreign.ErrUnsafePath, "/a.json"},
		{"backslash", `[{"type":"memory","path":"/a\\..\\b.md","content":"x"}]`, foreign.ErrUnsafePath, `/a\..\b.md`},
		{"twice", `[{"path":"/a.md","content":"x"},{"path":"/a.md","content":"y"}]`, foreign.ErrFormat, "/a.md"},
		{"unknown type", `[{"type":"memory_store","path":"/a.md","content":"x"}]`, foreign.ErrFormat, "/a.md"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := foreign.ReadMemoryStore(strings.NewReader(tt.input), "l.json", nil)
			require.ErrorIs(t, err, tt.want)
			var se *foreign.SourceError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.entry, se.Entry)
		})
	}
	_, err := foreign.ReadMemoryStore(strings.NewReader(`[{"path":"/a.md","content":"xxxx"}]`), "l", &foreign.Limits{MaxFileBytes: 3})
	require.ErrorIs(t, err, foreign.ErrLimit)
	_, err = foreign.ReadMemoryStore(strings.NewReader(`[{"path":"/a.md","content":"x"},{"path":"/b.md","content":"x"}]`), "l", &foreign.Limits{MaxFiles: 1})
	require.ErrorIs(t, err, foreign.ErrLimit)
	_, err = foreign.ReadMemoryStore(strings.NewReader(`[{"path":"/a.md","content":"xxxxxxxxxxxxxx"}]`), "l", &foreign.Limits{MaxTotalBytes: 10})
	require.ErrorIs(t, err, foreign.ErrLimit)
}

func TestReadMarkdownDir(t *testing.T) {
	docs, err := foreign.ReadMarkdownDir(dirFS(t, "testdata/markdown/vault"), "testdata/markdown/vault", "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/Coffee Brewing.md", "notes/No front matter.markdown", "notes/projects/Roadmap.md"}, paths(docs))

	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	_, err = foreign.Import(ctx, bank, docs, &foreign.Options{Apply: true})
	require.NoError(t, err)
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes/Coffee Brewing.md"})
	require.NoError(t, err)
	assert.Equal(t, "Coffee Brewing Methods", d.Title)
	assert.Equal(t, []string{"coffee", "brewing"}, d.Tags)
	assert.True(t, strings.HasPrefix(d.Text(), "\n# Coffee Brewing Methods"), d.Text())
	assert.Contains(t, string(d.Metadata), `"permalink":"coffee-brewing-methods"`)
	d, err = bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes/projects/Roadmap.md"})
	require.NoError(t, err)
	assert.Equal(t, []string{"planning", "q3"}, d.Tags)
	assert.Contains(t, string(d.Metadata), `"aliases":["Plan"]`)
}

func TestReadDirSafety(t *testing.T) {
	outside := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(outside, "secret.md"), []byte("secret"), 0o644))
	tests := []struct {
		name  string
		setup func(t *testing.T, dir string)
		lim   *foreign.Limits
		want  error
		entry string
	}{
		{"link out of the directory", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "secret.md"), filepath.Join(dir, "leak.md")))
		}, nil, foreign.ErrUnsafePath, "leak.md"},
		{"relative link out", func(t *testing.T, dir string) {
			require.NoError(t, os.Symlink("../../"+filepath.Base(outside)+"/secret.md", filepath.Join(dir, "leak.md")))
		}, nil, foreign.ErrUnsafePath, "leak.md"},
		{"file over the limit", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, "big.md"), make([]byte, 100), 0o644))
		}, &foreign.Limits{MaxFileBytes: 99}, foreign.ErrLimit, "big.md"},
		{"too many files", func(t *testing.T, dir string) {
			for _, n := range []string{"a.md", "b.md"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
			}
		}, &foreign.Limits{MaxFiles: 1}, foreign.ErrLimit, "b.md"},
		{"total over the limit", func(t *testing.T, dir string) {
			for _, n := range []string{"a.md", "b.md"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, n), make([]byte, 8), 0o644))
			}
		}, &foreign.Limits{MaxTotalBytes: 10}, foreign.ErrLimit, "b.md"},
		{"too deep", func(t *testing.T, dir string) {
			require.NoError(t, os.MkdirAll(filepath.Join(dir, "a", "b", "c"), 0o755))
		}, &foreign.Limits{MaxDepth: 2}, foreign.ErrLimit, "a/b/c"},
		{"too many directory entries", func(t *testing.T, dir string) {
			for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
			}
		}, &foreign.Limits{MaxEntries: 2}, foreign.ErrLimit, "."},
		{"names differing by case", func(t *testing.T, dir string) {
			for _, n := range []string{"A.md", "a.md"} {
				require.NoError(t, os.WriteFile(filepath.Join(dir, n), nil, 0o644))
			}
		}, nil, foreign.ErrUnsafePath, "a.md"},
		{"backslash in a name", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(filepath.Join(dir, `a\b.md`), nil, 0o644))
		}, nil, foreign.ErrUnsafePath, `a\b.md`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "notes")
			require.NoError(t, os.MkdirAll(dir, 0o755))
			tt.setup(t, dir)
			docs, err := foreign.ReadMarkdownDir(dirFS(t, dir), dir, "", dirOpts(tt.lim))
			require.ErrorIs(t, err, tt.want, "docs %v", paths(docs))
			var se *foreign.SourceError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.entry, se.Entry)
			assert.Contains(t, err.Error(), "nothing was written")
		})
	}
}

func TestReadDirSortsLargeDirectories(t *testing.T) {
	dir := t.TempDir()
	for i := range 600 {
		require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("n%04d.md", 599-i)), nil, 0o644))
	}
	docs, err := foreign.ReadMarkdownDir(dirFS(t, dir), dir, "", nil)
	require.NoError(t, err)
	require.Len(t, docs, 600)
	assert.True(t, slices.IsSorted(paths(docs)))
}

func TestReadDirFollowsLinksInside(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, "real.md"), []byte("# Real\n"), 0o644))
	require.NoError(t, os.Symlink("real.md", filepath.Join(dir, "alias.md")))
	require.NoError(t, os.Symlink("/", filepath.Join(dir, "rootlink"))) // a link to a directory: not followed
	require.NoError(t, os.Symlink("missing.md", filepath.Join(dir, "dangling.md")))
	docs, err := foreign.ReadMarkdownDir(dirFS(t, dir), dir, "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/alias.md", "notes/real.md"}, paths(docs))
	assert.Equal(t, "# Real\n", docs[0].Text)
}

func TestImportConflicts(t *testing.T) {
	ctx := context.Background()
	doc := foreign.Doc{Path: "notes/a.md", Source: "a.md", Text: "# A\n\ntheirs\n"}
	mem := foreign.Doc{Path: "memories/a.md", Source: "/a.md", Text: "theirs\n", MemoryFile: true}
	for _, tt := range []struct {
		policy archive.Policy
		want   []string // resolutions
	}{
		{archive.KeepOurs, []string{"kept ours", "kept ours"}},
		{archive.KeepTheirs, []string{"theirs written as version 2 (ours stays in the history)", "theirs written as version 2 (ours stays in the history)"}},
		{archive.KeepBoth, []string{"kept both: theirs written to notes/a.imported.md", "kept both: theirs written to memories/a.imported.md"}},
	} {
		t.Run(string(tt.policy), func(t *testing.T) {
			bank := memorybank.New(&memorybank.MemStore{}, nil)
			_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/a.md", Text: "# A\n\nours\n"})
			require.NoError(t, err)
			_, err = claudememory.BankFiles(bank).WriteText(ctx, "a.md", "ours\n", memorybank.Condition{IfAbsent: true})
			require.NoError(t, err)

			var plan []archive.Item
			res, err := foreign.Import(ctx, bank, []foreign.Doc{doc, mem}, &foreign.Options{OnConflict: tt.policy, Report: func(it archive.Item) { plan = append(plan, it) }})
			require.NoError(t, err)
			assert.Equal(t, foreign.Result{Conflicts: 2}, *res)
			assert.Equal(t, archive.Conflict, plan[0].Action)

			var got []string
			res, err = foreign.Import(ctx, bank, []foreign.Doc{doc, mem}, &foreign.Options{Apply: true, OnConflict: tt.policy, Report: func(it archive.Item) { got = append(got, it.Resolution) }})
			require.NoError(t, err)
			assert.Equal(t, 2, res.Conflicts)
			assert.Equal(t, tt.want, got)
		})
	}
}

func TestImportBadFrontMatterKeptAsText(t *testing.T) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	text := "---\ntitle: [unclosed\n---\n# Body\n"
	var items []archive.Item
	res, err := foreign.Import(ctx, bank, []foreign.Doc{{Path: "notes/bad.md", Source: "bad.md", Text: text}}, &foreign.Options{Apply: true, Report: func(it archive.Item) { items = append(items, it) }})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Created)
	assert.Contains(t, items[0].Detail, "kept as text")
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes/bad.md"})
	require.NoError(t, err)
	assert.Equal(t, text, d.Text())
}

func TestImportInvalidPolicy(t *testing.T) {
	_, err := foreign.Import(context.Background(), memorybank.New(&memorybank.MemStore{}, nil), nil, &foreign.Options{OnConflict: "mine"})
	require.ErrorIs(t, err, archive.ErrInvalidOptions)
	require.False(t, errors.Is(err, foreign.ErrFormat))
}
