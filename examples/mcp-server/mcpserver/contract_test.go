package mcpserver

import (
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// One contract for every tool the server registers, checked by walking the
// registry (a tool added later is checked without being named here; it
// fails until it has an example call below):
//
//   - its input schema's members are camelCase, at every depth;
//   - a successful answer's members are camelCase and it holds no null
//     (a member without a value is left out), except inside what the
//     user wrote (a document's content, a plan's texts);
//   - an unknown argument and an argument given twice are refused with
//     INVALID_ARGUMENT naming it, the same way in every tool;
//   - an argument whose schema takes a list or an object is also read
//     from a string holding its JSON, the same way in every tool.
func TestEveryToolKeepsTheContract(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")

	// What the example calls need: documents, a memory to delete and
	// restore, a skill graph, duplicates to consolidate.
	ok(t, s, "write_branch_memory_bank", `{"branch":"main","path":"notes.json","content":{"a":1},"tags":["t"]}`)
	ok(t, s, "write_branch_memory_bank", `{"branch":"main","path":"gone.md","content":"to delete"}`)
	addDuplicates(t, ts)
	mem := ok(t, s, "add_memory", `{"content":"Forget me"}`)["memory"].(map[string]any)["id"].(string)
	consolidation := planFrom(t, ok(t, s, "consolidation_candidates", `{}`))

	examples := map[string]string{
		"write_branch_memory_bank":     `{"branch":"main","path":"notes.json","patches":[{"op":"replace","path":"/content/a","value":2}],"tags":["t"],"returnContent":true}`,
		"write_global_memory_bank":     `{"path":"g.md","content":"global text","tags":["t"]}`,
		"read_branch_memory_bank":      `{"branch":"main","path":"notes.json"}`,
		"read_global_memory_bank":      `{"path":"g.md"}`,
		"read_context":                 `{"branch":"main","query":"text"}`,
		"read_rules":                   `{}`,
		"search_documents_by_tags":     `{"tags":["t"],"branch":"main"}`,
		"search_documents":             `{"query":"global","tags":["t"]}`,
		"list_documents":               `{"branch":"main"}`,
		"delete_document":              `{"branch":"main","path":"gone.md"}`,
		"document_history":             `{"branch":"main","path":"notes.json"}`,
		"revert_document":              `{"branch":"main","path":"notes.json","toVersion":1}`,
		"add_memory":                   `{"content":"Prefer table tests","tags":["go"],"type":"lesson"}`,
		"search_memories":              `{"query":"table tests"}`,
		"list_memories":                `{}`,
		"delete_memory":                `{"id":"` + mem + `"}`,
		"restore_memory":               `{"id":"` + mem + `"}`,
		"write_skill_graph":            `{"skillId":"deploy","graph":{"nodes":[{"id":"a","type":"instruction","data":{"label":"Build"}}],"edges":[]}}`,
		"read_skill_graph":             `{"skillId":"deploy"}`,
		"apply_skill_graph_operations": `{"skillId":"deploy","operations":[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"Ship"}},{"operationId":"op2","kind":"deleteNode","nodeId":"a"}]}`,
		"check_file_selection":         `{"branch":"main","selection":{"schemaVersion":"2.0","action":"select_files","files":[],"reason":"none"}}`,
		"apply_memory_ops":             `{"branch":"main","plan":` + createPlan + `}`,
		"consolidation_candidates":     `{"mergedBranches":["main"]}`,
		"apply_consolidation":          `{"plan":` + consolidation + `}`,
	}

	require.NotEmpty(t, ts.defs)
	for _, d := range ts.defs {
		args, has := examples[d.Name]
		require.True(t, has, "%s has no example call in this test: add one", d.Name)
		delete(examples, d.Name)
		t.Run(d.Name, func(t *testing.T) {
			tool := d.Tool()
			in, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err)
			var schema map[string]any
			require.NoError(t, json.Unmarshal(in, &schema))
			assert.Empty(t, notCamel(schema, "", schemaWalk), "input schema members")

			out := ok(t, s, d.Name, args)
			assert.Empty(t, notCamel(out, "", resultWalk), "result members")
			assert.Empty(t, nulls(out, ""), "a result holds no null")

			code, msg := fails(t, s, d.Name, withMember(t, args, `"colour":"blue"`))
			assert.Equal(t, "INVALID_ARGUMENT", code, "an unknown argument")
			assert.Contains(t, msg, "/colour", "the refusal names the unknown argument")
			code, msg = fails(t, s, d.Name, withMember(t, args, `"colour":1,"colour":2`))
			assert.Equal(t, "INVALID_ARGUMENT", code, "an argument given twice")
			assert.Contains(t, msg, "given twice")

			var given map[string]json.RawMessage
			require.NoError(t, json.Unmarshal([]byte(args), &given))
			for _, name := range slices.Sorted(maps.Keys(given)) {
				p, _ := tool.InputSchema.Properties[name]
				if p == nil || (p.Type != "array" && p.Type != "object") {
					continue
				}
				quoted, err := json.Marshal(string(given[name]))
				require.NoError(t, err)
				loose := map[string]json.RawMessage{}
				maps.Copy(loose, given)
				loose[name] = quoted
				b, err := json.Marshal(loose)
				require.NoError(t, err)
				isError, res, text := call(t, s, d.Name, string(b))
				if isError {
					assert.NotContains(t, res["message"], "/"+name+": invalid type", "%s sent as a string holding its JSON: %s", name, text)
				}
			}
		})
	}
	assert.Empty(t, examples, "example calls of tools the server does not register")
}

