package tools_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// document_history lists who changed what; revert_document undoes it, also
// for a deleted document; the actor is the call's Env's.
func TestHistoryTools(t *testing.T) {
	e := newToolEnv(t, nil)
	ctx := t.Context()
	call := func(name, args string) (any, error) {
		return e.tools[name].Handle(ctx, tools.Env{Actor: "claude-code"}, json.RawMessage(args))
	}
	_, err := call(tools.WriteGlobalMemoryBank, `{"path":"p.json","content":{"status":"good"}}`)
	require.NoError(t, err)
	_, err = call(tools.WriteGlobalMemoryBank, `{"path":"p.json","patches":[{"op":"replace","path":"/content/status","value":"worse"}]}`)
	require.NoError(t, err)

	out := e.ok(t, tools.DocumentHistory, `{"scope":"global","path":"p.json"}`)
	entries := out["entries"].([]any)
	require.Len(t, entries, 2)
	newest := entries[0].(map[string]any)
	assert.Equal(t, float64(2), newest["version"])
	assert.Equal(t, "claude-code", newest["actor"])
	assert.Contains(t, newest["patch"], map[string]any{"op": "replace", "path": "/content/status", "value": "worse"})

	_, err = call(tools.RevertDocument, `{"scope":"global","path":"p.json","toVersion":1,"ifVersion":2}`)
	require.NoError(t, err)
	d, err := e.bank.Read(t.Context(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "p.json"})
	require.NoError(t, err)
	assert.Equal(t, int64(3), d.Version)
	assert.Contains(t, string(d.Content), `"status":"good"`)
	out = e.ok(t, tools.DocumentHistory, `{"scope":"global","path":"p.json","limit":1}`)
	assert.Equal(t, "revert to version 1", out["entries"].([]any)[0].(map[string]any)["reason"])
	assert.Equal(t, "claude-code", out["entries"].([]any)[0].(map[string]any)["actor"])

	e.ok(t, tools.DeleteDocument, `{"scope":"global","path":"p.json"}`)
	e.ok(t, tools.RevertDocument, `{"scope":"global","path":"p.json","toVersion":3}`)
	d, err = e.bank.Read(t.Context(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "p.json"})
	require.NoError(t, err)
	assert.Equal(t, int64(5), d.Version, "restored after the delete consumed version 4")

	e.fail(t, tools.RevertDocument, `{"scope":"global","path":"p.json","toVersion":99}`, tools.CodeNotFound)
	e.fail(t, tools.RevertDocument, `{"scope":"global","path":"p.json","toVersion":1,"ifVersion":2}`, tools.CodeConflict)
	e.fail(t, tools.RevertDocument, `{"scope":"global","path":"p.json","toVersion":0}`, tools.CodeInvalidArgument)
	e.fail(t, tools.DocumentHistory, `{"scope":"branch","path":"p.json"}`, tools.CodeInvalidArgument)
}

// The tools on one bank (list_documents, delete_document,
// document_history, revert_document) take their scope from branch when
// it is left out, and refuse a call with neither rather than guess one.
func TestScopeInferredFromBranch(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"a.md","content":"one"}`)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"a.md","content":"two"}`)

	list := e.ok(t, tools.ListDocuments, `{"branch":"main"}`)
	assert.Equal(t, "branch", list["scope"])
	require.Len(t, list["documents"], 1)
	hist := e.ok(t, tools.DocumentHistory, `{"branch":"main","path":"a.md"}`)
	require.Len(t, hist["entries"], 2)
	rev := e.ok(t, tools.RevertDocument, `{"branch":"main","path":"a.md","toVersion":1}`)
	assert.EqualValues(t, 3, rev["version"])
	del := e.ok(t, tools.DeleteDocument, `{"branch":"main","path":"a.md"}`)
	assert.Equal(t, "branch", del["scope"])

	for name, args := range map[string]string{tools.ListDocuments: `{}`, tools.DeleteDocument: `{"path":"a.md"}`,
		tools.DocumentHistory: `{"path":"a.md"}`, tools.RevertDocument: `{"path":"a.md","toVersion":1}`} {
		te := e.fail(t, name, args, tools.CodeInvalidArgument)
		assert.Contains(t, te.Message, "/scope: scope is required without branch", name)
	}
	e.fail(t, tools.ListDocuments, `{"scope":"global","branch":"main","x":1}`, tools.CodeInvalidArgument)
}
