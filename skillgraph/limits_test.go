package skillgraph

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// star is k predecessors p1..pk → x → k successors s1..sk.
func star(k int) *Graph {
	ids := []string{"x"}
	var edges []string
	for i := 1; i <= k; i++ {
		ids = append(ids, fmt.Sprintf("p%d", i), fmt.Sprintf("s%d", i))
		edges = append(edges, fmt.Sprintf("p%d>x", i), fmt.Sprintf("x>s%d", i))
	}
	return graph(ids, edges...)
}

func reconnect(id string) []Operation {
	return []Operation{{OperationID: "op1", Kind: KindDeleteNode, NodeID: id, EdgePolicy: PolicyReconnect}}
}

func requireLimit(t *testing.T, err error, limit string, max int) *LimitError {
	t.Helper()
	require.ErrorIs(t, err, ErrLimit)
	var le *LimitError
	require.ErrorAs(t, err, &le)
	assert.Equal(t, limit, le.Limit)
	assert.Equal(t, max, le.Max)
	assert.Greater(t, le.Value, le.Max)
	assert.Contains(t, err.Error(), "Options."+limit)
	assert.Contains(t, err.Error(), fmt.Sprint(max))
	return le
}

// deleteNode with reconnect on a node with k predecessors and k successors
// would add k² edges; the limit is checked before any is added, so k = 2,000
// (4 M edges, 1.5 GB before) costs a few megabytes.
func TestReconnectCountsEdgesBeforeAddingThem(t *testing.T) {
	g := star(2000)
	before := g.Clone()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	out, res, err := NewEditor(nil).Apply(g, reconnect("x"))
	runtime.ReadMemStats(&m1)
	assert.Nil(t, out)
	assert.Nil(t, res)
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, CodeLimitExceeded, oe.Code)
	assert.Equal(t, 0, oe.Index)
	assert.Contains(t, oe.Message, "2000 predecessors of x to each of its 2000 successors, up to 4000000 new edges")
	assert.Contains(t, oe.Message, "edgePolicy cascade")
	le := requireLimit(t, err, "MaxEdges", DefaultMaxEdges)
	assert.True(t, le.AtLeast)
	assert.Contains(t, err.Error(), "at least")
	assert.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(32<<20), "allocated %d bytes", m1.TotalAlloc-m0.TotalAlloc)
	assert.Equal(t, before, g)
}

func TestReconnectLimitIsExact(t *testing.T) {
	// 3 predecessors × 2 successors: 5 edges removed, 6 added, one more.
	g := star(2)
	g.Nodes = append(g.Nodes, Node{ID: "p3", Type: TypeInstruction, Data: NodeData{Label: "p3"}})
	g.Edges = append(g.Edges, Edge{ID: "e5", Source: "p3", Target: "x"})
	_, _, err := NewEditor(&Options{MaxEdges: 5}).Apply(g, reconnect("x"))
	le := requireLimit(t, err, "MaxEdges", 5)
	assert.Equal(t, 6, le.Value)
	assert.False(t, le.AtLeast)
	out, _, err := NewEditor(&Options{MaxEdges: 6}).Apply(g, reconnect("x"))
	require.NoError(t, err)
	assert.Len(t, out.Edges, 6)

	// 2 × 2 replaces 4 edges by 4: no growth, so a graph already at (or
	// past) the limit may do it.
	out, _, err = NewEditor(&Options{MaxEdges: 3}).Apply(star(2), reconnect("x"))
	require.NoError(t, err)
	assert.Len(t, out.Edges, 4)
}

// Each new edge copies the metadata of the edge it replaces: those bytes
// count against MaxRawJSONBytes before the edges exist.
func TestReconnectCountsCopiedMetadata(t *testing.T) {
	g := star(1)
	for i := 2; i <= 20; i++ {
		g.Nodes = append(g.Nodes, Node{ID: fmt.Sprintf("s%d", i), Type: TypeInstruction, Data: NodeData{Label: "s"}})
		g.Edges = append(g.Edges, Edge{ID: fmt.Sprintf("f%d", i), Source: "x", Target: fmt.Sprintf("s%d", i)})
	}
	g.Edges[0].Metadata = json.RawMessage(`{"condition":"` + strings.Repeat("c", 1000) + `"}`)
	_, _, err := NewEditor(&Options{MaxRawJSONBytes: 10000}).Apply(g, reconnect("x"))
	le := requireLimit(t, err, "MaxRawJSONBytes", 10000)
	assert.Equal(t, 20*1016, le.Value)
	_, _, err = NewEditor(&Options{MaxRawJSONBytes: 20 * 1016}).Apply(g, reconnect("x"))
	assert.NoError(t, err)
}

