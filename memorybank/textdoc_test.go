package memorybank_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

func TestTextDocuments(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	g := memorybank.ScopeGlobal
	read := func(key string) string {
		obj, err := store.Get(ctx, "global-memory-bank/"+key)
		require.NoError(t, err)
		return string(obj.Data)
	}

	// version 0: the file has no front matter, so its version is derived
	// from its text, and a write keeps it without front matter.
	cases := []struct {
		name, stored string
		tags         []string
		title        string
		version      int64
		text         string
	}{
		{"plain", "just text\n", []string{}, "plain", 0, "just text\n"},
		{"heading is the title", "# Hello\nbody", []string{}, "Hello", 0, "# Hello\nbody"},
		{"legacy tags line", "# T\n\ntags: #a #b-c\n\nbody", []string{"a", "b-c"}, "T", 0, "# T\n\ntags: #a #b-c\n\nbody"},
		{"flat front matter", "---\ntitle: Flat\ntags: [x, 'y z', \"w\"]\nversion: 4\n---\nbody", []string{"x", "y z", "w"}, "Flat", 4, "body"},
		{"nested front matter", "---\nschema: memory_document_v2\nmetadata:\n  title: \"Quoted: yes\"\n  tags:\n    - one\n  version: 2\n---\n# H\n", []string{"one"}, "Quoted: yes", 2, "# H\n"},
		{"crlf front matter", "---\r\ntitle: Win\r\n---\r\nbody", []string{}, "Win", 1, "body"},
		{"unterminated front matter is text", "---\ntitle: x\nbody", []string{}, "unterminated front matter is text", 0, "---\ntitle: x\nbody"},
		{"thematic breaks are text", "---\n\nA paragraph\n\n---\nmore", []string{}, "thematic breaks are text", 0, "---\n\nA paragraph\n\n---\nmore"},
		{"hand-written YAML", "---\ntitle: 2024 # the year\ntags:\n  - plan # first\n  - yes\nsummary: |\n  two\n  lines\nowner:\n  name: ada\n  teams: [core]\ncreatedAt: 2024-01-02\n---\nbody",
			[]string{"plan", "yes"}, "2024", 1, "body"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := store.Put(ctx, "global-memory-bank/"+tc.name+".md", []byte(tc.stored), memorybank.Condition{})
			require.NoError(t, err)
			d := mustRead(t, b, g, "", tc.name+".md")
			assert.Equal(t, tc.tags, d.Tags)
			assert.Equal(t, tc.title, d.Title)
			bare := tc.version == 0
			if bare {
				assert.Equal(t, memorybank.TextVersion(tc.stored), d.Version)
			} else {
				assert.Equal(t, tc.version, d.Version)
			}
			assert.Equal(t, tc.text, d.Text())
			assert.Equal(t, memorybank.FormatText, d.Format)

			// A no-op patch: a file with front matter is rewritten in
			// canonical form, its version moves on; a file without keeps
			// its bytes and its version. Text and metadata read back the same.
			mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: tc.name + ".md", Patches: jsonpatch.Patch{op("test", "/content", string(d.Content))}})
			d2 := mustRead(t, b, g, "", tc.name+".md")
			assert.Equal(t, tc.text, d2.Text())
			assert.Equal(t, tc.tags, d2.Tags)
			assert.Equal(t, tc.title, d2.Title)
			if bare {
				assert.Equal(t, tc.stored, read(tc.name+".md"), "no front matter added")
				assert.Equal(t, d.Version, d2.Version)
			} else {
				assert.Equal(t, tc.version+1, d2.Version)
				assert.True(t, strings.HasPrefix(read(tc.name+".md"), "---\nschema: memory_document_v2\nmetadata:\n"))
			}
		})
	}

	// Content writes: text, with tags; an echoed front matter is metadata.
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "n.md", Text: ("# Note\n"), Tags: []string{"a", "odd: tag", "-dash", "123"}})
	d := mustRead(t, b, g, "", "n.md")
	assert.Equal(t, []string{"a", "odd: tag", "-dash", "123"}, d.Tags, "tags that need YAML quoting survive")
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "n.md", Text: ("---\ntitle: Echoed\ntags: [b]\n---\n# Note 2\n")})
	d = mustRead(t, b, g, "", "n.md")
	assert.Equal(t, "# Note 2\n", d.Text())
	assert.Equal(t, []string{"b"}, d.Tags)
	assert.Equal(t, "Echoed", d.Title)
	assert.Equal(t, int64(2), d.Version)
	// Patching the text itself.
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "n.md", Patches: jsonpatch.Patch{op("replace", "/content", `"# Replaced\n"`)}})
	assert.Equal(t, "# Replaced\n", mustRead(t, b, g, "", "n.md").Text())
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "n.md", Patches: jsonpatch.Patch{op("replace", "/content", `{"a":1}`)}})
	assert.ErrorIs(t, err, memorybank.ErrValidation, "a text document's content stays text")
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "n.md", Content: raw(`42`)})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	// An envelope with text content is accepted for a text path.
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "n.md", Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"Env","tags":["e"]},"content":"# From envelope\n"}`)})
	d = mustRead(t, b, g, "", "n.md")
	assert.Equal(t, "Env", d.Title)
	assert.Equal(t, "# From envelope\n", d.Text())
}

// FuzzTextDocument: any stored text reads without panicking, and a write of
// what was read reads back the same text and tags.
func FuzzTextDocument(f *testing.F) {
	for _, s := range []string{"", "x", "---\n---\n", "---\ntitle: a\ntags: [a, b]\n---\nbody", "# T\ntags: #a #b\n",
		"---\nmetadata:\n  tags:\n    - a\n  title: 'it''s'\n---\n", "---\nk: [\"a\\\"b\", c]\n---\n", "\ufeff---\ntitle: bom\n---\nx"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, stored string) {
		store := &memorybank.MemStore{}
		b := memorybank.New(store, nil)
		_, err := store.Put(ctx, "global-memory-bank/f.md", []byte(stored), memorybank.Condition{})
		require.NoError(t, err, "any bytes are storable under a valid key")
		d, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "f.md"})
		if err != nil {
			// Front matter that is not YAML: corrupt, never guessed at,
			// and a full write repairs it.
			require.ErrorIs(t, err, memorybank.ErrCorrupt, "read %q", stored)
			_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "f.md", Text: "repaired\n"})
			require.NoError(t, err)
			return
		}
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "f.md", Patches: jsonpatch.Patch{op("test", "/content", string(d.Content))}})
		if err != nil {
			// Stored metadata may be invalid (e.g. a tag that is a number):
			// the write must then fail cleanly and change nothing.
			obj, gerr := store.Get(ctx, "global-memory-bank/f.md")
			require.NoError(t, gerr)
			require.Equal(t, stored, string(obj.Data))
			return
		}
		d2, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "f.md"})
		require.NoError(t, err)
		require.Equal(t, d.Text(), d2.Text(), "stored %q", stored)
		require.Equal(t, d.Tags, d2.Tags)
		require.Equal(t, d.Title, d2.Title)
	})
}

// Metadata of any JSON shape survives the front matter round trip.
func TestTextMetadataShapes(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "m.md", Text: ("body\n")})
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "m.md", Patches: jsonpatch.Patch{
		op("add", "/metadata/owner", `{"name":"a: b","ids":[1,2]}`),
		op("add", "/metadata/links", `[{"href":"x"},"plain",3,true,null,"{looks: json}"]`),
		op("add", "/metadata/count", `7`),
		op("add", "/metadata/flag", `"true"`),
	}})
	d := mustRead(t, b, g, "", "m.md")
	var meta map[string]json.RawMessage
	require.NoError(t, json.Unmarshal(d.Metadata, &meta))
	assert.JSONEq(t, `{"name":"a: b","ids":[1,2]}`, string(meta["owner"]))
	assert.JSONEq(t, `[{"href":"x"},"plain",3,true,null,"{looks: json}"]`, string(meta["links"]))
	assert.JSONEq(t, `7`, string(meta["count"]))
	assert.JSONEq(t, `"true"`, string(meta["flag"]), "a string that looks like a boolean stays a string")
	assert.Equal(t, "body\n", d.Text())

	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "m.md", Patches: jsonpatch.Patch{op("add", "/extra", `1`)}})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "/extra", ve.Problems[0].Pointer)
}
