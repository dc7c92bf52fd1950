package skillgraph

import (
	"encoding/json"
	"errors"
	"sort"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/xeipuuv/gojsonschema"
)

func TestParseSyntax(t *testing.T) {
	cases := []struct {
		name         string
		in           string
		offset       int64
		line, column int
	}{
		{"empty", ``, 0, 1, 1},
		{"truncated", `[{"operationId": "op1"`, 22, 1, 23},
		{"bad character", "[\n  {\"kind\": }", 13, 2, 12},
		{"code fence", "```json\n[]\n```", 0, 1, 1},
		{"trailing prose", `[] done`, 3, 1, 4},
		{"two values", "{\"operations\":[]}\n{}", 18, 2, 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := ParseOperations([]byte(tc.in))
			assert.Nil(t, ops)
			require.ErrorIs(t, err, ErrSyntax)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tc.offset, se.Offset)
			assert.Equal(t, tc.line, se.Line)
			assert.Equal(t, tc.column, se.Column)
			assert.False(t, errors.Is(err, ErrSchema))
		})
	}
}

func TestParseSchema(t *testing.T) {
	cases := []struct {
		name     string
		in       string
		problems []string // Path + ": " + Message, sorted as reported
	}{
		{"top level scalar", `42`, []string{`(root): must be an array of operations or an object {"operations": [...], "summary": "..."}; got a number`}},
		{"operations not an array", `{"operations": {}}`, []string{"operations: must be array, got object"}},
		{"missing operations", `{"summary": "x"}`, []string{`(root): missing required field "operations"`}},
		{"wrong-case envelope field", `{"Operations": []}`, []string{
			`(root): missing required field "operations"`,
			`(root): unknown field "Operations" (field names are case-sensitive: did you mean "operations"?); allowed fields are operations, summary`}},
		{"operation not an object", `["op"]`, []string{"operations[0]: must be object, got string"}},
		{"missing kind", `[{"operationId": "op1"}]`, []string{`operations[0]: missing required field "kind"`}},
		{"missing operationId", `[{"kind": "deleteNode", "nodeId": "a"}]`, []string{`operations[0]: missing required field "operationId"`}},
		{"wrong-case kind", `[{"operationId": "op1", "kind": "DeleteNode", "nodeId": "a"}]`, []string{
			`operations[0].kind: "DeleteNode" is not allowed; allowed values are "addNode", "deleteNode", "updateNode", "addEdge", "deleteEdge" (values are case-sensitive: did you mean "deleteNode"?)`}},
		{"wrong-case field", `[{"operationId": "op1", "kind": "deleteNode", "nodeID": "a"}]`, []string{
			`operations[0]: missing required field "nodeId"`,
			`operations[0]: unknown field "nodeID" (field names are case-sensitive: did you mean "nodeId"?); allowed fields are operationId, kind, humanReadableDescription, nodeId, edgePolicy`}},
		{"field of another kind", `[{"operationId": "op1", "kind": "deleteNode", "nodeId": "a", "label": "x"}]`, []string{
			`operations[0]: unknown field "label"; allowed fields are operationId, kind, humanReadableDescription, nodeId, edgePolicy`}},
		{"bad edge policy", `[{"operationId": "op1", "kind": "deleteNode", "nodeId": "a", "edgePolicy": "keep"}]`, []string{
			`operations[0].edgePolicy: "keep" is not allowed; allowed values are "cascade", "reconnect", "error"`}},
		{"empty id", `[{"operationId": "op1", "kind": "deleteNode", "nodeId": ""}]`, []string{`operations[0].nodeId: must not be empty`}},
		{"addNode without node", `[{"operationId": "op1", "kind": "addNode"}]`, []string{`operations[0]: missing required field "node"`}},
		{"node without type", `[{"operationId": "op1", "kind": "addNode", "node": {"label": "x"}}]`, []string{`operations[0].node: missing required field "type"`}},
		{"node type wrong case", `[{"operationId": "op1", "kind": "addNode", "node": {"type": "Example", "label": "x"}}]`, []string{
			`operations[0].node.type: "Example" is not allowed; allowed values are "instruction", "example", "tool", "decision" (values are case-sensitive: did you mean "example"?)`}},
		{"unknown node field", `[{"operationId": "op1", "kind": "addNode", "node": {"type": "example", "title": "x"}}]`, []string{
			`operations[0].node: unknown field "title"; allowed fields are id, type, data, position, label, markdown, toolName`}},
		{"unknown data field", `[{"operationId": "op1", "kind": "addNode", "node": {"type": "example", "data": {"Label": "x"}}}]`, []string{
			`operations[0].node.data: unknown field "Label" (field names are case-sensitive: did you mean "label"?); allowed fields are label, markdown, toolName`}},
		{"label twice, differently", `[{"operationId": "op1", "kind": "addNode", "node": {"type": "example", "label": "a", "data": {"label": "b"}}}]`, []string{
			`operations[0].node: node.label is "a" but node.data.label is "b"; give it once, either at the top level or in data`}},
		{"null label", `[{"operationId": "op1", "kind": "updateNode", "nodeId": "a", "label": null}]`, []string{`operations[0].label: must be string, got null`}},
		{"metadata not an object", `[{"operationId": "op1", "kind": "addEdge", "source": "a", "target": "b", "metadata": "x"}]`, []string{
			`operations[0].metadata: must be object, got string`}},
		{"deleteEdge with both forms", `[{"operationId": "op1", "kind": "deleteEdge", "edgeId": "e1", "source": "a", "target": "b"}]`, []string{
			`operations[0]: name the edge in exactly one way: either edgeId, or source and target`}},
		{"deleteEdge with neither", `[{"operationId": "op1", "kind": "deleteEdge"}]`, []string{
			`operations[0]: name the edge in exactly one way: either edgeId, or source and target`}},
		{"deleteEdge with source only", `[{"operationId": "op1", "kind": "deleteEdge", "source": "a"}]`, []string{
			`operations[0]: name the edge in exactly one way: either edgeId, or source and target`}},
		{"problems of several operations", `[{"operationId": "op1", "kind": "addEdge", "source": "a"}, {"operationId": "op2", "kind": "updateNode", "nodeId": "a", "type": "tool", "toolName": 3}]`, []string{
			`operations[0]: missing required field "target"`,
			`operations[1].toolName: must be string or null, got integer`}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ops, err := ParseOperations([]byte(tc.in))
			assert.Nil(t, ops)
			require.ErrorIs(t, err, ErrSchema)
			var se *SchemaError
			require.ErrorAs(t, err, &se)
			var got []string
			for _, p := range se.Problems {
				got = append(got, p.String())
			}
			assert.Equal(t, tc.problems, got)
		})
	}
}

