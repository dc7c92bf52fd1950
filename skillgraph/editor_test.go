package skillgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestApplyIsAtomic(t *testing.T) {
	g := graph([]string{"a", "b", "c"}, "a>b", "b>c")
	g.Nodes[0].Position = json.RawMessage(`{"x":0,"y":0}`)
	g.Edges[0].Metadata = json.RawMessage(`{"condition":"x"}`)
	before := g.Clone()
	ops := []Operation{
		{OperationID: "op1", Kind: KindAddNode, InsertAfter: "a", Node: &Node{ID: "x", Type: TypeInstruction, Data: NodeData{Label: "X"}}},
		{OperationID: "op2", Kind: KindUpdateNode, NodeID: "a", Label: ptr("changed"), Markdown: SetString("md")},
		{OperationID: "op3", Kind: KindAddEdge, Source: "a", Target: "x", Metadata: json.RawMessage(`{"label":"new"}`)},
		{OperationID: "op4", Kind: KindDeleteNode, NodeID: "b", EdgePolicy: PolicyReconnect},
		{OperationID: "op5", Kind: KindDeleteEdge, EdgeID: "e404"},
		{OperationID: "op6", Kind: KindAddNode, Node: &Node{Type: TypeExample, Data: NodeData{Label: "never"}}},
	}
	out, res, err := testEditor(nil).Apply(g, ops)
	require.Error(t, err)
	assert.Nil(t, out)
	assert.Nil(t, res)
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, OperationError{Index: 4, OperationID: "op5", Kind: KindDeleteEdge, Code: CodeEdgeNotFound,
		Message: `edge "e404" not found; edges are e3 (a→x), e5 (x→c)`}, *oe)
	assert.True(t, errors.Is(err, ErrEdgeNotFound))
	assert.Equal(t, before, g, "the failed batch changed the input graph")

	// The first four alone succeed, and still leave the input alone.
	out, _, err = testEditor(nil).Apply(g, ops[:4])
	require.NoError(t, err)
	assert.Equal(t, before, g)
	assert.Equal(t, []string{"a", "x", "c"}, nodeIDs(out))
	assert.Equal(t, []string{"a>x", "x>c"}, pairs(out))
}

func TestApplyDoesNotShareMemory(t *testing.T) {
	g := graph([]string{"a", "b"}, "a>b")
	g.Nodes[0].Position = json.RawMessage(`{"x":1}`)
	g.Edges[0].Metadata = json.RawMessage(`{"k":1}`)
	out, _, err := testEditor(nil).Apply(g, []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "b", Label: ptr("B")}})
	require.NoError(t, err)
	out.Nodes[0].Position[2] = 'X'
	out.Edges[0].Metadata[2] = 'X'
	out.Nodes[1].ID = "zz"
	assert.Equal(t, `{"x":1}`, string(g.Nodes[0].Position))
	assert.Equal(t, `{"k":1}`, string(g.Edges[0].Metadata))
	assert.Equal(t, "b", g.Nodes[1].ID)
}

func TestVersionAndClock(t *testing.T) {
	g := graph([]string{"a"})
	g.Version = 7
	op := []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")}}
	clock := time.Date(2030, 1, 2, 3, 4, 5, 0, time.UTC)

	out, res, err := NewEditor(&Options{Now: func() time.Time { return clock }}).ApplyAt(g, 7, op)
	require.NoError(t, err)
	assert.Equal(t, 8, out.Version)
	assert.Equal(t, clock, out.UpdatedAt)
	assert.Contains(t, res.Summary, "version 7 → 8")

	_, _, err = NewEditor(nil).ApplyAt(g, 6, op)
	require.ErrorIs(t, err, ErrVersionConflict)
	var vc *VersionConflictError
	require.ErrorAs(t, err, &vc)
	assert.Equal(t, VersionConflictError{Base: 6, Current: 7}, *vc)

	// A nil graph is the empty graph at version 0.
	_, _, err = NewEditor(nil).ApplyAt(nil, 1, nil)
	assert.ErrorIs(t, err, ErrVersionConflict)
	_, _, err = NewEditor(nil).ApplyAt(nil, 0, nil)
	assert.NoError(t, err)
	_, _, err = (*Editor)(nil).ApplyAt(g, 7, op)
	assert.ErrorIs(t, err, ErrNotInitialized)
}

func TestNilGraphIsEmpty(t *testing.T) {
	out, res, err := testEditor(nil).Apply(nil, []Operation{
		{OperationID: "op1", Kind: KindAddNode, Node: &Node{Type: TypeInstruction, Data: NodeData{Label: "first"}}},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"n1"}, nodeIDs(out))
	assert.Equal(t, 1, out.Version)
	assert.Equal(t, "n1", res.AddedNodeIDs["op1"])
}

