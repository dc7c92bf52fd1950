package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Models write arguments loosely; the write tools read what they meant.
func TestWriteToolsReadLooseArguments(t *testing.T) {
	const wg = tools.WriteGlobalMemoryBank
	tests := []struct {
		name  string
		setup string // written first, if set
		args  string
		check func(t *testing.T, d *memorybank.Document)
	}{
		{"null content beside patches", `{"path":"n.json","content":{"a":1}}`,
			`{"path":"n.json","content":null,"patches":[{"op":"replace","path":"/content/a","value":2}]}`,
			func(t *testing.T, d *memorybank.Document) { assert.JSONEq(t, `{"a":2}`, envContent(t, d)) }},
		{"empty content beside patches", `{"path":"n.json","content":{"a":1}}`,
			`{"path":"n.json","content":"","patches":[{"op":"replace","path":"/content/a","value":3}]}`,
			func(t *testing.T, d *memorybank.Document) { assert.JSONEq(t, `{"a":3}`, envContent(t, d)) }},
		{"empty patches beside content", "", `{"path":"n.json","content":{"a":1},"patches":[]}`,
			func(t *testing.T, d *memorybank.Document) { assert.JSONEq(t, `{"a":1}`, envContent(t, d)) }},
		{"null patches beside content", "", `{"path":"n.json","content":{"a":1},"patches":null}`,
			func(t *testing.T, d *memorybank.Document) { assert.JSONEq(t, `{"a":1}`, envContent(t, d)) }},
		{"envelope sent as a string", "",
			`{"path":"n.json","content":"{\"schema\":\"memory_document_v2\",\"metadata\":{\"title\":\"T\",\"tags\":[\"x\"]},\"content\":{\"a\":1}}"}`,
			func(t *testing.T, d *memorybank.Document) {
				assert.Equal(t, "T", d.Title)
				assert.Equal(t, []string{"x"}, d.Tags)
				assert.JSONEq(t, `{"a":1}`, envContent(t, d))
			}},
		{"envelope content sent as a string", "",
			`{"path":"n.json","content":{"metadata":{"title":"T"},"content":"{\"a\":[1,2]}"}}`,
			func(t *testing.T, d *memorybank.Document) { assert.JSONEq(t, `{"a":[1,2]}`, envContent(t, d)) }},
		{"bare content with a string member named content", "",
			`{"path":"n.json","content":{"content":"{\"a\":1}","b":2}}`,
			func(t *testing.T, d *memorybank.Document) {
				assert.JSONEq(t, `{"content":"{\"a\":1}","b":2}`, envContent(t, d))
			}},
		{"text content is the text", "", `{"path":"n.md","content":"# Notes\n{\"not\":\"json\"}"}`,
			func(t *testing.T, d *memorybank.Document) { assert.Equal(t, "# Notes\n{\"not\":\"json\"}", d.Text()) }},
		{"a string holding JSON stays text on a text path", "", `{"path":"n.md","content":"{\"a\":1}"}`,
			func(t *testing.T, d *memorybank.Document) { assert.Equal(t, `{"a":1}`, d.Text()) }},
		{"an envelope on a text path", "", `{"path":"n.md","content":{"metadata":{"title":"Notes","tags":["x"]},"content":"# Hi"}}`,
			func(t *testing.T, d *memorybank.Document) {
				assert.Equal(t, "# Hi", d.Text())
				assert.Equal(t, "Notes", d.Title)
				assert.Equal(t, []string{"x"}, d.Tags)
			}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newToolEnv(t, nil)
			if tt.setup != "" {
				e.ok(t, wg, tt.setup)
			}
			out := e.ok(t, wg, tt.args)
			d, err := e.bank.Read(t.Context(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: out["path"].(string)})
			require.NoError(t, err)
			tt.check(t, d)
		})
	}
}

