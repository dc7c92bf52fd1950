package skillgraph

import (
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

var fixedNow = time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)

func testEditor(opts *Options) GraphEditor {
	o := Options{Now: func() time.Time { return fixedNow }}
	if opts != nil {
		o = *opts
		if o.Now == nil {
			o.Now = func() time.Time { return fixedNow }
		}
	}
	return NewEditor(&o)
}

// graph builds a graph of instruction nodes (label = "L"+id) and edges
// given as "src>dst" with ids e1, e2, ... in order.
func graph(nodes []string, edges ...string) *Graph {
	g := &Graph{SkillID: "demo", Version: 1, Nodes: []Node{}, Edges: []Edge{}}
	for _, id := range nodes {
		g.Nodes = append(g.Nodes, Node{ID: id, Type: TypeInstruction, Data: NodeData{Label: "L" + id}})
	}
	for i, e := range edges {
		var s, t string
		for k := 0; k < len(e); k++ {
			if e[k] == '>' {
				s, t = e[:k], e[k+1:]
			}
		}
		g.Edges = append(g.Edges, Edge{ID: "e" + strconv.Itoa(i+1), Source: s, Target: t})
	}
	return g
}

// pairs lists a graph's edges as "src>dst".
func pairs(g *Graph) []string {
	out := make([]string, len(g.Edges))
	for i, e := range g.Edges {
		out[i] = e.Source + ">" + e.Target
	}
	return out
}

func nodeIDs(g *Graph) []string {
	out := make([]string, len(g.Nodes))
	for i, n := range g.Nodes {
		out[i] = n.ID
	}
	return out
}

func nodeByID(t *testing.T, g *Graph, id string) Node {
	t.Helper()
	for _, n := range g.Nodes {
		if n.ID == id {
			return n
		}
	}
	require.FailNow(t, "node not found", id)
	return Node{}
}

func edgeByPair(g *Graph, s, t string) (Edge, bool) {
	for _, e := range g.Edges {
		if e.Source == s && e.Target == t {
			return e, true
		}
	}
	return Edge{}, false
}

func ptr[T any](v T) *T { return &v }