func TestParseAccepts(t *testing.T) {
	reply := `{
	  "operations": [
	    {"operationId": "op1", "kind": "addNode", "humanReadableDescription": "lint first",
	     "node": {"type": "tool", "label": "Lint", "toolName": "Bash(npm run lint:*)", "position": {"x": 1}}, "insertAfter": "n1"},
	    {"operationId": "op2", "kind": "addNode", "node": {"id": "n9", "type": "example", "data": {"label": "Ex", "markdown": "…"}}, "parentHint": "n1"},
	    {"operationId": "op3", "kind": "updateNode", "nodeId": "n1", "markdown": null, "toolName": null, "type": "instruction"},
	    {"operationId": "op4", "kind": "deleteNode", "nodeId": "n2", "edgePolicy": "reconnect"},
	    {"operationId": "op5", "kind": "addEdge", "source": "n1", "target": "n3", "metadata": {"condition": "ok"}, "id": "e7"},
	    {"operationId": "op6", "kind": "deleteEdge", "edgeId": "e1"},
	    {"operationId": "op7", "kind": "deleteEdge", "source": "n1", "target": "n3"}
	  ],
	  "summary": "Adds a lint step."
	}`
	env, err := ParseEnvelope([]byte(reply))
	require.NoError(t, err)
	assert.Equal(t, "Adds a lint step.", env.Summary)
	want := []Operation{
		{OperationID: "op1", Kind: KindAddNode, HumanReadableDescription: "lint first", InsertAfter: "n1",
			Node: &Node{Type: TypeTool, Data: NodeData{Label: "Lint", ToolName: "Bash(npm run lint:*)"}, Position: json.RawMessage(`{"x": 1}`)}},
		{OperationID: "op2", Kind: KindAddNode, ParentHint: "n1", Node: &Node{ID: "n9", Type: TypeExample, Data: NodeData{Label: "Ex", Markdown: "…"}}},
		{OperationID: "op3", Kind: KindUpdateNode, NodeID: "n1", Markdown: ClearString(), ToolName: ClearString(), Type: TypeInstruction},
		{OperationID: "op4", Kind: KindDeleteNode, NodeID: "n2", EdgePolicy: PolicyReconnect},
		{OperationID: "op5", Kind: KindAddEdge, Source: "n1", Target: "n3", Metadata: json.RawMessage(`{"condition": "ok"}`), ID: "e7"},
		{OperationID: "op6", Kind: KindDeleteEdge, EdgeID: "e1"},
		{OperationID: "op7", Kind: KindDeleteEdge, Source: "n1", Target: "n3"},
	}
	assert.Equal(t, want, env.Operations)

	// The same operations as a bare array.
	var w struct{ Operations json.RawMessage }
	require.NoError(t, json.Unmarshal([]byte(reply), &w))
	ops, err := ParseOperations(w.Operations)
	require.NoError(t, err)
	assert.Equal(t, want, ops)

	ops, err = ParseOperations([]byte(` [] `))
	require.NoError(t, err)
	assert.Empty(t, ops)
}

