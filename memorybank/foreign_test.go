package memorybank_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// A Markdown file written by another tool (no front matter) stays theirs:
// writes change only the bytes they ask to change; its version, derived
// from its text, still guards compare-and-swap; metadata its text cannot
// carry (a tag without a tags line, a title other than its heading) is the
// one thing that gives it front matter.
func TestForeignMarkdownStaysTheirs(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		g := memorybank.ScopeGlobal
		const key = "global-memory-bank/MEMORY.md"
		orig := "# Project memory\n\nSome notes.\n"
		_, err := store.Put(ctx, key, []byte(orig), memorybank.Condition{})
		require.NoError(t, err)
		stored := func() string {
			obj, err := store.Get(ctx, key)
			require.NoError(t, err)
			return string(obj.Data)
		}

		d := mustRead(t, b, g, "", "MEMORY.md")
		assert.Equal(t, "Project memory", d.Title)
		assert.Empty(t, d.ID)
		v1 := d.Version
		assert.Equal(t, memorybank.TextVersion(orig), v1)

		// A whole-text write: exactly the new text.
		next := orig + "More notes.\n"
		res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "MEMORY.md", Text: next, IfVersion: v1})
		assert.Equal(t, next, stored())
		assert.Equal(t, memorybank.TextVersion(next), res.Version)
		assert.NotEqual(t, v1, res.Version)
		assert.Empty(t, res.ID)

		// The old version is stale now.
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "MEMORY.md", Text: "lost update", IfVersion: v1})
		var ce *memorybank.ConflictError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, res.Version, ce.CurrentVersion)
		assert.Equal(t, next, stored())

		// A patch of the text: only those bytes.
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "MEMORY.md", Patches: jsonpatch.Patch{
			op("replace", "/content", `"# Project memory\n\nEdited.\n"`)}})
		assert.Equal(t, "# Project memory\n\nEdited.\n", stored())

		// A title that is not its heading has nowhere else to live.
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "MEMORY.md", Patches: jsonpatch.Patch{
			op("replace", "/metadata/title", `"Memory"`)}})
		assert.Contains(t, stored(), "---\nschema: memory_document_v2\n")
		d = mustRead(t, b, g, "", "MEMORY.md")
		assert.Equal(t, "Memory", d.Title)
		assert.Equal(t, "# Project memory\n\nEdited.\n", d.Text())
	})
}

// A file without front matter has no numbered versions to keep (its
// version is derived from its text), so its writes add no history entries
// that a later rebuild would put in a wrong order; once it has front matter
// its history starts.
func TestForeignMarkdownHasNoHistory(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	g := memorybank.ScopeGlobal
	_, err := store.Put(ctx, "global-memory-bank/MEMORY.md", []byte("# M\n\none\n"), memorybank.Condition{})
	require.NoError(t, err)
	for _, text := range []string{"# M\n\ntwo\n", "# M\n\nthree\n", "# M\n\none\n"} {
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "MEMORY.md", Text: text})
	}
	h, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "MEMORY.md"})
	require.NoError(t, err)
	assert.Empty(t, h)
	assert.Equal(t, "# M\n\none\n", mustRead(t, b, g, "", "MEMORY.md").Text())

	// Deleting it and writing it again works; the new document has front
	// matter and a version that continues after the derived one.
	d := mustRead(t, b, g, "", "MEMORY.md")
	require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "MEMORY.md"}))
	res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "MEMORY.md", Text: "# M\n\nfour\n"})
	assert.Greater(t, res.Version, d.Version)
}