func TestInvariantBlame(t *testing.T) {
	cyc := graph([]string{"a", "b", "c"}, "a>b", "b>c", "c>b")
	cases := []struct {
		name  string
		in    *Graph
		ops   []Operation
		code  Code
		index int
		msg   string
	}{
		{"the edge that closes a cycle", graph([]string{"a", "b", "c", "d"}, "a>b", "b>c"), []Operation{
			{OperationID: "op1", Kind: KindAddEdge, Source: "c", Target: "d"},
			{OperationID: "op2", Kind: KindAddEdge, Source: "d", Target: "b"},
			{OperationID: "op3", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")},
		}, CodeCycle, 1, "after the batch: edges form a cycle b → c → d → b (edges e2, e3, e4)"},
		{"the earliest faulty operation wins", graph([]string{"a", "b"}, "a>b"), []Operation{
			{OperationID: "op1", Kind: KindUpdateNode, NodeID: "b", Label: ptr("")},
			{OperationID: "op2", Kind: KindAddEdge, Source: "b", Target: "a"},
		}, CodeEmptyLabel, 0, "node b has no label"},
		{"a cycle already in the input", cyc, []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")}},
			CodeCycle, -1, "already like this before the batch"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := testEditor(nil).Apply(tc.in, tc.ops)
			var oe *OperationError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tc.code, oe.Code)
			assert.Equal(t, tc.index, oe.Index)
			assert.Contains(t, oe.Message, tc.msg)
			assert.ErrorIs(t, err, ErrInvariant)
		})
	}
	// A batch may repair the input: deleting the back edge makes it valid.
	out, _, err := testEditor(nil).Apply(cyc, []Operation{{OperationID: "op1", Kind: KindDeleteEdge, Source: "c", Target: "b"}})
	require.NoError(t, err)
	assert.True(t, Validate(out).OK())
	// And intermediate states may break invariants the final graph keeps.
	out, _, err = testEditor(nil).Apply(graph([]string{"a", "b"}, "a>b"), []Operation{
		{OperationID: "op1", Kind: KindAddEdge, Source: "b", Target: "a"},
		{OperationID: "op2", Kind: KindDeleteEdge, Source: "a", Target: "b"},
	})
	require.NoError(t, err)
	assert.Equal(t, []string{"b>a"}, pairs(out))
}

func TestUnindexableGraph(t *testing.T) {
	cases := map[string]*Graph{
		"duplicate node id": graph([]string{"a", "a"}),
		"empty node id":     graph([]string{"a", ""}),
		"dangling edge":     graph([]string{"a"}, "a>zz"),
		"duplicate edge id": {Nodes: graph([]string{"a", "b"}).Nodes, Edges: []Edge{{ID: "e", Source: "a", Target: "b"}, {ID: "e", Source: "b", Target: "a"}}},
	}
	for name, g := range cases {
		t.Run(name, func(t *testing.T) {
			_, _, err := testEditor(nil).Apply(g, nil)
			require.ErrorIs(t, err, ErrInvalidGraph)
			var ge *GraphError
			require.ErrorAs(t, err, &ge)
			assert.NotEmpty(t, ge.Report.Errors)
		})
	}
}

func TestIDGeneration(t *testing.T) {
	g := graph([]string{"n1", "n2"}, "n1>n2")
	ops := []Operation{
		{OperationID: "op1", Kind: KindAddNode, ParentHint: "n2", Node: &Node{Type: TypeInstruction, Data: NodeData{Label: "gen"}}},
		{OperationID: "op2", Kind: KindAddNode, ParentHint: "n2", Node: &Node{ID: "n3", Type: TypeInstruction, Data: NodeData{Label: "named later"}}},
		{OperationID: "op3", Kind: KindAddEdge, ID: "e2", Source: "n1", Target: "n3"},
	}
	out, res, err := testEditor(nil).Apply(g, ops)
	require.NoError(t, err)
	assert.Equal(t, map[string]string{"op1": "n4", "op2": "n3"}, res.AddedNodeIDs, "n3 is named by a later operation, so the generator skips it")
	assert.Equal(t, []string{"e1", "e3", "e4", "e2"}, func() []string {
		var ids []string
		for _, e := range out.Edges {
			ids = append(ids, e.ID)
		}
		return ids
	}())

	seq := 0
	custom := NewEditor(&Options{NewID: func(prefix string) string {
		seq++
		return fmt.Sprintf("%s-%d", prefix, seq%3)
	}})
	out, res, err = custom.Apply(graph([]string{"n-1"}), []Operation{
		{OperationID: "op1", Kind: KindAddNode, ParentHint: "n-1", Node: &Node{Type: TypeInstruction, Data: NodeData{Label: "x"}}},
	})
	require.NoError(t, err)
	assert.Equal(t, "n-2", res.AddedNodeIDs["op1"], "n-1 is taken, so the next candidate is used")
	assert.Equal(t, "e-0", out.Edges[0].ID)

	stuck := NewEditor(&Options{NewID: func(string) string { return "a" }})
	_, _, err = stuck.Apply(graph([]string{"a"}), []Operation{{OperationID: "op1", Kind: KindAddNode, Node: &Node{Type: TypeInstruction, Data: NodeData{Label: "x"}}}})
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, CodeInvalidOperation, oe.Code)
	assert.Contains(t, oe.Message, "ID generator")
}

