package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every change can be seen and undone through the server: the history
// names the client that wrote, revert_document brings a version back, and
// restore_memory undoes delete_memory.
func TestUndoThroughTheServer(t *testing.T) {
	s := newTestServer(t).connect(t, nil, "")
	ok(t, s, "write_global_memory_bank", `{"path":"p.json","content":{"status":"good"}}`)
	ok(t, s, "write_global_memory_bank", `{"path":"p.json","patches":[{"op":"replace","path":"/content/status","value":"worse"}]}`)
	out := ok(t, s, "document_history", `{"scope":"global","path":"p.json"}`)
	entries := out["entries"].([]any)
	require.Len(t, entries, 2)
	newest := entries[0].(map[string]any)
	assert.EqualValues(t, 2, newest["version"])
	assert.NotEmpty(t, newest["actor"], "the client's name is the actor")
	rev := ok(t, s, "revert_document", `{"scope":"global","path":"p.json","toVersion":1,"ifVersion":2}`)
	assert.EqualValues(t, 3, rev["version"])
	doc := ok(t, s, "read_global_memory_bank", `{"path":"p.json"}`)
	assert.Equal(t, "good", doc["content"].(map[string]any)["content"].(map[string]any)["status"])

	mem := ok(t, s, "add_memory", `{"content":"keep the tests fast"}`)
	id := mem["memory"].(map[string]any)["id"].(string)
	ok(t, s, "delete_memory", `{"id":"`+id+`"}`)
	back := ok(t, s, "restore_memory", `{"id":"`+id+`"}`)
	assert.Equal(t, id, back["memory"].(map[string]any)["id"])
	list := ok(t, s, "list_memories", `{}`)
	assert.Len(t, list["memories"], 1)
}
