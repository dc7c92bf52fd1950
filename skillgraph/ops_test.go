package skillgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// opCase is one table row: apply ops to in; on success compare order and
// edges; on failure compare the code and a fragment of the message.
type opCase struct {
	name      string
	in        *Graph
	ops       []Operation
	opts      *Options
	nodes     []string // expected node order
	edges     []string // expected edges as src>dst, in edge order
	code      Code     // expected error code ("" = success)
	index     int      // expected OperationError.Index when code != ""
	msg       string   // fragment of the error message
	warnCodes []Code   // expected warning codes, in order
	check     func(t *testing.T, out *Graph, res *Result)
}

func runOpCases(t *testing.T, cases []opCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			before := tc.in.Clone()
			out, res, err := testEditor(tc.opts).Apply(tc.in, tc.ops)
			assert.Equal(t, before, tc.in, "Apply modified its input")
			if tc.code != "" {
				require.Error(t, err)
				assert.Nil(t, out)
				assert.Nil(t, res)
				var oe *OperationError
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, tc.code, oe.Code, oe.Message)
				assert.Equal(t, tc.index, oe.Index, oe.Message)
				if tc.index >= 0 {
					assert.Equal(t, tc.ops[tc.index].OperationID, oe.OperationID)
					assert.Equal(t, tc.ops[tc.index].Kind, oe.Kind)
				}
				assert.Contains(t, oe.Message, tc.msg)
				assert.True(t, errors.Is(err, tc.code.sentinel()))
				return
			}
			require.NoError(t, err)
			if tc.nodes != nil {
				assert.Equal(t, tc.nodes, nodeIDs(out), "node order")
			}
			if tc.edges != nil {
				assert.Equal(t, tc.edges, pairs(out), "edges")
			}
			var codes []Code
			for _, w := range res.Warnings {
				codes = append(codes, w.Code)
			}
			assert.Equal(t, tc.warnCodes, codes, "warnings")
			assert.True(t, Validate(out).OK(), "result must be valid: %+v", Validate(out).Errors)
			if tc.check != nil {
				tc.check(t, out, res)
			}
		})
	}
}

