package skillgraph

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestValidate(t *testing.T) {
	tool := func(g *Graph, i int, name string) *Graph {
		g.Nodes[i].Type, g.Nodes[i].Data.ToolName = TypeTool, name
		return g
	}
	cases := []struct {
		name     string
		g        *Graph
		errors   []Code
		warnings []Code
		msg      string // fragment of the first issue's message
	}{
		{name: "nil graph", g: nil},
		{name: "empty graph", g: &Graph{}},
		{name: "single node", g: graph([]string{"a"})},
		{name: "chain", g: graph([]string{"a", "b", "c"}, "a>b", "b>c")},
		{name: "tool with pattern", g: tool(graph([]string{"a", "b"}, "a>b"), 1, "Bash(npm:*)")},
		{name: "empty node id", g: graph([]string{"a", ""}, "a>b"), errors: []Code{CodeEmptyID, CodeDanglingEdge}, warnings: []Code{CodeIsolatedNode, CodeIsolatedNode}, msg: "nodes[1] has an empty id"},
		{name: "duplicate node id", g: graph([]string{"a", "a"}), errors: []Code{CodeDuplicateID}, warnings: []Code{CodeIsolatedNode, CodeIsolatedNode}, msg: "node id a is used more than once (again at nodes[1])"},
		{name: "duplicate edge id", g: &Graph{Nodes: graph([]string{"a", "b", "c"}).Nodes, Edges: []Edge{{ID: "x", Source: "a", Target: "b"}, {ID: "x", Source: "b", Target: "c"}}},
			errors: []Code{CodeDuplicateID}, msg: "edge id x is used more than once"},
		{name: "empty edge id", g: &Graph{Nodes: graph([]string{"a", "b"}).Nodes, Edges: []Edge{{Source: "a", Target: "b"}}}, errors: []Code{CodeEmptyID}},
		{name: "dangling target", g: graph([]string{"a"}, "a>ghost"), errors: []Code{CodeDanglingEdge}, msg: `points to node "ghost"`},
		{name: "self-loop", g: graph([]string{"a", "b"}, "a>b", "b>b"), errors: []Code{CodeSelfLoop}, msg: "edge e2 connects node b to itself"},
		{name: "cycle below a start", g: graph([]string{"s", "a", "b", "c"}, "s>a", "a>b", "b>c", "c>a"), errors: []Code{CodeCycle},
			msg: "edges form a cycle a → b → c → a (edges e2, e3, e4)"},
		{name: "no start node", g: graph([]string{"a", "b"}, "a>b", "b>a"), errors: []Code{CodeNoStartNode}, msg: "no start node: every node has an incoming edge"},
		{name: "bad type", g: func() *Graph { g := graph([]string{"a"}); g.Nodes[0].Type = "Instruction"; return g }(), errors: []Code{CodeInvalidNodeType}},
		{name: "blank label", g: func() *Graph { g := graph([]string{"a"}); g.Nodes[0].Data.Label = " \t"; return g }(), errors: []Code{CodeEmptyLabel}},
		{name: "tool without toolName", g: tool(graph([]string{"a"}), 0, ""), errors: []Code{CodeMissingToolName}},
		{name: "toolName on an example", g: func() *Graph {
			g := graph([]string{"a"})
			g.Nodes[0].Type, g.Nodes[0].Data.ToolName = TypeExample, "Read"
			return g
		}(), errors: []Code{CodeUnexpectedToolName}},
		{name: "isolated node", g: graph([]string{"a", "b", "c"}, "a>b"), warnings: []Code{CodeIsolatedNode}, msg: "node c is isolated"},
		{name: "two start nodes", g: graph([]string{"a", "b", "c"}, "a>c", "b>c"), warnings: []Code{CodeMultipleStartNodes}, msg: "2 start nodes (a, b)"},
		{name: "parallel edges", g: graph([]string{"a", "b"}, "a>b", "a>b"), warnings: []Code{CodeParallelEdges}, msg: "edge e2 repeats the pair a→b"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := Validate(tc.g)
			var errs, warns []Code
			for _, is := range r.Errors {
				errs = append(errs, is.Code)
			}
			for _, is := range r.Warnings {
				warns = append(warns, is.Code)
			}
			assert.Equal(t, tc.errors, errs)
			assert.Equal(t, tc.warnings, warns)
			assert.Equal(t, len(tc.errors) == 0, r.OK())
			if tc.msg != "" {
				first := append(r.Errors, r.Warnings...)[0]
				assert.Contains(t, first.Message, tc.msg)
			}
		})
	}
}

func TestValidateCycleIDs(t *testing.T) {
	r := Validate(graph([]string{"s", "a", "b"}, "s>a", "a>b", "b>a"))
	if assert.Len(t, r.Errors, 1) {
		assert.Equal(t, []string{"a", "b"}, r.Errors[0].NodeIDs)
		assert.Equal(t, []string{"e2", "e3"}, r.Errors[0].EdgeIDs)
	}
}
