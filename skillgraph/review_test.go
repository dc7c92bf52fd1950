package skillgraph

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A self-loop in the input sits in both the incoming and the outgoing edges
// of its node; deleting that node must remove it once.
func TestApplyDeleteNodeWithSelfLoopInInput(t *testing.T) {
	for _, policy := range []EdgePolicy{PolicyCascade, PolicyReconnect} {
		t.Run(string(policy), func(t *testing.T) {
			in := graph([]string{"a", "b", "c"}, "a>b", "b>c", "b>b")
			before := in.Clone()
			out, res, err := testEditor(nil).Apply(in, []Operation{{OperationID: "op1", Kind: KindDeleteNode, NodeID: "b", EdgePolicy: policy}})
			require.NoError(t, err)
			assert.Equal(t, before, in)
			assert.Equal(t, []string{"a", "c"}, nodeIDs(out))
			var removed []string
			for _, e := range res.Changes[0].EdgesRemoved {
				removed = append(removed, e.ID)
			}
			assert.ElementsMatch(t, []string{"e1", "e2", "e3"}, removed, "each edge removed exactly once")
			if policy == PolicyReconnect {
				assert.Equal(t, []string{"a>c"}, pairs(out))
			} else {
				assert.Empty(t, out.Edges)
			}
			assert.Empty(t, Validate(out).Errors)
		})
	}
}

// A self-loop the batch does not remove is reported against the input.
func TestApplyKeptSelfLoopIsReported(t *testing.T) {
	in := graph([]string{"a", "b"}, "a>b", "b>b")
	_, _, err := testEditor(nil).Apply(in, []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("x")}})
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, CodeSelfLoop, oe.Code)
}

func TestValidateRefusesControlCharactersAndBlankIDs(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(g *Graph)
		code Code
	}{
		{"node id with newline", func(g *Graph) { g.Nodes[0].ID = "a\nb"; g.Edges[0].Source = "a\nb" }, CodeInvalidID},
		{"edge id with tab", func(g *Graph) { g.Edges[0].ID = "e\t1" }, CodeInvalidID},
		{"blank node id", func(g *Graph) { g.Nodes[0].ID = "  "; g.Edges[0].Source = "  " }, CodeEmptyID},
		{"blank edge id", func(g *Graph) { g.Edges[0].ID = " " }, CodeEmptyID},
		{"skillId with newline", func(g *Graph) { g.SkillID = "x\nname: y" }, CodeInvalidID},
		{"toolName with newline", func(g *Graph) { g.Nodes[1].Type = TypeTool; g.Nodes[1].Data.ToolName = "Read:\nname:evil" }, CodeInvalidToolName},
		{"invalid position", func(g *Graph) { g.Nodes[0].Position = json.RawMessage("nope") }, CodeInvalidJSON},
		{"invalid metadata", func(g *Graph) { g.Edges[0].Metadata = json.RawMessage("{") }, CodeInvalidJSON},
	} {
		t.Run(tc.name, func(t *testing.T) {
			g := graph([]string{"a", "b"}, "a>b")
			tc.edit(g)
			rep := Validate(g)
			require.NotEmpty(t, rep.Errors)
			assert.Equal(t, tc.code, rep.Errors[0].Code, "%v", rep.Errors)
		})
	}
}

func TestApplyRefusesBrokenInputGraph(t *testing.T) {
	for name, edit := range map[string]func(g *Graph){
		"invalid position": func(g *Graph) { g.Nodes[0].Position = json.RawMessage("nope") },
		"invalid metadata": func(g *Graph) { g.Edges[0].Metadata = json.RawMessage("[1,") },
		"control char id":  func(g *Graph) { g.Nodes[1].ID = "b\x00"; g.Edges[0].Target = "b\x00" },
		"blank node id":    func(g *Graph) { g.Nodes[1].ID = "\t "; g.Edges[0].Target = "\t " },
	} {
		t.Run(name, func(t *testing.T) {
			g := graph([]string{"a", "b"}, "a>b")
			edit(g)
			before := g.Clone()
			out, _, err := testEditor(nil).Apply(g, []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("x")}})
			var ge *GraphError
			require.ErrorAs(t, err, &ge)
			assert.ErrorIs(t, err, ErrInvalidGraph)
			assert.Nil(t, out)
			assert.Equal(t, before, g)
		})
	}
}