func TestAddNode(t *testing.T) {
	chain := func() *Graph { return graph([]string{"a", "b", "c"}, "a>b", "b>c") }
	fork := func() *Graph { return graph([]string{"a", "b", "c"}, "a>b", "a>c") }
	join := func() *Graph { return graph([]string{"a", "b", "c"}, "a>c", "b>c") }
	op := func(id string, mod func(*Operation)) []Operation {
		o := Operation{OperationID: "op1", Kind: KindAddNode, Node: &Node{ID: id, Type: TypeInstruction, Data: NodeData{Label: "New"}}}
		if mod != nil {
			mod(&o)
		}
		return []Operation{o}
	}
	runOpCases(t, []opCase{
		{name: "append without hints", in: chain(), ops: op("x", nil),
			nodes: []string{"a", "b", "c", "x"}, edges: []string{"a>b", "b>c"}, warnCodes: []Code{CodeIsolatedNode}},
		{name: "insertAfter with one outgoing edge splits it", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter = "a" }),
			nodes: []string{"a", "x", "b", "c"}, edges: []string{"b>c", "a>x", "x>b"},
			check: func(t *testing.T, out *Graph, res *Result) {
				c := res.Changes[0]
				assert.Equal(t, []string{"x"}, c.NodesAdded)
				assert.Equal(t, []EdgeRef{{"e1", "a", "b"}}, c.EdgesRemoved)
				assert.Equal(t, []EdgeRef{{"e3", "a", "x"}, {"e4", "x", "b"}}, c.EdgesAdded)
				assert.Equal(t, []string{"e3", "e4"}, c.GeneratedIDs)
			}},
		{name: "insertAfter with no outgoing edge adds one", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter = "c" }),
			nodes: []string{"a", "b", "c", "x"}, edges: []string{"a>b", "b>c", "c>x"}},
		{name: "insertAfter with two outgoing edges adds a branch and warns", in: fork(), ops: op("x", func(o *Operation) { o.InsertAfter = "a" }),
			nodes: []string{"a", "x", "b", "c"}, edges: []string{"a>b", "a>c", "a>x"}, warnCodes: []Code{CodeAmbiguousInsert}},
		{name: "insertBefore with one incoming edge splits it", in: chain(), ops: op("x", func(o *Operation) { o.InsertBefore = "c" }),
			nodes: []string{"a", "b", "x", "c"}, edges: []string{"a>b", "b>x", "x>c"}},
		{name: "insertBefore a start node makes the new node the start", in: chain(), ops: op("x", func(o *Operation) { o.InsertBefore = "a" }),
			nodes: []string{"x", "a", "b", "c"}, edges: []string{"a>b", "b>c", "x>a"}},
		{name: "insertBefore with two incoming edges adds a branch and warns", in: join(), ops: op("x", func(o *Operation) { o.InsertBefore = "c" }),
			nodes: []string{"a", "b", "x", "c"}, edges: []string{"a>c", "b>c", "x>c"}, warnCodes: []Code{CodeAmbiguousInsert, CodeMultipleStartNodes}},
		{name: "both hints split that edge", in: fork(), ops: op("x", func(o *Operation) { o.InsertAfter, o.InsertBefore = "a", "c" }),
			nodes: []string{"a", "x", "b", "c"}, edges: []string{"a>b", "a>x", "x>c"}},
		{name: "both hints without an edge between them", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter, o.InsertBefore = "a", "c" }),
			code: CodeEdgeNotFound, msg: "no edge a→c; edges leaving a are e1 (a→b)"},
		{name: "both hints naming one node", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter, o.InsertBefore = "a", "a" }),
			code: CodeInvalidOperation, msg: "both name a"},
		{name: "parentHint alone adds the edge", in: chain(), ops: op("x", func(o *Operation) { o.ParentHint = "b" }),
			nodes: []string{"a", "b", "c", "x"}, edges: []string{"a>b", "b>c", "b>x"}},
		{name: "parentHint agreeing with insertAfter", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter, o.ParentHint = "b", "b" }),
			edges: []string{"a>b", "b>x", "x>c"}},
		{name: "parentHint contradicting insertAfter warns", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter, o.ParentHint = "b", "a" }),
			edges: []string{"a>b", "b>x", "x>c"}, warnCodes: []Code{CodeParentHintIgnored}},
		{name: "unknown insertAfter lists nodes", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter = "n9" }),
			code: CodeNodeNotFound, msg: `insertAfter: node "n9" not found; nodes are a, b, c`},
		{name: "unknown parentHint", in: chain(), ops: op("x", func(o *Operation) { o.ParentHint = "zz" }),
			code: CodeNodeNotFound, msg: `parentHint: node "zz" not found`},
		{name: "wrong-case reference suggests the id", in: chain(), ops: op("x", func(o *Operation) { o.InsertAfter = "A" }),
			code: CodeNodeNotFound, msg: `did you mean "a"?`},
		{name: "generated id", in: graph([]string{"n1", "n7"}, "n1>n7"), ops: op("", func(o *Operation) { o.InsertAfter = "n7" }),
			nodes: []string{"n1", "n7", "n8"},
			check: func(t *testing.T, out *Graph, res *Result) {
				assert.Equal(t, map[string]string{"op1": "n8"}, res.AddedNodeIDs)
				assert.Equal(t, []string{"n8", "e2"}, res.Changes[0].GeneratedIDs)
			}},
		{name: "duplicate node id", in: chain(), ops: op("b", nil), code: CodeDuplicateID, msg: `node id "b" already exists (label "Lb")`},
		{name: "missing node", in: chain(), ops: op("x", func(o *Operation) { o.Node = nil }), code: CodeInvalidOperation, msg: "addNode needs node"},
		{name: "unknown type", in: chain(), ops: op("x", func(o *Operation) { o.Node.Type = "Tool" }), code: CodeInvalidOperation, msg: "types are instruction, example, tool, decision"},
		{name: "empty label", in: chain(), ops: op("x", func(o *Operation) { o.Node.Data.Label = " " }), code: CodeEmptyLabel, msg: "node x has no label"},
		{name: "tool without toolName", in: chain(), ops: op("x", func(o *Operation) { o.Node.Type = TypeTool; o.InsertAfter = "c" }), code: CodeMissingToolName},
		{name: "toolName on an instruction", in: chain(), ops: op("x", func(o *Operation) { o.Node.Data.ToolName = "Read"; o.InsertAfter = "c" }), code: CodeUnexpectedToolName},
		{name: "tool node with a pattern", in: chain(), ops: op("x", func(o *Operation) {
			o.Node.Type, o.Node.Data.ToolName, o.InsertAfter = TypeTool, "Bash(npm:*)", "c"
		}), edges: []string{"a>b", "b>c", "c>x"}},
		{name: "position kept", in: chain(), ops: op("x", func(o *Operation) { o.Node.Position = json.RawMessage(`{"x": 1.5, "y":-2}`); o.ParentHint = "c" }),
			check: func(t *testing.T, out *Graph, _ *Result) {
				assert.Equal(t, `{"x": 1.5, "y":-2}`, string(nodeByID(t, out, "x").Position))
			}},
	})
}

