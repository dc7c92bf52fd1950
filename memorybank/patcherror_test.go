package memorybank_test

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// A failed patch is a *PatchError naming the failing operation, and says by
// sentinel whether a test failed or a limit was passed, so callers need not
// know the patch engine's errors.
func TestPatchErrorNamesTheOperation(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: raw(progressDoc)})
	for _, tt := range []struct {
		name   string
		patch  jsonpatch.Patch
		index  int
		is     []error
		isNot  []error
		detail string
	}{
		{"missing member", jsonpatch.Patch{op("replace", "/content/status", `"ok"`), op("remove", "/content/nope", "")}, 1,
			[]error{memorybank.ErrPatchFailed, jsonpatch.ErrPathNotFound}, []error{memorybank.ErrPatchTestFailed, memorybank.ErrLimitExceeded}, "remove"},
		{"failed test", jsonpatch.Patch{op("test", "/content/status", `"done"`)}, 0,
			[]error{memorybank.ErrPatchFailed, memorybank.ErrPatchTestFailed}, []error{memorybank.ErrLimitExceeded}, "test"},
		{"move keeps from", jsonpatch.Patch{mv("move", "/content/nope", "/content/x")}, 0,
			[]error{memorybank.ErrPatchFailed}, []error{memorybank.ErrPatchTestFailed}, "move"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Patches: tt.patch})
			var pe *memorybank.PatchError
			require.ErrorAs(t, err, &pe)
			assert.Equal(t, "p.json", pe.Path)
			assert.Equal(t, tt.index, pe.Index)
			assert.Equal(t, tt.patch[tt.index], pe.Op)
			assert.Equal(t, tt.detail, pe.Op.Op)
			for _, want := range tt.is {
				assert.ErrorIs(t, err, want)
			}
			for _, not := range tt.isNot {
				assert.False(t, errors.Is(err, not), "%v", not)
			}
		})
	}
}

func TestPatchErrorWithoutOperation(t *testing.T) {
	pe := &memorybank.PatchError{Path: "p.json", Index: -1, Err: jsonpatch.ErrLimitExceeded}
	assert.ErrorIs(t, pe, memorybank.ErrLimitExceeded)
	assert.ErrorIs(t, pe, memorybank.ErrPatchFailed)
	assert.NotErrorIs(t, pe, memorybank.ErrPatchTestFailed)
	assert.Equal(t, `memorybank: patch failed: "p.json": jsonpatch: limit exceeded`, pe.Error())
}
