package mcpserver

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

func TestMemoryTools(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")

	added := ok(t, s, "add_memory", `{"content":"Run the tests with -race before every commit.","tags":["go"],"type":"lesson"}`)
	m, _ := added["memory"].(map[string]any)
	require.NotNil(t, m)
	id, _ := m["id"].(string)
	require.True(t, strings.HasPrefix(id, "mem-"), id)
	assert.Equal(t, []any{"lesson", "go"}, m["tags"], "the type is the first tag")
	ok(t, s, "add_memory", `{"content":"The user prefers short answers."}`)

	data, err := os.ReadFile(ts.memories)
	require.NoError(t, err, "the memories file is written")
	assert.Contains(t, string(data), "Run the tests with -race")

	found := ok(t, s, "search_memories", `{"query":"race"}`)["memories"].([]any)
	require.Len(t, found, 1)
	assert.Equal(t, id, found[0].(map[string]any)["id"])
	assert.Empty(t, ok(t, s, "search_memories", `{"query":"kubernetes"}`)["memories"], "no match is an empty list")

	assert.Len(t, ok(t, s, "list_memories", `{}`)["memories"], 2)
	assert.Equal(t, true, ok(t, s, "delete_memory", `{"id":"`+id+`"}`)["deleted"])
	assert.Len(t, ok(t, s, "list_memories", `{}`)["memories"], 1)

	code, msg := fails(t, s, "delete_memory", `{"id":"`+id+`"}`)
	assert.Equal(t, "NOT_FOUND", code)
	assert.Contains(t, msg, "list_memories")
	code, _ = fails(t, s, "add_memory", `{"content":"   "}`)
	assert.Equal(t, "INVALID_ARGUMENT", code)
	code, _ = fails(t, s, "add_memory", `{}`)
	assert.Equal(t, "INVALID_ARGUMENT", code, "content is required")
}

const twoSteps = `{"nodes":[{"id":"n1","type":"instruction","data":{"label":"Read the issue"}},{"id":"n2","type":"tool","data":{"label":"Run tests","toolName":"Bash(go:*)"}}],"edges":[{"id":"e1","source":"n1","target":"n2"}]}`

func TestSkillGraphTools(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")

	out := ok(t, s, "write_skill_graph", `{"skillId":"fix-bug","graph":`+twoSteps+`}`)
	assert.EqualValues(t, 1, out["version"])
	assert.Equal(t, "skills/fix-bug.json", out["path"])
	assert.FileExists(t, ts.root+"/global-memory-bank/skills/fix-bug.json", "a document of the global bank")

	g := ok(t, s, "read_skill_graph", `{"skillId":"fix-bug"}`)
	assert.Equal(t, "json", g["format"], "json is the default")
	graph, _ := g["graph"].(map[string]any)
	assert.Len(t, graph["nodes"], 2)
	for format, want := range map[string]string{"mermaid": "flowchart", "dot": "digraph", "skill_md": "name: fix-bug"} {
		text, _ := ok(t, s, "read_skill_graph", `{"skillId":"fix-bug","format":"`+format+`"}`)["text"].(string)
		assert.Contains(t, text, want, format)
	}
	code, _ := fails(t, s, "read_skill_graph", `{"skillId":"fix-bug","format":"png"}`)
	assert.Equal(t, "INVALID_ARGUMENT", code)
	code, msg := fails(t, s, "read_skill_graph", `{"skillId":"nope"}`)
	assert.Equal(t, "NOT_FOUND", code)
	assert.Contains(t, msg, "fix-bug", "the error names the stored skills")

	addStep := `[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"Write a failing test"},"insertAfter":"n1"}]`
	dry := ok(t, s, "apply_skill_graph_operations", `{"skillId":"fix-bug","operations":`+addStep+`,"baseVersion":1,"dryRun":true}`)
	assert.Equal(t, false, dry["stored"])
	assert.EqualValues(t, 1, dry["version"])
	assert.NotEmpty(t, dry["summary"])
	assert.Len(t, ok(t, s, "read_skill_graph", `{"skillId":"fix-bug"}`)["graph"].(map[string]any)["nodes"], 2, "a dry run stores nothing")

	applied := ok(t, s, "apply_skill_graph_operations", `{"skillId":"fix-bug","operations":`+addStep+`,"baseVersion":1}`)
	assert.Equal(t, true, applied["stored"])
	assert.EqualValues(t, 2, applied["version"])
	assert.Len(t, ok(t, s, "read_skill_graph", `{"skillId":"fix-bug"}`)["graph"].(map[string]any)["nodes"], 3)

	code, msg = fails(t, s, "apply_skill_graph_operations", `{"skillId":"fix-bug","operations":`+addStep+`,"baseVersion":1}`)
	assert.Equal(t, "CONFLICT", code, "a stale baseVersion")
	assert.Contains(t, msg, "version 2")

	// All or nothing: the second operation fails, the first is not stored.
	code, _ = fails(t, s, "apply_skill_graph_operations", `{"skillId":"fix-bug","operations":[`+
		`{"operationId":"a","kind":"addNode","node":{"type":"instruction","label":"x"}},`+
		`{"operationId":"b","kind":"deleteNode","nodeId":"n99"}]}`)
	assert.Equal(t, "INVALID_ARGUMENT", code)
	assert.EqualValues(t, 2, ok(t, s, "read_skill_graph", `{"skillId":"fix-bug"}`)["version"])

	code, _ = fails(t, s, "write_skill_graph", `{"skillId":"cyclic","graph":{"nodes":[{"id":"a","type":"instruction","data":{"label":"A"}},{"id":"b","type":"instruction","data":{"label":"B"}}],"edges":[{"id":"e1","source":"a","target":"b"},{"id":"e2","source":"b","target":"a"}]}}`)
	assert.Equal(t, "VALIDATION_FAILED", code)
	code, _ = fails(t, s, "write_skill_graph", `{"skillId":"../etc","graph":`+twoSteps+`}`)
	assert.Equal(t, "INVALID_ARGUMENT", code, "a skillId never escapes the skills directory")

	created := ok(t, s, "apply_skill_graph_operations", `{"skillId":"new-skill","operations":[{"operationId":"a","kind":"addNode","node":{"type":"instruction","label":"Start"}}]}`)
	assert.EqualValues(t, 1, created["version"], "operations on a new skill start from an empty graph")
}

// A client's name becomes the actor of its writes; a name the bank would
// refuse (control characters, invalid UTF-8, too long) is recorded quoted
// instead of failing every write of that client.
func TestActorFromAnyClientName(t *testing.T) {
	for _, name := range []string{"claude-code", "bad\nname", "tab\there", "\xff\xfe", strings.Repeat("ñ", 300), "line\u2028sep"} {
		got := actorName(name)
		require.NoError(t, memorybank.ValidateActor(got), "%q -> %q", name, got)
		if memorybank.ValidateActor(name) == nil {
			assert.Equal(t, name, got)
		} else {
			assert.NotEqual(t, name, got)
		}
	}
}