func TestDeleteNode(t *testing.T) {
	meta := json.RawMessage(`{"condition":"ok"}`)
	diamond := func() *Graph {
		g := graph([]string{"a", "b", "c", "d"}, "a>b", "a>c", "b>d", "c>d")
		g.Edges[0].Metadata = meta
		return g
	}
	del := func(id string, p EdgePolicy) []Operation {
		return []Operation{{OperationID: "op1", Kind: KindDeleteNode, NodeID: id, EdgePolicy: p}}
	}
	runOpCases(t, []opCase{
		{name: "cascade is the default", in: diamond(), ops: del("b", ""),
			nodes: []string{"a", "c", "d"}, edges: []string{"a>c", "c>d"},
			check: func(t *testing.T, _ *Graph, res *Result) {
				assert.Equal(t, []string{"b"}, res.Changes[0].NodesRemoved)
				assert.Equal(t, []EdgeRef{{"e1", "a", "b"}, {"e3", "b", "d"}}, res.Changes[0].EdgesRemoved)
			}},
		{name: "cascade explicit", in: diamond(), ops: del("a", PolicyCascade), edges: []string{"b>d", "c>d"}, warnCodes: []Code{CodeMultipleStartNodes}},
		{name: "reconnect links predecessors to successors with metadata", in: diamond(), ops: del("b", PolicyReconnect),
			edges: []string{"a>c", "c>d", "a>d"},
			check: func(t *testing.T, out *Graph, res *Result) {
				e, ok := edgeByPair(out, "a", "d")
				require.True(t, ok)
				assert.Equal(t, string(meta), string(e.Metadata))
				assert.Equal(t, []string{"e5"}, res.Changes[0].GeneratedIDs)
			}},
		{name: "reconnect skips pairs already connected", in: graph([]string{"a", "b", "c"}, "a>b", "b>c", "a>c"), ops: del("b", PolicyReconnect),
			edges: []string{"a>c"}},
		{name: "reconnect of a start node", in: diamond(), ops: del("a", PolicyReconnect), edges: []string{"b>d", "c>d"}, warnCodes: []Code{CodeMultipleStartNodes}},
		{name: "reconnect many to many", in: graph([]string{"a", "b", "m", "x", "y"}, "a>m", "b>m", "m>x", "m>y"), ops: del("m", PolicyReconnect),
			edges: []string{"a>x", "a>y", "b>x", "b>y"}, warnCodes: []Code{CodeMultipleStartNodes}},
		{name: "error policy refuses a connected node", in: diamond(), ops: del("b", PolicyError),
			code: CodeHasEdges, msg: "node b has 2 edges: e1 (a→b), e3 (b→d)"},
		{name: "error policy deletes an isolated node", in: graph([]string{"a", "b", "z"}, "a>b"), ops: del("z", PolicyError),
			nodes: []string{"a", "b"}, edges: []string{"a>b"}},
		{name: "unknown policy", in: diamond(), ops: del("b", "Cascade"), code: CodeInvalidOperation, msg: "policies are cascade (the default), reconnect, error"},
		{name: "missing node", in: diamond(), ops: del("n9", ""), code: CodeNodeNotFound, msg: `node "n9" not found; nodes are a, b, c, d`},
		{name: "last node", in: graph([]string{"a"}), ops: del("a", ""), nodes: []string{}, edges: []string{}},
		{name: "node deleted earlier in the batch", in: diamond(), ops: append(del("b", ""), Operation{OperationID: "op2", Kind: KindUpdateNode, NodeID: "b", Label: ptr("x")}),
			code: CodeNodeNotFound, index: 1, msg: "(operations[0] deleted it)"},
	})
}