// The exported schema is one document: what ParseOperations accepts the root
// schema accepts, and what it refuses for a schema reason the root refuses.
func TestSchemaDocument(t *testing.T) {
	root, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(Schema()))
	require.NoError(t, err)
	for _, doc := range []string{
		`{"operations": [{"operationId": "a", "kind": "deleteEdge", "source": "x", "target": "y"}], "summary": "s"}`,
		`{"operations": [{"operationId": "a", "kind": "addNode", "node": {"type": "tool", "label": "T", "toolName": "Read"}}]}`,
		`{"operations": [{"operationId": "a", "kind": "updateNode", "nodeId": "n", "markdown": null}]}`,
	} {
		res, err := root.Validate(gojsonschema.NewStringLoader(doc))
		require.NoError(t, err)
		assert.True(t, res.Valid(), "%s: %v", doc, res.Errors())
		_, err = ParseOperations([]byte(doc))
		assert.NoError(t, err)
	}
	for _, doc := range []string{
		`{"operations": [{"operationId": "a", "kind": "deleteEdge", "edgeId": "e", "source": "x"}]}`,
		`{"operations": [{"operationId": "a", "kind": "addNode", "node": {"type": "Tool"}}]}`,
		`{"operations": [{"operationId": "a", "kind": "deleteNode", "NodeId": "n"}]}`,
		`{"operations": [], "extra": 1}`,
	} {
		res, err := root.Validate(gojsonschema.NewStringLoader(doc))
		require.NoError(t, err)
		assert.False(t, res.Valid(), doc)
		_, err = ParseOperations([]byte(doc))
		assert.ErrorIs(t, err, ErrSchema)
	}

	// The field lists used in messages match the schema's properties.
	var s struct {
		Properties  map[string]any
		Definitions map[string]struct{ Properties map[string]any }
	}
	require.NoError(t, json.Unmarshal(Schema(), &s))
	keys := func(m map[string]any) []string {
		var k []string
		for x := range m {
			k = append(k, x)
		}
		sort.Strings(k)
		return k
	}
	for name, list := range fields {
		props := s.Properties
		if name != "envelope" {
			props = s.Definitions[name].Properties
		}
		sorted := append([]string(nil), list...)
		sort.Strings(sorted)
		assert.Equal(t, keys(props), sorted, name)
	}
	for _, k := range kinds {
		b, err := KindSchema(k)
		require.NoError(t, err)
		_, err = gojsonschema.NewSchema(gojsonschema.NewBytesLoader(b))
		assert.NoError(t, err, k)
	}
	_, err = KindSchema("AddNode")
	assert.ErrorIs(t, err, ErrInvalidOperation)

	// Schema returns a copy.
	b := Schema()
	b[0] = 'X'
	assert.Equal(t, byte('{'), Schema()[0])
}

func FuzzParseOperations(f *testing.F) {
	f.Add([]byte(`[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"x"}}]`))
	f.Add([]byte(`{"operations":[{"operationId":"op1","kind":"deleteEdge","edgeId":"e1"}],"summary":"s"}`))
	f.Add([]byte(`[{"operationId":"op1","kind":"updateNode","nodeId":"n1","markdown":null}]`))
	f.Add([]byte(`{"operations":5}`))
	f.Add([]byte(`[`))
	f.Fuzz(func(t *testing.T, data []byte) {
		ops, err := ParseOperations(data)
		checkParseLimits(t, data, ops, err)
		if err != nil {
			assert.Nil(t, ops)
			var se *SyntaxError
			var sc *SchemaError
			var le *LimitError
			if errors.As(err, &se) {
				assert.LessOrEqual(t, se.Offset, int64(len(data)))
			} else if !errors.As(err, &sc) && !errors.As(err, &le) {
				t.Fatalf("error of unexpected type %T: %v", err, err)
			}
			return
		}
		// What parses re-encodes to something that parses to the same.
		b, err := json.Marshal(ops)
		require.NoError(t, err)
		again, err := ParseOperations(b)
		require.NoError(t, err, "%s", b)
		assert.Equal(t, len(ops), len(again))
	})
}

// checkParseLimits parses data again with small limits: either a
// *LimitError that is true of data, or the same outcome as with the
// defaults (ops, err).
func checkParseLimits(t *testing.T, data []byte, ops []Operation, err error) {
	t.Helper()
	const maxOps, maxBytes = 2, 200
	env, small := ParseEnvelopeWithOptions(data, &Options{MaxOperations: maxOps, MaxInputBytes: maxBytes})
	var le *LimitError
	if errors.As(small, &le) {
		assert.Nil(t, env)
		switch le.Limit {
		case "MaxInputBytes":
			assert.Greater(t, len(data), maxBytes)
		case "MaxOperations":
			assert.Greater(t, le.Value, maxOps)
			assert.LessOrEqual(t, len(data), maxBytes)
		default:
			t.Fatalf("unexpected limit %s", le.Limit)
		}
		return
	}
	require.LessOrEqual(t, len(data), maxBytes, "input over MaxInputBytes was read")
	assert.Equal(t, err == nil, small == nil, "default: %v; small limits: %v", err, small)
	if small == nil {
		assert.LessOrEqual(t, len(env.Operations), maxOps)
		assert.Equal(t, ops, env.Operations)
	}
}