func TestApplyAddNodeRefusesBadFields(t *testing.T) {
	for name, n := range map[string]*Node{
		"invalid position": {Type: TypeInstruction, Data: NodeData{Label: "x"}, Position: json.RawMessage("nope")},
		"blank id":         {ID: "  ", Type: TypeInstruction, Data: NodeData{Label: "x"}},
		"control char id":  {ID: "n\n9", Type: TypeInstruction, Data: NodeData{Label: "x"}},
	} {
		t.Run(name, func(t *testing.T) {
			g := graph([]string{"a"})
			out, _, err := testEditor(nil).Apply(g, []Operation{{OperationID: "op1", Kind: KindAddNode, Node: n}})
			var oe *OperationError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, CodeInvalidOperation, oe.Code)
			assert.Nil(t, out)
		})
	}
	g := graph([]string{"a", "b"})
	_, _, err := testEditor(nil).Apply(g, []Operation{{OperationID: "op1", Kind: KindAddEdge, Source: "a", Target: "b", ID: "e\r1"}})
	assert.ErrorIs(t, err, ErrInvalidOperation)
	_, _, err = testEditor(nil).Apply(g, []Operation{{OperationID: "op1", Kind: KindAddNode, Node: &Node{Type: TypeTool, Data: NodeData{Label: "x", ToolName: "Read\nname: y"}}}})
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, CodeInvalidToolName, oe.Code)
}

func TestParseReportsWrongCaseHeadFields(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`[{"operationID":"op1","kind":"deleteNode","nodeId":"n1"}]`, `unknown field "operationID" (field names are case-sensitive: did you mean "operationId"?)`},
		{`[{"operationId":"op1","Kind":"deleteNode","nodeId":"n1"}]`, `unknown field "Kind" (field names are case-sensitive: did you mean "kind"?)`},
	} {
		_, err := ParseOperations([]byte(tc.in))
		var se *SchemaError
		require.ErrorAs(t, err, &se)
		assert.Contains(t, err.Error(), tc.want)
		assert.Contains(t, err.Error(), "missing required field")
	}
}

func TestParseEnumNull(t *testing.T) {
	_, err := ParseOperations([]byte(`[{"operationId":"op1","kind":null}]`))
	require.ErrorIs(t, err, ErrSchema)
	assert.NotContains(t, err.Error(), "<nil>")
	assert.Contains(t, err.Error(), "got null")
}

func TestParseRefusesDuplicateKeys(t *testing.T) {
	for _, tc := range []struct{ in, path string }{
		{`[{"operationId":"op1","kind":"deleteNode","nodeId":"x","nodeId":"y"}]`, "operations[0].nodeId"},
		{`{"operations":[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"a","label":"b"}}]}`, "operations[0].node.label"},
		{`{"summary":"a","operations":[],"summary":"b"}`, "summary"},
	} {
		_, err := ParseOperations([]byte(tc.in))
		var se *SchemaError
		require.ErrorAs(t, err, &se, tc.in)
		require.NotEmpty(t, se.Problems)
		assert.Equal(t, tc.path, se.Problems[0].Path)
		assert.Contains(t, se.Problems[0].Message, "more than once")
	}
	_, err := ParseOperations([]byte(`[{"operationId":"op1","kind":"deleteNode","nodeId":"x"},{"operationId":"op2","kind":"deleteNode","nodeId":"y"}]`))
	assert.NoError(t, err, "the same key in different objects is fine")
}

func TestMermaidEscapesAmpersand(t *testing.T) {
	g := graph([]string{"a"})
	g.Nodes[0].Data.Label = "A & B &lt;"
	out := Mermaid(g)
	assert.Contains(t, out, `"A #38; B #38;lt;"`)
	assert.NotContains(t, out, "&")
}

func TestRenderersSkipDanglingEdges(t *testing.T) {
	g := graph([]string{"a", "b"}, "a>b", "a>ghost")
	assert.NotContains(t, DOT(g), "ghost")
	assert.NotContains(t, Mermaid(g), "ghost")
	assert.Contains(t, DOT(g), `"a" -> "b"`)
}
