package memorybank_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Patches on title, documentType and tags do what they say: a removed field
// is never silently restored from the stored document (the origin server's
// bug), and add/replace are applied.
func TestPatchMetadataFields(t *testing.T) {
	const doc = `{"schema":"memory_document_v2","metadata":{"title":"Design","documentType":"design","tags":["t1","t2"]},"content":{"a":1}}`
	tests := []struct {
		name      string
		patch     jsonpatch.Patch
		title     string
		docType   string
		tags      []string
		searchT1  int // hits for tag "t1" afterwards
		searchNew int // hits for tag "new" afterwards
	}{
		{"remove tags", jsonpatch.Patch{op("remove", "/metadata/tags", "")}, "Design", "design", []string{}, 0, 0},
		{"replace tags", jsonpatch.Patch{op("replace", "/metadata/tags", `["new"]`)}, "Design", "design", []string{"new"}, 0, 1},
		{"replace tags empty", jsonpatch.Patch{op("replace", "/metadata/tags", `[]`)}, "Design", "design", []string{}, 0, 0},
		{"add tags member", jsonpatch.Patch{op("add", "/metadata/tags/-", `"new"`)}, "Design", "design", []string{"t1", "t2", "new"}, 1, 1},
		{"add tags whole", jsonpatch.Patch{op("add", "/metadata/tags", `["new","new"]`)}, "Design", "design", []string{"new"}, 0, 1},
		{"remove tags member", jsonpatch.Patch{op("remove", "/metadata/tags/0", "")}, "Design", "design", []string{"t2"}, 0, 0},
		{"remove title", jsonpatch.Patch{op("remove", "/metadata/title", "")}, "d", "design", []string{"t1", "t2"}, 1, 0},
		{"replace title", jsonpatch.Patch{op("replace", "/metadata/title", `"New"`)}, "New", "design", []string{"t1", "t2"}, 1, 0},
		{"add title", jsonpatch.Patch{op("add", "/metadata/title", `"Added"`)}, "Added", "design", []string{"t1", "t2"}, 1, 0},
		{"remove documentType", jsonpatch.Patch{op("remove", "/metadata/documentType", "")}, "Design", "generic", []string{"t1", "t2"}, 1, 0},
		{"replace documentType", jsonpatch.Patch{op("replace", "/metadata/documentType", `"other"`)}, "Design", "other", []string{"t1", "t2"}, 1, 0},
		{"add documentType", jsonpatch.Patch{op("add", "/metadata/documentType", `"x"`)}, "Design", "x", []string{"t1", "t2"}, 1, 0},
		{"remove all three", jsonpatch.Patch{op("remove", "/metadata/tags", ""), op("remove", "/metadata/title", ""), op("remove", "/metadata/documentType", "")}, "d", "generic", []string{}, 0, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, store memorybank.Store) {
				b := newBank(store)
				g := memorybank.ScopeGlobal
				mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(doc)})
				_, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"t1"}, Scope: g}) // build the index
				require.NoError(t, err)
				res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Patches: tc.patch})
				assert.Equal(t, tc.tags, res.Tags)
				for _, reader := range []*memorybank.Bank{b, newBank(store)} {
					d := mustRead(t, reader, g, "", "d.json")
					assert.Equal(t, tc.title, d.Title)
					assert.Equal(t, tc.docType, d.DocumentType)
					assert.Equal(t, tc.tags, d.Tags)
					assert.Equal(t, int64(2), d.Version)
					stored := decode(t, d).Metadata
					assert.Equal(t, tc.title, stored["title"], "the stored metadata says so too")
					for tag, want := range map[string]int{"t1": tc.searchT1, "new": tc.searchNew} {
						hits, err := reader.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{tag}, Scope: g})
						require.NoError(t, err)
						assert.Len(t, hits, want, "search for %q", tag)
					}
				}
			})
		})
	}
}

// A full content write without metadata still keeps the stored title,
// documentType and tags: only patches remove them.
func TestContentWriteKeepsStoredMetadata(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"Design","documentType":"design","tags":["t1"]},"content":{"a":1}}`)})
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(`{"a":2}`)})
	d := mustRead(t, b, g, "", "d.json")
	assert.Equal(t, "Design", d.Title)
	assert.Equal(t, "design", d.DocumentType)
	assert.Equal(t, []string{"t1"}, d.Tags)
}

// A top-level documentType written by a patch is refused with a pointer to
// /metadata/documentType, not silently dropped.
func TestPatchTopLevelDocumentType(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(`{"a":1}`)})
	before := snapshot(t, store)
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "d.json", Patches: jsonpatch.Patch{op("add", "/documentType", `"progress"`)}})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	require.NotEmpty(t, ve.Problems)
	assert.Equal(t, "/documentType", ve.Problems[0].Pointer)
	assert.Contains(t, err.Error(), "/metadata/documentType")
	assert.Equal(t, before, snapshot(t, store))
}

// Error messages name what was wrong in words a model can act on.
func TestWriteMessages(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(`{"a":1}`)})
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "d.json", Patches: jsonpatch.Patch{
		op("replace", "", `{"schema":"memory_document_v2","metadata":{},"content":{"a":1}}`)}})
	require.ErrorIs(t, err, memorybank.ErrForbiddenPatch)
	assert.Contains(t, err.Error(), `replace "" (the document root)`)

	for _, c := range []string{`""`, `"\"\""`, `"  "`} {
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "e.json", Content: json.RawMessage(c)})
		require.ErrorIs(t, err, memorybank.ErrInvalidRequest, "content %s", c)
		assert.Contains(t, err.Error(), "content must be a JSON object", "content %s", c)
	}
}

// A version stored as a numeric string (some existing banks) is read as that
// number, so the next write goes forward.
func TestLegacyStringVersion(t *testing.T) {
	store := &memorybank.MemStore{}
	_, err := store.Put(ctx, "global-memory-bank/l.json", []byte(`{"schema":"memory_document_v2","metadata":{"id":"l","title":"L","version":"3"},"content":{"status":"x"}}`), memorybank.Condition{})
	require.NoError(t, err)
	b := newBank(store)
	d := mustRead(t, b, memorybank.ScopeGlobal, "", "l.json")
	assert.Equal(t, int64(3), d.Version)
	res := mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "l.json", IfVersion: 3, Patches: jsonpatch.Patch{op("replace", "/content/status", `"y"`)}})
	assert.Equal(t, int64(4), res.Version)
	assert.Equal(t, float64(4), decode(t, mustRead(t, b, memorybank.ScopeGlobal, "", "l.json")).Metadata["version"])
}
