package memorybank_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// FuzzJSONDocument: any bytes stored as a .json document read without a
// panic, and any content written either succeeds and reads back as an
// object, or fails and leaves the store as it was.
func FuzzJSONDocument(f *testing.F) {
	for _, s := range []string{progressDoc, `{}`, `[]`, `null`, `"x"`, `{"metadata":5,"content":{}}`, `{"schema":"memory_document_v2","documentType":"progress","metadata":{},"content":{"status":"s"}}`, `{"a":1}`, `{not json`} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, stored, content string) {
		store := &memorybank.MemStore{}
		b := memorybank.New(store, nil)
		const key = "global-memory-bank/f.json"
		_, err := store.Put(ctx, key, []byte(stored), memorybank.Condition{})
		require.NoError(t, err, "any bytes are storable under a valid key")
		if d, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "f.json"}); err == nil {
			require.True(t, json.Valid(d.Content))
			require.Equal(t, byte('{'), d.Content[0], "a JSON document reads as an object")
		} else {
			require.ErrorIs(t, err, memorybank.ErrCorrupt)
		}
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "f.json", Content: json.RawMessage(content)})
		obj, gerr := store.Get(ctx, key)
		require.NoError(t, gerr)
		if err != nil {
			require.Equal(t, stored, string(obj.Data), "a failed write changes nothing")
			return
		}
		d, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "f.json"})
		require.NoError(t, err)
		require.Equal(t, byte('{'), d.Content[0])
	})
}

// FuzzBranchDir: any name either is refused with ErrInvalidBranch or maps to
// a single storable directory name.
func FuzzBranchDir(f *testing.F) {
	for _, s := range []string{"main", "feature/foo", "a..b", "x.lock", "@", "-x", "a/b/c", "日本/語"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		dir, err := memorybank.BranchDir(name)
		if err != nil {
			require.ErrorIs(t, err, memorybank.ErrInvalidBranch)
			return
		}
		assert.NotContains(t, dir, "/")
		assert.Equal(t, strings.ReplaceAll(name, "/", "-"), dir)
		require.NoError(t, memorybank.ValidateKey("branch-memory-bank/"+dir+"/x.json"))
	})
}

func TestCancelledContext(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: raw(progressDoc)})
	before := snapshot(t, store)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err := b.Write(cctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: raw(progressDoc)})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = b.ReadContext(cctx, memorybank.ReadContextRequest{Branch: "main"})
	assert.ErrorIs(t, err, context.Canceled)
	_, err = b.SearchByTags(cctx, memorybank.SearchRequest{Tags: []string{"core"}})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, before, snapshot(t, store))
}