func TestWriteToolsRefuseWhatTheyCannotRead(t *testing.T) {
	const wg = tools.WriteGlobalMemoryBank
	e := newToolEnv(t, nil)
	e.ok(t, wg, `{"path":"n.md","content":"keep me"}`)
	for _, tt := range []struct {
		name, args, message string
	}{
		{"no content on a text path", `{"path":"n.md"}`, "give content (full overwrite) or patches"},
		{"empty content on a text path", `{"path":"n.md","content":""}`, "give content (full overwrite) or patches"},
		{"null content", `{"path":"n.json","content":null}`, "give content (full overwrite) or patches"},
		{"a string holding an array", `{"path":"n.json","content":"[1,2]"}`, "content must be a JSON object"},
		{"a string holding a number", `{"path":"n.json","content":"42"}`, "content must be a JSON object"},
		{"a string that is not JSON", `{"path":"n.json","content":"{oops"}`, "not valid JSON"},
		{"content and patches", `{"path":"n.md","content":"x","patches":[{"op":"remove","path":"/content"}]}`, "not both"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			te := e.fail(t, wg, tt.args, tools.CodeInvalidArgument)
			assert.Contains(t, te.Message, tt.message)
		})
	}
	d, err := e.bank.Read(t.Context(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "n.md"})
	require.NoError(t, err)
	assert.Equal(t, "keep me", d.Text())
}

func TestArgumentGivenTwice(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":1}}`)
	for _, tt := range []struct{ tool, args, pointer string }{
		{tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"path":"b.json"}`, "/path"},
		{tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"content":""}`, "/content"},
		{tools.ReadGlobalMemoryBank, `{"path":"a.json","path":"a.json"}`, "/path"},
		{tools.ListDocuments, `{"scope":"global","prefix":"a","prefix":"b"}`, "/prefix"},
	} {
		t.Run(tt.args, func(t *testing.T) {
			te := e.fail(t, tt.tool, tt.args, tools.CodeInvalidArgument)
			assert.Contains(t, te.Message, tt.tool+": invalid arguments: "+tt.pointer+": given twice")
			assert.Equal(t, []memorybank.Problem{{Pointer: tt.pointer, Message: "given twice"}}, te.Details["problems"])
		})
	}
	// Members repeated inside a value are not an argument given twice: the
	// Bank refuses the document, naming the member.
	te := e.fail(t, tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":1,"x":3}}`, tools.CodeValidationFailed)
	assert.Contains(t, te.Message, `/content/x: member "x" appears more than once`)
}

// countingStore counts the documents read through it.
type countingStore struct {
	memorybank.Store
	gets atomic.Int64
}

func (s *countingStore) Get(ctx context.Context, key string) (memorybank.Object, error) {
	s.gets.Add(1)
	return s.Store.Get(ctx, key)
}

// A mistyped path is answered with the bank's paths from one listing of the
// store: no document is read to build the hint, however large the bank.
func TestNotFoundHintReadsNoDocument(t *testing.T) {
	mem := &memorybank.MemStore{}
	writer := memorybank.New(mem, nil)
	for i := range 200 {
		_, err := writer.Write(t.Context(), memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "main",
			Path: fmt.Sprintf("notes/%03d.md", i), Text: "x"})
		require.NoError(t, err)
	}
	store := &countingStore{Store: mem}
	read := tools.For(memorybank.New(store, nil))[2] // read_branch_memory_bank, in a fresh Bank
	require.Equal(t, tools.ReadBranchMemoryBank, read.Name)
	_, err := read.Handle(t.Context(), tools.Env{}, []byte(`{"branch":"main","path":"notes/1000.md"}`))
	te := tools.AsError(err)
	require.Equal(t, tools.CodeNotFound, te.Code, te.Message)
	assert.Equal(t, 200, te.Details["totalDocuments"])
	assert.Contains(t, te.Message, `Documents in the branch bank of "main" (first 50 of 200): notes/000.md,`)
	assert.LessOrEqual(t, store.gets.Load(), int64(2), "the missing document and the branch marker, nothing else")
}

func envContent(t *testing.T, d *memorybank.Document) string {
	t.Helper()
	var env struct {
		Content json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(d.Content, &env))
	return string(env.Content)
}

// A list sent as a string holding its JSON is that list, in every tool
// whose argument takes a list and no string (tags here, and the memories',
// plans' and skill graphs' tools alike, which Decode serves too); a string
// that holds no list stays a wrong type.
func TestListSentAsAString(t *testing.T) {
	e := newToolEnv(t, nil)
	out := e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"n.json","content":{"a":1},"tags":"[\"x\",\"y\"]"}`)
	assert.Equal(t, []any{"x", "y"}, out["tags"])
	out = e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"n.json","patches":"[{\"op\":\"replace\",\"path\":\"/content/a\",\"value\":2}]"}`)
	assert.EqualValues(t, 2, out["version"])
	te := e.fail(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"n.json","content":{"a":1},"tags":"x"}`, tools.CodeInvalidArgument)
	assert.Contains(t, te.Message, "/tags: invalid type")
}
