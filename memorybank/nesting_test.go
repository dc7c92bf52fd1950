package memorybank_test

import (
	"context"
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// allocated returns the bytes fn allocates.
func allocated(fn func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	fn()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// A document nested thousands deep is small as sent but its stored form
// indents every line by its depth: 9,000 levels in 18 KB would become
// about 162 MB. The write refuses it by its depth, before it expands.
func TestWriteRefusesDeepNestingBeforeExpanding(t *testing.T) {
	const depth = 9000
	nested := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	cases := []struct {
		name string
		req  memorybank.WriteRequest
	}{
		{"json content", memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "deep.json", Content: []byte(`{"list":` + nested + `}`)}},
		{"json envelope", memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "deep.json", Content: []byte(`{"schema":"memory_document_v2","metadata":{"title":"t"},"content":{"list":` + nested + `}}`)}},
		{"front matter flow sequence", memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "deep.md", Text: "---\ntitle: deep\nlist: " + nested + "\n---\n# Deep\n"}},
		{"front matter under metadata", memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "deep.md", Text: "---\nmetadata:\n  list: " + nested + "\n---\n# Deep\n"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			bank := memorybank.New(&memorybank.MemStore{}, nil)
			var err error
			n := allocated(func() { _, err = bank.Write(context.Background(), tc.req) })
			require.Error(t, err)
			assert.ErrorIs(t, err, memorybank.ErrLimitExceeded)
			var le *memorybank.LimitError
			if assert.True(t, errors.As(err, &le), "%v", err) {
				assert.Equal(t, "nesting depth", le.Limit)
				assert.Equal(t, memorybank.MaxNestingDepth, le.Max)
				assert.Greater(t, le.Got, memorybank.MaxNestingDepth)
			}
			t.Logf("the refused write allocated %d bytes", n)
			// Before the bound the write allocated 575 MiB and more.
			assert.Less(t, n, uint64(32<<20), "the refused write allocated %d bytes", n)
		})
	}
}

// A patch's value is judged by the same limit, when it is decoded.
func TestPatchRefusesDeepNesting(t *testing.T) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: []byte(`{"a":1}`)})
	require.NoError(t, err)
	const depth = 9000
	value := strings.Repeat("[", depth) + strings.Repeat("]", depth)
	var werr error
	n := allocated(func() {
		_, werr = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json",
			Patches: jsonpatch.Patch{op("add", "/content/b", value)}})
	})
	var le *memorybank.LimitError
	require.ErrorAs(t, werr, &le)
	assert.Equal(t, "nesting depth", le.Limit)
	t.Logf("the refused patch allocated %d bytes", n)
	assert.Less(t, n, uint64(32<<20), "the refused patch allocated %d bytes", n)
}

// Nesting up to the limit is written; the stored form of a document
// within the depth limit but indented past the size limit is refused when
// the parse reaches the limit, not after it has indented all of it.
func TestNestingAtTheLimitsOfAWrite(t *testing.T) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	inner := memorybank.MaxNestingDepth - 1 // inside the content object
	deepest := `{"list":` + strings.Repeat("[", inner) + strings.Repeat("]", inner) + `}`
	_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "ok.json", Content: []byte(deepest)})
	require.NoError(t, err)

	// Every element of the innermost list stands on its own line,
	// indented ~200 spaces: 2 bytes sent, ~200 stored.
	elems := strings.TrimSuffix(strings.Repeat("0,", 500_000), ",")
	wide := `{"list":` + strings.Repeat("[", inner) + elems + strings.Repeat("]", inner) + `}`
	require.Less(t, len(wide), memorybank.DefaultMaxDocumentBytes)
	var werr error
	n := allocated(func() {
		_, werr = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "wide.json", Content: []byte(wide)})
	})
	var le *memorybank.LimitError
	require.ErrorAs(t, werr, &le)
	assert.Equal(t, "document size", le.Limit)
	assert.Equal(t, memorybank.DefaultMaxDocumentBytes, le.Max)
	// Indented whole, it is about 100 MB.
	t.Logf("the refused write allocated %d bytes", n)
	assert.Less(t, n, uint64(32<<20), "the refused write allocated %d bytes", n)
}