func TestUpdateNode(t *testing.T) {
	in := func() *Graph {
		g := graph([]string{"a", "t"}, "a>t")
		g.Nodes[0].Data.Markdown = "old"
		g.Nodes[1].Type, g.Nodes[1].Data.ToolName = TypeTool, "Read"
		return g
	}
	upd := func(mod func(*Operation)) []Operation {
		o := Operation{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a"}
		mod(&o)
		return []Operation{o}
	}
	runOpCases(t, []opCase{
		{name: "label only", in: in(), ops: upd(func(o *Operation) { o.Label = ptr("New") }),
			check: func(t *testing.T, out *Graph, res *Result) {
				n := nodeByID(t, out, "a")
				assert.Equal(t, NodeData{Label: "New", Markdown: "old"}, n.Data)
				assert.Equal(t, []string{"label"}, res.Changes[0].UpdatedFields)
			}},
		{name: "markdown set", in: in(), ops: upd(func(o *Operation) { o.Markdown = SetString("# new") }),
			check: func(t *testing.T, out *Graph, _ *Result) {
				assert.Equal(t, "# new", nodeByID(t, out, "a").Data.Markdown)
			}},
		{name: "markdown null clears", in: in(), ops: upd(func(o *Operation) { o.Markdown = ClearString() }),
			check: func(t *testing.T, out *Graph, _ *Result) { assert.Equal(t, "", nodeByID(t, out, "a").Data.Markdown) }},
		{name: "type to tool with toolName", in: in(), ops: upd(func(o *Operation) { o.Type = TypeTool; o.ToolName = SetString("Bash(git:*)") }),
			check: func(t *testing.T, out *Graph, res *Result) {
				n := nodeByID(t, out, "a")
				assert.Equal(t, TypeTool, n.Type)
				assert.Equal(t, "Bash(git:*)", n.Data.ToolName)
				assert.Equal(t, []string{"type", "toolName"}, res.Changes[0].UpdatedFields)
			}},
		{name: "type to tool without toolName", in: in(), ops: upd(func(o *Operation) { o.Type = TypeTool }), code: CodeMissingToolName, msg: "tool node a has no toolName"},
		{name: "tool to instruction clears toolName", in: in(), ops: []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "t", Type: TypeInstruction}},
			warnCodes: []Code{CodeToolNameCleared},
			check:     func(t *testing.T, out *Graph, _ *Result) { assert.Equal(t, "", nodeByID(t, out, "t").Data.ToolName) }},
		{name: "toolName null on a tool", in: in(), ops: []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "t", ToolName: ClearString()}},
			code: CodeMissingToolName},
		{name: "toolName on an instruction", in: in(), ops: upd(func(o *Operation) { o.ToolName = SetString("Read") }), code: CodeUnexpectedToolName},
		{name: "empty label", in: in(), ops: upd(func(o *Operation) { o.Label = ptr("") }), code: CodeEmptyLabel},
		{name: "fixed later in the batch", in: in(), ops: append(upd(func(o *Operation) { o.Type = TypeTool }),
			Operation{OperationID: "op2", Kind: KindUpdateNode, NodeID: "a", ToolName: SetString("Grep")}),
			check: func(t *testing.T, out *Graph, _ *Result) {
				assert.Equal(t, "Grep", nodeByID(t, out, "a").Data.ToolName)
			}},
		{name: "nothing to change", in: in(), ops: upd(func(o *Operation) {}), code: CodeInvalidOperation, msg: "changes nothing"},
		{name: "same values report no change", in: in(), ops: upd(func(o *Operation) { o.Label = ptr("La") }),
			check: func(t *testing.T, _ *Graph, res *Result) {
				assert.Empty(t, res.Changes[0].NodesUpdated)
				assert.Contains(t, res.Changes[0].Summary, "no change")
			}},
		{name: "unknown type", in: in(), ops: upd(func(o *Operation) { o.Type = "step" }), code: CodeInvalidOperation, msg: `type "step" unknown`},
		{name: "missing node", in: in(), ops: []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "b", Label: ptr("x")}}, code: CodeNodeNotFound, msg: "nodes are a, t"},
	})
}