func TestNodeEdgeAndRawLimits(t *testing.T) {
	opts := &Options{MaxNodes: 3, MaxEdges: 2, MaxRawJSONBytes: 20}
	g := graph([]string{"a", "b"}, "a>b")
	addNode := func(id string, after string) Operation {
		return Operation{OperationID: "add" + id, Kind: KindAddNode, InsertAfter: after, Node: &Node{ID: id, Type: TypeInstruction, Data: NodeData{Label: id}}}
	}
	// A third node fits; a fourth does not, and the error names the operation.
	_, _, err := NewEditor(opts).Apply(g, []Operation{addNode("c", ""), addNode("d", "")})
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 1, oe.Index)
	assert.Equal(t, "addd", oe.OperationID)
	assert.Equal(t, 4, requireLimit(t, err, "MaxNodes", 3).Value)

	_, _, err = NewEditor(&Options{MaxEdges: 2}).Apply(g, []Operation{addNode("c", "b"), addNode("d", "a")})
	assert.Equal(t, 3, requireLimit(t, err, "MaxEdges", 2).Value, "each insertAfter adds an edge")
	_, _, err = NewEditor(opts).Apply(g, []Operation{{OperationID: "op1", Kind: KindAddEdge, Source: "b", Target: "a", Metadata: json.RawMessage(`{"k":"0123456789abcdef"}`)}})
	requireLimit(t, err, "MaxRawJSONBytes", 20)
	_, _, err = NewEditor(opts).Apply(g, []Operation{{OperationID: "op1", Kind: KindAddEdge, Source: "a", Target: "b", Metadata: json.RawMessage(`{"k":"0123456789abcdef"}`)}})
	requireLimit(t, err, "MaxRawJSONBytes", 20) // replacing metadata counts too

	// A graph already past a limit can still shrink and be updated.
	big := graph([]string{"a", "b", "c", "d", "e"}, "a>b", "b>c", "c>d", "d>e")
	out, _, err := NewEditor(opts).Apply(big, []Operation{
		{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")},
		{OperationID: "op2", Kind: KindDeleteNode, NodeID: "c", EdgePolicy: PolicyReconnect},
	})
	require.NoError(t, err)
	assert.Len(t, out.Nodes, 4)
	_, _, err = NewEditor(opts).Apply(big, []Operation{addNode("f", "")})
	requireLimit(t, err, "MaxNodes", 3)
}

func TestOperationLimit(t *testing.T) {
	ops := make([]Operation, DefaultMaxOperations+1)
	for i := range ops {
		ops[i] = Operation{OperationID: fmt.Sprintf("op%d", i), Kind: KindAddNode, Node: &Node{Type: TypeInstruction, Data: NodeData{Label: "x"}}}
	}
	g := graph([]string{"a"})
	out, _, err := NewEditor(nil).Apply(g, ops)
	assert.Nil(t, out)
	le := requireLimit(t, err, "MaxOperations", DefaultMaxOperations)
	assert.Equal(t, DefaultMaxOperations+1, le.Value)

	data, err := json.Marshal(ops)
	require.NoError(t, err)
	_, err = ParseOperations(data)
	requireLimit(t, err, "MaxOperations", DefaultMaxOperations)
	_, err = ParseEnvelopeWithOptions(data, &Options{MaxOperations: DefaultMaxOperations + 1})
	assert.NoError(t, err)
	_, _, err = NewEditor(&Options{MaxOperations: 2}).Apply(g, ops[:3])
	requireLimit(t, err, "MaxOperations", 2)
}

func TestInputLimit(t *testing.T) {
	reply := []byte(`[{"operationId":"op1","kind":"deleteNode","nodeId":"n1"}]`)
	_, err := ParseEnvelopeWithOptions(reply, &Options{MaxInputBytes: len(reply) - 1})
	le := requireLimit(t, err, "MaxInputBytes", len(reply)-1)
	assert.Equal(t, len(reply), le.Value)
	_, err = ParseEnvelopeWithOptions(reply, &Options{MaxInputBytes: len(reply)})
	assert.NoError(t, err)

	huge := make([]byte, DefaultMaxInputBytes+1)
	_, err = ParseOperations(huge)
	requireLimit(t, err, "MaxInputBytes", DefaultMaxInputBytes)
}

func TestNegativeLimitIsAnOptionError(t *testing.T) {
	for _, opts := range []*Options{{MaxNodes: -1}, {MaxEdges: -1}, {MaxOperations: -1}, {MaxRawJSONBytes: -1}, {MaxInputBytes: -1}} {
		_, _, err := NewEditor(opts).Apply(nil, nil)
		var oe *OptionError
		require.ErrorAs(t, err, &oe)
		assert.ErrorIs(t, err, ErrInvalidOption)
		assert.Contains(t, oe.Message, "-1 is negative")
		_, err = ParseEnvelopeWithOptions([]byte(`[]`), opts)
		assert.ErrorIs(t, err, ErrInvalidOption)
	}
}

// The model-reply form of the reconnect blow-up: one reply within the
// default limits (1,000 operations, 102 KB) that builds 300 predecessors
// and 398 successors around x and then deletes x with reconnect (119,400
// new edges, 129 MB before the limit) is refused at that operation.
func TestReplyThatWouldExplodeIsRefused(t *testing.T) {
	var ops []Operation
	add := func(op Operation) {
		op.OperationID = fmt.Sprintf("op%d", len(ops)+1)
		ops = append(ops, op)
	}
	node := func(id string) *Node { return &Node{ID: id, Type: TypeInstruction, Data: NodeData{Label: id}} }
	add(Operation{Kind: KindAddNode, Node: node("x")})
	for i := range 300 {
		p := fmt.Sprintf("p%d", i)
		add(Operation{Kind: KindAddNode, Node: node(p)})
		add(Operation{Kind: KindAddEdge, Source: p, Target: "x"})
	}
	for i := range 398 {
		add(Operation{Kind: KindAddNode, ParentHint: "x", Node: node(fmt.Sprintf("s%d", i))})
	}
	add(Operation{Kind: KindDeleteNode, NodeID: "x", EdgePolicy: PolicyReconnect})
	reply, err := json.Marshal(Envelope{Operations: ops})
	require.NoError(t, err)
	parsed, err := ParseOperations(reply)
	require.NoError(t, err, "the reply itself is within the limits")
	require.Len(t, parsed, DefaultMaxOperations)

	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	_, _, err = NewEditor(nil).Apply(nil, parsed)
	runtime.ReadMemStats(&m1)
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, len(ops)-1, oe.Index)
	requireLimit(t, err, "MaxEdges", DefaultMaxEdges)
	assert.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(32<<20), "allocated %d bytes", m1.TotalAlloc-m0.TotalAlloc)
}