func TestLongListsAreCapped(t *testing.T) {
	ids := make([]string, 50)
	for i := range ids {
		ids[i] = fmt.Sprintf("n%d", i+1)
	}
	_, _, err := testEditor(nil).Apply(graph(ids), []Operation{{OperationID: "op1", Kind: KindDeleteNode, NodeID: "n99"}})
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.True(t, strings.HasSuffix(oe.Message, "n19, n20, … and 30 more"), oe.Message)
}

func TestSummary(t *testing.T) {
	g := graph([]string{"a", "b"}, "a>b")
	_, res, err := testEditor(nil).Apply(g, []Operation{
		{OperationID: "op1", Kind: KindAddNode, InsertAfter: "a", HumanReadableDescription: "テストを追加",
			Node: &Node{ID: "t", Type: TypeInstruction, Data: NodeData{Label: "Run tests"}}},
		{OperationID: "op2", Kind: KindUpdateNode, NodeID: "b", Label: ptr("Ship"), Markdown: SetString("now")},
		{OperationID: "op3", Kind: KindAddNode, Node: &Node{ID: "z", Type: TypeExample, Data: NodeData{Label: "Ex"}}},
	})
	require.NoError(t, err)
	want := `Applied 3 operations (version 1 → 2): nodes +2 −0 ~1, edges +2 −1 ~0.
1. addNode op1: added instruction node t "Run tests"; added edges a→t (e2), t→b (e3); removed edge a→b (e1) — "テストを追加"
2. updateNode op2: updated label, markdown of node b "Ship"
3. addNode op3: added example node z "Ex"
1 warning:
- node z is isolated: no edge enters or leaves it`
	assert.Equal(t, want, res.Summary)
}

func TestGraphJSONRoundTrip(t *testing.T) {
	in := `{"skillId":"review","version":3,"updatedAt":"2026-11-20T10:00:00Z","nodes":[` +
		`{"id":"n1","type":"instruction","data":{"label":"Read","markdown":"read the diff"},"position":{"x": 10, "y": 20.50}},` +
		`{"id":"n2","type":"tool","data":{"label":"Run","toolName":"Bash(npm:*)"},"position":null}],` +
		`"edges":[{"id":"e1","source":"n1","target":"n2","metadata":{"condition": "tests exist", "w": [1,2]}}]}`
	var g Graph
	require.NoError(t, json.Unmarshal([]byte(in), &g))
	out, err := json.Marshal(g)
	require.NoError(t, err)
	assert.JSONEq(t, in, string(out))
	// The Go values keep the bytes; encoding/json only drops insignificant
	// whitespace when it writes them (number spelling and key order stay).
	assert.Equal(t, `{"x": 10, "y": 20.50}`, string(g.Nodes[0].Position))
	assert.Equal(t, `null`, string(g.Nodes[1].Position))
	assert.Equal(t, `{"condition": "tests exist", "w": [1,2]}`, string(g.Edges[0].Metadata))
	assert.Contains(t, string(out), `"position":{"x":10,"y":20.50}`)

	// Through Apply as well.
	next, _, err := testEditor(nil).Apply(&g, []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "n2", Label: ptr("Run npm")}})
	require.NoError(t, err)
	assert.Equal(t, g.Nodes[0].Position, next.Nodes[0].Position)
	assert.Equal(t, g.Nodes[1].Position, next.Nodes[1].Position)
	assert.Equal(t, g.Edges[0].Metadata, next.Edges[0].Metadata)

	empty, err := json.Marshal(Graph{SkillID: "x"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"skillId":"x","version":0,"nodes":[],"edges":[]}`, string(empty))
}

func TestOperationJSON(t *testing.T) {
	ops := []Operation{
		{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Markdown: ClearString(), ToolName: SetString("Read"), Label: ptr("L")},
		{OperationID: "op2", Kind: KindAddNode, InsertAfter: "a", Node: &Node{ID: "x", Type: TypeTool, Data: NodeData{Label: "X", ToolName: "Grep"}, Position: json.RawMessage(`{"x":1}`)}},
		{OperationID: "op3", Kind: KindAddEdge, Source: "a", Target: "x", Metadata: json.RawMessage(`{"c":1}`)},
	}
	b, err := json.Marshal(ops)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"markdown":null`)
	back, err := ParseOperations(b)
	require.NoError(t, err, "what Operation marshals must pass the schema")
	assert.Equal(t, ops, back)
}

func TestConcurrentUse(t *testing.T) {
	g := graph([]string{"a", "b", "c"}, "a>b", "b>c")
	before := g.Clone()
	ed := NewEditor(nil)
	reply := []byte(`[{"operationId": "op1", "kind": "addNode", "node": {"type": "example", "label": "x"}, "insertAfter": "b"}]`)
	done := make(chan error)
	for range 8 {
		go func() {
			ops, err := ParseOperations(reply)
			if err == nil {
				var out *Graph
				out, _, err = ed.Apply(g, ops)
				if err == nil && len(out.Nodes) != 4 {
					err = fmt.Errorf("got %d nodes", len(out.Nodes))
				}
			}
			done <- err
		}()
	}
	for range 8 {
		assert.NoError(t, <-done)
	}
	assert.Equal(t, before, g)
}