func TestAddEdge(t *testing.T) {
	in := func() *Graph {
		g := graph([]string{"a", "b", "c"}, "a>b", "b>c")
		g.Edges[0].Metadata = json.RawMessage(`{"condition":"old"}`)
		return g
	}
	add := func(s, tg string, mod func(*Operation)) []Operation {
		o := Operation{OperationID: "op1", Kind: KindAddEdge, Source: s, Target: tg}
		if mod != nil {
			mod(&o)
		}
		return []Operation{o}
	}
	runOpCases(t, []opCase{
		{name: "new edge with generated id", in: in(), ops: add("a", "c", nil), edges: []string{"a>b", "b>c", "a>c"},
			check: func(t *testing.T, out *Graph, res *Result) {
				assert.Equal(t, "e3", out.Edges[2].ID)
				assert.Equal(t, []string{"e3"}, res.Changes[0].GeneratedIDs)
			}},
		{name: "new edge with given id and metadata", in: in(), ops: add("a", "c", func(o *Operation) { o.ID = "skip"; o.Metadata = json.RawMessage(`{"label":"fast path"}`) }),
			check: func(t *testing.T, out *Graph, res *Result) {
				assert.Equal(t, Edge{ID: "skip", Source: "a", Target: "c", Metadata: json.RawMessage(`{"label":"fast path"}`)}, out.Edges[2])
				assert.Empty(t, res.Changes[0].GeneratedIDs)
			}},
		{name: "existing pair: metadata overwritten, id kept", in: in(), ops: add("a", "b", func(o *Operation) { o.Metadata = json.RawMessage(`{"condition":"new"}`) }),
			edges: []string{"a>b", "b>c"},
			check: func(t *testing.T, out *Graph, res *Result) {
				assert.Equal(t, "e1", out.Edges[0].ID)
				assert.Equal(t, `{"condition":"new"}`, string(out.Edges[0].Metadata))
				assert.Equal(t, []EdgeRef{{"e1", "a", "b"}}, res.Changes[0].EdgesReplaced)
			}},
		{name: "existing pair without metadata leaves it", in: in(), ops: add("a", "b", nil),
			check: func(t *testing.T, out *Graph, res *Result) {
				assert.Equal(t, `{"condition":"old"}`, string(out.Edges[0].Metadata))
				assert.Empty(t, res.Changes[0].EdgesReplaced)
			}},
		{name: "existing pair with another id warns", in: in(), ops: add("a", "b", func(o *Operation) { o.ID = "e9" }),
			edges: []string{"a>b", "b>c"}, warnCodes: []Code{CodeEdgeIDIgnored}},
		{name: "existing pair rejected by option", in: in(), opts: &Options{RejectDuplicateEdges: true}, ops: add("a", "b", nil),
			code: CodeDuplicateEdge, msg: "a→b is already connected by edge e1"},
		{name: "id used by another edge", in: in(), ops: add("a", "c", func(o *Operation) { o.ID = "e2" }), code: CodeDuplicateID, msg: "already used by e2 (b→c)"},
		{name: "self-loop", in: in(), ops: add("b", "b", nil), code: CodeSelfLoop},
		{name: "cycle", in: in(), ops: add("c", "a", nil), code: CodeNoStartNode, msg: "a → b → c → a"},
		{name: "cycle below a start node", in: graph([]string{"s", "a", "b"}, "s>a", "a>b"), ops: add("b", "a", nil), code: CodeCycle, msg: "a → b → a (edges e2, e3)"},
		{name: "unknown source", in: in(), ops: add("x", "a", nil), code: CodeNodeNotFound, msg: `source: node "x" not found; nodes are a, b, c`},
		{name: "unknown target", in: in(), ops: add("a", "x", nil), code: CodeNodeNotFound, msg: `target: node "x" not found`},
		{name: "missing target", in: in(), ops: add("a", "", nil), code: CodeInvalidOperation, msg: "needs both source and target"},
		{name: "metadata not an object", in: in(), ops: add("a", "c", func(o *Operation) { o.Metadata = json.RawMessage(`[1]`) }), code: CodeInvalidOperation, msg: "metadata must be a JSON object"},
	})
}

