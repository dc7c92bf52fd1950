package memorybank_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// A JSON object holds each member name once. A write whose content, or
// whose patch result, holds a name twice, at any depth, is refused with a
// *ValidationError naming the member, and nothing is stored; a stored
// document holding duplicates (written by another tool) is never handed to
// the patch engine: patching it is refused the same way, and a full write
// repairs it.
func TestDuplicateMembers(t *testing.T) {
	g := memorybank.ScopeGlobal
	base := `{"schema":"memory_document_v2","metadata":{"title":"T","documentType":"generic","tags":[]},"content":{"status":"draft"}}`
	writes := []struct {
		name    string
		req     memorybank.WriteRequest
		pointer string
	}{
		{"bare content", memorybank.WriteRequest{Content: raw(`{"status":"draft","status":"final"}`)}, "/content/status"},
		{"nested", memorybank.WriteRequest{Content: raw(`{"a":[1,{"b":{"c":1,"d":2,"c":3}}]}`)}, "/content/a/1/b/c"},
		{"escaped spelling", memorybank.WriteRequest{Content: raw(`{"a":1,"\u0061":2}`)}, "/content/a"},
		{"envelope member", memorybank.WriteRequest{Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"x"},"content":{"a":1},"content":{"b":1}}`)}, "/content"},
		{"metadata member", memorybank.WriteRequest{Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"x","title":"y"},"content":{"a":1}}`)}, "/metadata/title"},
		{"patch value", memorybank.WriteRequest{Patches: jsonpatch.Patch{op("add", "/content/x", `{"k":1,"k":2}`)}}, "/content/x/k"},
		{"patched metadata", memorybank.WriteRequest{Patches: jsonpatch.Patch{op("add", "/metadata/extra", `{"k":1,"k":2}`)}}, "/metadata/extra/k"},
	}
	for _, tc := range writes {
		t.Run(tc.name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			b := newBank(store)
			mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(base)})
			before := snapshot(t, store)
			req := tc.req
			req.Scope, req.Path = g, "d.json"
			_, err := b.Write(ctx, req)
			var ve *memorybank.ValidationError
			require.ErrorAs(t, err, &ve)
			require.NotEmpty(t, ve.Problems)
			assert.Equal(t, tc.pointer, ve.Problems[0].Pointer, ve.Error())
			assert.Contains(t, ve.Problems[0].Message, "more than once")
			assert.Equal(t, before, snapshot(t, store), "nothing stored")
		})
	}

	stored := map[string]string{
		"content":  `{"schema":"memory_document_v2","metadata":{"title":"T","documentType":"generic","tags":[],"version":2},"content":{"status":"draft","status":"final"}}`,
		"metadata": `{"schema":"memory_document_v2","metadata":{"title":"T","title":"U","documentType":"generic","tags":[],"version":2},"content":{"status":"draft"}}`,
		"envelope": `{"schema":"memory_document_v2","metadata":{"title":"T","documentType":"generic","tags":[],"version":2},"content":{"status":"x"},"content":{"status":"draft"}}`,
	}
	for name, data := range stored {
		t.Run("stored duplicates in "+name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			b := newBank(store)
			_, err := store.Put(ctx, "global-memory-bank/d.json", []byte(data), memorybank.Condition{})
			require.NoError(t, err)
			for _, patch := range []jsonpatch.Patch{
				{op("remove", "/content/status", "")},
				{mv("move", "/content/status", "/content/state")},
				{op("test", "/content/status", `"draft"`)},
				{op("add", "/metadata/tags/-", `"x"`)},
			} {
				_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "d.json", Patches: patch})
				var ve *memorybank.ValidationError
				require.ErrorAs(t, err, &ve, "%v", patch)
				assert.Contains(t, ve.Error(), "more than once")
				obj, err := store.Get(ctx, "global-memory-bank/d.json")
				require.NoError(t, err)
				assert.Equal(t, data, string(obj.Data), "bytes unchanged")
			}
			// A full write repairs it.
			res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "d.json", Content: raw(`{"status":"final"}`)})
			assert.Equal(t, int64(3), res.Version)
		})
	}
}

// A stored document repeating a name at any depth, in an envelope or as a
// bare object, is refused for a patch with the pointer of the repeat, as
// found in the one pass that splits it.
func TestStoredDuplicatePointers(t *testing.T) {
	g := memorybank.ScopeGlobal
	for data, pointer := range map[string]string{
		`{"schema":"memory_document_v2","metadata":{"title":"T","tags":[]},"content":{"a":[{"k":1,"k":2}]}}`: "/content/a/0/k",
		`{"a":{"k":1,"\u006b":2}}`: "/content/a/k",
		`{"schema":"memory_document_v2","metadata":{"title":"T","x":{"y":1,"y":2}},"content":{}}`: "/metadata/x/y",
	} {
		store := &memorybank.MemStore{}
		b := newBank(store)
		_, err := store.Put(ctx, "global-memory-bank/d.json", []byte(data), memorybank.Condition{})
		require.NoError(t, err)
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "d.json", Patches: jsonpatch.Patch{op("add", "/content/z", `1`)}})
		var ve *memorybank.ValidationError
		require.ErrorAs(t, err, &ve, data)
		assert.Equal(t, pointer, ve.Problems[0].Pointer, data)
	}
}
