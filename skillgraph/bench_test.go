package skillgraph

import (
	"encoding/json"
	"fmt"
	"math/rand"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/cputime"
)

// benchGraph is a chain n1→n2→…→nN with a position on every node.
func benchGraph(n int) *Graph {
	g := &Graph{SkillID: "bench", Version: 1, Nodes: make([]Node, n), Edges: make([]Edge, 0, n)}
	for i := 1; i <= n; i++ {
		g.Nodes[i-1] = Node{ID: fmt.Sprintf("n%d", i), Type: TypeInstruction,
			Data: NodeData{Label: fmt.Sprintf("step %d", i)}, Position: json.RawMessage(fmt.Sprintf(`{"x":0,"y":%d}`, i*80))}
		if i > 1 {
			g.Edges = append(g.Edges, Edge{ID: fmt.Sprintf("e%d", i-1), Source: fmt.Sprintf("n%d", i-1), Target: fmt.Sprintf("n%d", i)})
		}
	}
	return g
}

// benchOps is a mixed batch of n/10 operations on benchGraph(n) that touch
// disjoint parts of the chain, shuffled: 25% addNode insertAfter (splits an
// edge), 15% addNode parentHint, 20% updateNode, 15% addEdge, 10%
// deleteEdge, 15% deleteNode with reconnect.
func benchOps(n int) []Operation {
	var ops []Operation
	id := func(i int) string { return fmt.Sprintf("n%d", i) }
	per := n / 40
	for k := 0; k < per; k++ {
		base := 40 * k
		ops = append(ops, Operation{Kind: KindAddNode, InsertAfter: id(base + 40),
			Node: &Node{Type: TypeInstruction, Data: NodeData{Label: "inserted"}}})
		if k < per*6/10 {
			ops = append(ops, Operation{Kind: KindAddNode, ParentHint: id(base + 1),
				Node: &Node{Type: TypeExample, Data: NodeData{Label: "example", Markdown: "…"}}})
			ops = append(ops, Operation{Kind: KindAddEdge, Source: id(base + 3), Target: id(base + 8),
				Metadata: json.RawMessage(`{"condition":"fast path"}`)})
			ops = append(ops, Operation{Kind: KindDeleteNode, NodeID: id(base + 20), EdgePolicy: PolicyReconnect})
		}
		if k < per*8/10 {
			ops = append(ops, Operation{Kind: KindUpdateNode, NodeID: id(base + 2), Label: ptr("renamed"), Markdown: SetString("new text")})
		}
		if k < per*4/10 {
			ops = append(ops, Operation{Kind: KindDeleteEdge, EdgeID: fmt.Sprintf("e%d", base+10)})
		}
	}
	rand.New(rand.NewSource(1)).Shuffle(len(ops), func(i, j int) { ops[i], ops[j] = ops[j], ops[i] })
	for i := range ops {
		ops[i].OperationID = fmt.Sprintf("op%d", i+1)
	}
	return ops
}

// benchOptions raises the limits to the benchmarks' largest graph, far
// past the defaults, which are sized for real skills.
func benchOptions() *Options {
	return &Options{MaxNodes: 200000, MaxEdges: 400000, MaxOperations: 10000, MaxRawJSONBytes: 64 << 20, MaxInputBytes: 64 << 20}
}

func TestBenchBatchApplies(t *testing.T) {
	g := benchGraph(10000)
	ops := benchOps(10000)
	require.Len(t, ops, 1000)
	out, res, err := NewEditor(benchOptions()).Apply(g, ops)
	require.NoError(t, err)
	require.Len(t, res.Changes, 1000)
	require.Equal(t, 10000+250+150-150, len(out.Nodes))
	require.True(t, Validate(out).OK())
}

// BenchmarkApply: a 1,000-operation batch on a 10,000-node graph, and the
// same mix at other sizes to show cost growing linearly with V+E+ops.
func BenchmarkApply(b *testing.B) {
	for _, size := range []struct{ nodes, ops int }{
		{1000, 100}, {10000, 100}, {10000, 1000}, {30000, 3000}, {100000, 10000},
	} {
		g := benchGraph(size.nodes)
		ops := benchOps(size.nodes)[:size.ops]
		ed := NewEditor(benchOptions())
		b.Run(fmt.Sprintf("nodes=%d/ops=%d", size.nodes, size.ops), func(b *testing.B) {
			b.ReportAllocs()
			start := cputime.Process()
			for b.Loop() {
				if _, _, err := ed.Apply(g, ops); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
		})
	}
}

// BenchmarkParseOperations: stages 1 and 2 (JSON and schema) for the
// 1,000-operation batch, for comparison; Apply is stage 3.
func BenchmarkParseOperations(b *testing.B) {
	data, err := json.Marshal(Envelope{Operations: benchOps(10000)})
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := ParseEnvelopeWithOptions(data, benchOptions()); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkReconnectRefused: deleteNode with reconnect on a node with 2,000
// predecessors and 2,000 successors (4 M new edges) is refused by MaxEdges
// after counting past the limit, without adding an edge.
func BenchmarkReconnectRefused(b *testing.B) {
	g := star(2000)
	ops := reconnect("x")
	ed := NewEditor(nil)
	b.ReportAllocs()
	start := cputime.Process()
	for b.Loop() {
		if _, _, err := ed.Apply(g, ops); err == nil {
			b.Fatal("want a limit error")
		}
	}
	b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
}