func TestDeleteEdge(t *testing.T) {
	in := func() *Graph { return graph([]string{"a", "b", "c"}, "a>b", "b>c", "a>c") }
	del := func(mod func(*Operation)) []Operation {
		o := Operation{OperationID: "op1", Kind: KindDeleteEdge}
		mod(&o)
		return []Operation{o}
	}
	runOpCases(t, []opCase{
		{name: "by id", in: in(), ops: del(func(o *Operation) { o.EdgeID = "e3" }), edges: []string{"a>b", "b>c"},
			check: func(t *testing.T, _ *Graph, res *Result) {
				assert.Equal(t, []EdgeRef{{"e3", "a", "c"}}, res.Changes[0].EdgesRemoved)
			}},
		{name: "by pair", in: in(), ops: del(func(o *Operation) { o.Source, o.Target = "a", "b" }), edges: []string{"b>c", "a>c"}, warnCodes: []Code{CodeMultipleStartNodes}},
		{name: "by pair removes parallel edges", in: graph([]string{"a", "b"}, "a>b", "a>b"), ops: del(func(o *Operation) { o.Source, o.Target = "a", "b" }),
			edges: []string{}, warnCodes: []Code{CodeIsolatedNode, CodeIsolatedNode}},
		{name: "both forms", in: in(), ops: del(func(o *Operation) { o.EdgeID, o.Source, o.Target = "e1", "a", "b" }), code: CodeInvalidOperation, msg: "exactly one way"},
		{name: "neither form", in: in(), ops: del(func(o *Operation) {}), code: CodeInvalidOperation, msg: "exactly one way"},
		{name: "source without target", in: in(), ops: del(func(o *Operation) { o.Source = "a" }), code: CodeInvalidOperation, msg: "needs both source and target"},
		{name: "missing id lists edges", in: in(), ops: del(func(o *Operation) { o.EdgeID = "e9" }), code: CodeEdgeNotFound,
			msg: `edge "e9" not found; edges are e1 (a→b), e2 (b→c), e3 (a→c)`},
		{name: "missing pair lists what leaves the source", in: in(), ops: del(func(o *Operation) { o.Source, o.Target = "b", "a" }), code: CodeEdgeNotFound,
			msg: "no edge b→a; edges leaving b are e2 (b→c)"},
		{name: "pair with unknown node", in: in(), ops: del(func(o *Operation) { o.Source, o.Target = "q", "a" }), code: CodeNodeNotFound},
		{name: "removed earlier in the batch", in: in(), ops: append(del(func(o *Operation) { o.EdgeID = "e1" }), Operation{OperationID: "op2", Kind: KindDeleteEdge, EdgeID: "e1"}),
			code: CodeEdgeNotFound, index: 1, msg: "(operations[0] removed it)"},
	})
}

