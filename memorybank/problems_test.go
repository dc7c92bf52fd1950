package memorybank_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// A stored document that already breaks its schema (a branchContext.json
// without purpose, as older servers wrote them) stays writable: a write may
// keep the problems it had, the result lists them, but a write that adds a
// problem is refused, naming only the new one.
func TestSchemaBrokenDocumentsStayWritable(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	br := memorybank.ScopeBranch
	const key = "branch-memory-bank/main/branchContext.json"
	_, err := store.Put(ctx, key, []byte(`{"schema":"memory_document_v2","metadata":{"id":"bc","title":"Branch","documentType":"branch_context","path":"branchContext.json","tags":[],"version":3},"content":{"branchName":"main","background":"old"}}`), memorybank.Condition{})
	require.NoError(t, err)

	res, err := b.Write(ctx, memorybank.WriteRequest{Scope: br, Branch: "main", Path: "branchContext.json",
		Patches: jsonpatch.Patch{op("replace", "/metadata/title", `"Main branch"`)}})
	require.NoError(t, err, "a title patch keeps the missing purpose")
	assert.Equal(t, int64(4), res.Version)
	require.Len(t, res.Problems, 1)
	assert.Equal(t, "/content/purpose", res.Problems[0].Pointer)
	assert.Equal(t, "Main branch", mustRead(t, b, br, "main", "branchContext.json").Title)

	// A new problem is refused, and named alone.
	before := snapshot(t, store)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: br, Branch: "main", Path: "branchContext.json",
		Patches: jsonpatch.Patch{op("replace", "/content/branchName", `5`)}})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Problems, 1)
	assert.Equal(t, "/content/branchName", ve.Problems[0].Pointer)
	assert.Equal(t, before, snapshot(t, store))

	// Fixing it clears the problems.
	res, err = b.Write(ctx, memorybank.WriteRequest{Scope: br, Branch: "main", Path: "branchContext.json",
		Patches: jsonpatch.Patch{op("add", "/content/purpose", `"ship login"`)}})
	require.NoError(t, err)
	assert.Empty(t, res.Problems)

	// A new document gets no such leniency.
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: br, Branch: "main", Path: "other/branchContext.json",
		Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"B","documentType":"branch_context"},"content":{"branchName":"x"}}`)})
	require.ErrorAs(t, err, &ve)
}
