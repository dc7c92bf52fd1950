package foreign_test

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
)

// A Markdown file whose front matter nests 9,000 deep (18 KB) is judged by
// its depth before it expands: its front matter is not read as metadata
// (the note says why) and its text is kept whole, at the cost of a small
// document, not of the ~162 MB its indented form would be.
func TestImportMarkdownDeepFrontMatterIsBounded(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	nested := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	text := "---\ntitle: deep\nlist: " + nested + "\n---\n# Deep\n"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "deep.md"), []byte(text), 0o644))
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	var items []archive.Item
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	docs, err := foreign.ReadMarkdownDir(dirFS(t, dir), dir, "", nil)
	require.NoError(t, err)
	res, err := foreign.Import(ctx, bank, docs, &foreign.Options{Apply: true, Report: func(it archive.Item) { items = append(items, it) }})
	runtime.ReadMemStats(&after)
	require.NoError(t, err)
	assert.Equal(t, 1, res.Created)
	require.Len(t, items, 1)
	assert.Contains(t, items[0].Detail, "nesting depth")
	// Before the depth was judged first, this import allocated over 1 GiB.
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(64<<20))
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: docs[0].Path})
	require.NoError(t, err)
	assert.Equal(t, text, d.Text())
}