func TestCommonFields(t *testing.T) {
	g := func() *Graph { return graph([]string{"a", "b"}, "a>b") }
	runOpCases(t, []opCase{
		{name: "empty operationId", in: g(), ops: []Operation{{Kind: KindDeleteEdge, EdgeID: "e1"}}, code: CodeInvalidOperation, msg: "operationId is empty"},
		{name: "repeated operationId", in: g(), ops: []Operation{
			{OperationID: "x", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")},
			{OperationID: "x", Kind: KindUpdateNode, NodeID: "b", Label: ptr("B")},
		}, code: CodeDuplicateID, index: 1, msg: "already used by operations[0]"},
		{name: "unknown kind", in: g(), ops: []Operation{{OperationID: "x", Kind: "AddEdge"}}, code: CodeInvalidOperation, msg: `did you mean "addEdge"?`},
		{name: "field of another kind", in: g(), ops: []Operation{{OperationID: "x", Kind: KindDeleteNode, NodeID: "a", Label: ptr("A")}},
			code: CodeInvalidOperation, msg: "label not used by deleteNode; its fields are operationId, kind, humanReadableDescription, nodeId, edgePolicy"},
		{name: "empty batch", in: g(), ops: nil, nodes: []string{"a", "b"},
			check: func(t *testing.T, out *Graph, res *Result) {
				assert.Equal(t, 1, out.Version, "an empty batch keeps the version")
				assert.Equal(t, "No operations; the graph is unchanged.", res.Summary)
			}},
	})
}

// A node with more out-edges than pairScan uses the lazily built pair map.
func TestWideNode(t *testing.T) {
	ids := []string{"hub"}
	var edges []string
	for i := 1; i <= 20; i++ {
		ids = append(ids, fmt.Sprintf("c%d", i))
		edges = append(edges, fmt.Sprintf("hub>c%d", i))
	}
	g := func() *Graph {
		g := graph(ids, append(edges, "hub>c5")...) // e21 repeats hub→c5
		return g
	}
	runOpCases(t, []opCase{
		{name: "operations on a wide node", in: g(), ops: []Operation{
			{OperationID: "op1", Kind: KindAddEdge, Source: "hub", Target: "c3", Metadata: json.RawMessage(`{"w":1}`)},
			{OperationID: "op2", Kind: KindDeleteEdge, Source: "hub", Target: "c5"},
			{OperationID: "op3", Kind: KindAddNode, InsertAfter: "hub", InsertBefore: "c7", Node: &Node{ID: "mid", Type: TypeDecision, Data: NodeData{Label: "M"}}},
			{OperationID: "op4", Kind: KindAddEdge, Source: "hub", Target: "c7"},
			{OperationID: "op5", Kind: KindAddEdge, Source: "c1", Target: "c2"},
			{OperationID: "op6", Kind: KindDeleteNode, NodeID: "c1", EdgePolicy: PolicyReconnect},
		}, warnCodes: []Code{CodeIsolatedNode},
			check: func(t *testing.T, out *Graph, res *Result) {
				e, ok := edgeByPair(out, "hub", "c3")
				require.True(t, ok)
				assert.Equal(t, `{"w":1}`, string(e.Metadata))
				_, ok = edgeByPair(out, "hub", "c5")
				assert.False(t, ok, "both parallel edges are gone")
				assert.Len(t, res.Changes[1].EdgesRemoved, 2)
				_, ok = edgeByPair(out, "hub", "mid")
				assert.True(t, ok)
				_, ok = edgeByPair(out, "mid", "c7")
				assert.True(t, ok)
				assert.Len(t, res.Changes[3].EdgesAdded, 1, "hub→c7 was split away, so it is new again")
				assert.Empty(t, res.Changes[5].EdgesAdded, "hub→c2 already exists: reconnect skips it")
			}},
		{name: "missing pair on a wide node", in: g(), ops: []Operation{{OperationID: "op1", Kind: KindDeleteEdge, Source: "hub", Target: "hub"}},
			code: CodeEdgeNotFound, msg: "edges leaving hub are e1 (hub→c1)"},
	})
}
