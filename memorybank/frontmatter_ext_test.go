package memorybank_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Front matter that is not valid YAML is ErrCorrupt, never a silent reset
// of id, tags and version: it cannot be patched (nothing changes, no second
// block is added), and a full write repairs it.
func TestBrokenFrontMatterIsCorrupt(t *testing.T) {
	g := memorybank.ScopeGlobal
	for name, stored := range map[string]string{
		"bad indentation": "---\nmetadata:\n  id: abc\n  tags:\n    - a\n  version: 7\n weird: [\n---\nbody\n",
		"key twice":       "---\ntitle: a\ntitle: b\n---\nbody\n",
		"tab indentation": "---\nmetadata:\n\tid: abc\n---\nbody\n",
	} {
		t.Run(name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			b := newBank(store)
			_, err := store.Put(ctx, "global-memory-bank/n.md", []byte(stored), memorybank.Condition{})
			require.NoError(t, err)
			_, err = b.Read(ctx, memorybank.ReadRequest{Scope: g, Path: "n.md"})
			require.ErrorIs(t, err, memorybank.ErrCorrupt)
			assert.Contains(t, err.Error(), "front matter")
			_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "n.md", Patches: jsonpatch.Patch{op("replace", "/metadata/title", `"T"`)}})
			require.ErrorIs(t, err, memorybank.ErrCorrupt)
			obj, err := store.Get(ctx, "global-memory-bank/n.md")
			require.NoError(t, err)
			assert.Equal(t, stored, string(obj.Data), "nothing changed")
			mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "n.md", Text: "repaired\n"})
			assert.Equal(t, "repaired\n", mustRead(t, b, g, "", "n.md").Text())
		})
	}
	// Text written with broken front matter is refused, naming it.
	b := newBank(&memorybank.MemStore{})
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "n.md", Text: "---\ntitle: [\n---\nbody"})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "/metadata", ve.Problems[0].Pointer)
}

// Tags are single-line strings without control characters, wherever they
// come from, so a tag cannot add lines to a Markdown body or a front matter.
func TestTagsAreSingleLine(t *testing.T) {
	g := memorybank.ScopeGlobal
	bad := []string{"a\nb", "x\r", "tab\there", "nul\x00", "line\u2028sep", "del\x7f"}
	for _, tag := range bad {
		store := &memorybank.MemStore{}
		b := newBank(store)
		_, err := store.Put(ctx, "global-memory-bank/n.md", []byte("# N\n\ntags: #a\n\nbody\n"), memorybank.Condition{})
		require.NoError(t, err)
		before := snapshot(t, store)
		reqs := []memorybank.WriteRequest{
			{Scope: g, Path: "n.md", Text: "# N\n\ntags: #a\n\nbody\n", Tags: []string{"ok", tag}},
			{Scope: g, Path: "n.md", Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", string(mustJSON(t, tag)))}},
			{Scope: g, Path: "d.json", Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"D","tags":` + string(mustJSON(t, []string{tag})) + `},"content":{"a":1}}`)},
		}
		for i, req := range reqs {
			_, err := b.Write(ctx, req)
			var ve *memorybank.ValidationError
			if !assert.ErrorAs(t, err, &ve, "tag %q, request %d", tag, i) {
				continue
			}
			assert.Contains(t, ve.Problems[0].Pointer, "/metadata/tags/")
			assert.Equal(t, before, snapshot(t, store), "tag %q, request %d", tag, i)
		}
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}
