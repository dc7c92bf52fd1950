package foreign_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
)

func write(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// CLAUDE.local.md is a person's own: read only when asked, and otherwise
// reported in the plan with why.
func TestClaudeLocalOnlyWhenAsked(t *testing.T) {
	dir := t.TempDir()
	write(t, dir, map[string]string{"CLAUDE.md": "# shared\n", "CLAUDE.local.md": "# mine\n", "api/CLAUDE.local.md": "# mine too\n"})
	docs, err := foreign.ReadClaudeCode(dirFS(t, dir), dir, "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"claude-code/CLAUDE.md"}, paths(docs))
	left := notRead(docs)
	assert.Len(t, left, 2)
	assert.Contains(t, left["CLAUDE.local.md"], "--include-local")
	assert.Contains(t, left["api/CLAUDE.local.md"], "personal")

	var items []archive.Item
	res, err := foreign.Import(context.Background(), memorybank.New(&memorybank.MemStore{}, nil), docs,
		&foreign.Options{Report: func(it archive.Item) { items = append(items, it) }})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Created)
	assert.Equal(t, 2, res.NotRead)
	require.Len(t, items, 3)
	assert.Equal(t, foreign.NotRead, items[1].Action)
	assert.Equal(t, "CLAUDE.local.md", items[1].Key)

	docs, err = foreign.ReadClaudeCode(dirFS(t, dir), dir, "", &foreign.DirOptions{IncludeLocal: true})
	require.NoError(t, err)
	assert.Equal(t, []string{"claude-code/CLAUDE.local.md", "claude-code/CLAUDE.md", "claude-code/api/CLAUDE.local.md"}, paths(docs))
}

// A note is imported byte for byte: its front matter stays where its author
// wrote it (top-level tags, which Obsidian reads), and the bank still reads
// its title and tags from it. Attachments and canvases are listed as not
// read.
func TestMarkdownNoteKeptAsWritten(t *testing.T) {
	dir := t.TempDir()
	note := "---\ntitle: Coffee\ntags: [coffee, brewing]\naliases: [Kaffee]\ncssclass: wide\n---\n# Coffee\nGrind fine.\n"
	write(t, dir, map[string]string{"Coffee.md": note, "Board.canvas": "{}", "img/beans.png": "PNG", ".obsidian/app.json": "{}"})
	docs, err := foreign.ReadMarkdownDir(dirFS(t, dir), dir, "", nil)
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/Coffee.md"}, paths(docs))
	assert.Equal(t, map[string]string{
		"Board.canvas":  "not Markdown: only .md and .markdown notes are imported",
		"img/beans.png": "not Markdown: only .md and .markdown notes are imported",
	}, notRead(docs))

	ctx := context.Background()
	store := &memorybank.MemStore{}
	bank := memorybank.New(store, nil)
	for range 2 { // the second import finds the same note: unchanged
		res, err := foreign.Import(ctx, bank, docs, &foreign.Options{Apply: true})
		require.NoError(t, err)
		assert.Equal(t, 2, res.NotRead)
	}
	obj, err := store.Get(ctx, memorybank.GlobalPrefix+"notes/Coffee.md")
	require.NoError(t, err)
	assert.Equal(t, note, string(obj.Data), "the file in the bank is the note as written")
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes/Coffee.md"})
	require.NoError(t, err)
	assert.Equal(t, "Coffee", d.Title)
	assert.Equal(t, []string{"coffee", "brewing"}, d.Tags)

	res, err := foreign.Import(ctx, bank, docs, &foreign.Options{})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Skipped, "imported again: unchanged")
}

// An import never reads the bank it writes: the bank's directory met in
// the walk and any memory-bank folder are left out with why, and a source
// that is the bank is refused. (The program, which knows where both are,
// refuses a source inside the bank: see mnemobank's import tests.)
func TestImportNeverReadsTheBank(t *testing.T) {
	proj := t.TempDir()
	write(t, proj, map[string]string{
		"CLAUDE.md": "# project\n",
		"bank/global-memory-bank/claude-code/CLAUDE.md": "# imported before\n",
		"docs/global-memory-bank/claude-code/CLAUDE.md": "# another bank\n",
		"docs/branch-memory-bank/main/CLAUDE.md":        "# a branch bank\n",
		"bank/notes/CLAUDE.md":                          "# in the bank dir\n",
	})
	bankDir := filepath.Join(proj, "bank")
	docs, err := foreign.ReadClaudeCode(dirFS(t, proj), proj, "", &foreign.DirOptions{Exclude: []string{"bank"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"claude-code/CLAUDE.md"}, paths(docs))
	left := notRead(docs)
	assert.Contains(t, left["bank"], "the bank's own directory")
	assert.Contains(t, left["docs/global-memory-bank"], "memory bank")
	assert.Contains(t, left["docs/branch-memory-bank"], "memory bank")

	_, err = foreign.ReadMarkdownDir(dirFS(t, bankDir), bankDir, "", &foreign.DirOptions{Exclude: []string{"."}})
	require.ErrorIs(t, err, foreign.ErrExcluded)
	var se *foreign.SourceError
	require.ErrorAs(t, err, &se)
	assert.Contains(t, se.Error(), bankDir)
	// The walk never reaches the bank's files, in whichever fs.FS.
	docs, err = foreign.ReadMarkdownDir(fstest.MapFS{
		"a.md":            {Data: []byte("# a\n")},
		"bank/b.md":       {Data: []byte("# b\n")},
		"sub/bank/c.md":   {Data: []byte("# c\n")},
		"x/bank-not/d.md": {Data: []byte("# d\n")},
	}, "vault", "", &foreign.DirOptions{Exclude: []string{"./sub/bank/"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/a.md", "notes/bank/b.md", "notes/x/bank-not/d.md"}, paths(docs))
	assert.Contains(t, notRead(docs)["sub/bank"], "the bank's own directory")
}