// withMember adds a member to the JSON object args.
func withMember(t *testing.T, args, member string) string {
	t.Helper()
	require.True(t, strings.HasPrefix(args, "{"))
	if args == "{}" {
		return "{" + member + "}"
	}
	return "{" + member + "," + args[1:]
}

var camel = regexp.MustCompile(`^[a-z][a-zA-Z0-9]*$`)

// walk says, for a member of an object, whether to check its name and
// whether to look inside its value.
type walk func(name string) (checkName, descend bool)

// schemaWalk checks every property name of a schema, at every depth: the
// names under "properties" are the tool's members.
func schemaWalk(string) (bool, bool) { return true, true }

// resultWalk checks a result's members, leaving out what the user wrote
// (a document's content and metadata, a graph's node data and positions)
// and maps keyed by the user's names (document paths, operation ids).
func resultWalk(name string) (bool, bool) {
	switch name {
	case "content", "metadata", "position", "text", "rules":
		return true, false
	case "addedNodeIds", "branchMemory", "globalMemory", "details":
		return true, false
	}
	return true, true
}

// notCamel lists the member names at and under v that are not camelCase.
func notCamel(v any, at string, w walk) []string {
	var bad []string
	switch v := v.(type) {
	case map[string]any:
		for name, sub := range v {
			checkName, descend := w(name)
			inProps := strings.HasSuffix(at, "/properties")
			if checkName && (inProps || !strings.Contains(at, "/properties")) && !camel.MatchString(name) && !isSchemaKeyword(name) {
				bad = append(bad, at+"/"+name)
			}
			if descend {
				bad = append(bad, notCamel(sub, at+"/"+name, w)...)
			}
		}
	case []any:
		for i, sub := range v {
			bad = append(bad, notCamel(sub, fmt.Sprintf("%s/%d", at, i), w)...)
		}
	}
	return bad
}

// isSchemaKeyword: JSON Schema's own members, which are not the tool's.
func isSchemaKeyword(name string) bool { return strings.HasPrefix(name, "$") }

// nulls lists where v holds null, outside what the user wrote.
func nulls(v any, at string) []string {
	var found []string
	switch v := v.(type) {
	case nil:
		return []string{at}
	case map[string]any:
		for name, sub := range v {
			if _, descend := resultWalk(name); descend || sub == nil {
				found = append(found, nulls(sub, at+"/"+name)...)
			}
		}
	case []any:
		for i, sub := range v {
			found = append(found, nulls(sub, fmt.Sprintf("%s/%d", at, i))...)
		}
	}
	return found
}
