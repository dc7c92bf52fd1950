package skillgraph

import (
	"encoding/json"
	"time"
)

// NodeType is the kind of step a node stands for.
type NodeType string

// The node types of a SkillGraph.
const (
	TypeInstruction NodeType = "instruction"
	TypeExample     NodeType = "example"
	TypeTool        NodeType = "tool"
	TypeDecision    NodeType = "decision"
)

// NodeTypes lists every node type, in the order messages and schemas name them.
var nodeTypes = []NodeType{TypeInstruction, TypeExample, TypeTool, TypeDecision}

// Valid reports whether t is one of the four node types (case-sensitive).
func (t NodeType) Valid() bool {
	switch t {
	case TypeInstruction, TypeExample, TypeTool, TypeDecision:
		return true
	}
	return false
}

// Graph is a skill as a directed acyclic graph of steps. Node order is
// meaningful: it is the order a GUI lists the nodes in, the order insertAfter
// and insertBefore act on, and the tie-break of every rendering.
//
// The JSON form is
//
//	{"skillId","version","updatedAt","nodes":[{"id","type","data":{"label","markdown","toolName"},"position"}],
//	 "edges":[{"id","source","target","metadata"}]}
//
// position and metadata are raw JSON that nothing here interprets or
// changes (encoding/json only drops their insignificant whitespace when it
// writes them); unknown fields are dropped.
type Graph struct {
	SkillID   string    `json:"skillId"`
	Version   int       `json:"version"`
	UpdatedAt time.Time `json:"updatedAt,omitzero"`
	Nodes     []Node    `json:"nodes"`
	Edges     []Edge    `json:"edges"`
}

// Node is one step of a skill.
type Node struct {
	ID   string   `json:"id,omitempty"` // empty only in addNode, for a generated id
	Type NodeType `json:"type"`
	Data NodeData `json:"data"`
	// Position is the GUI's layout data, kept untouched (nil when absent).
	Position json.RawMessage `json:"position,omitempty"`
}

// NodeData is what a node says. Label is required; ToolName is required for
// tool nodes and must be empty for the others.
type NodeData struct {
	Label    string `json:"label,omitempty"`
	Markdown string `json:"markdown,omitempty"`
	// ToolName is a tool name or permission pattern, such as Read or Bash(npm:*).
	ToolName string `json:"toolName,omitempty"`
}

// Edge says that Target follows Source.
type Edge struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Target string `json:"target"`
	// Metadata is the edge's data, such as a condition, kept untouched (nil when absent).
	Metadata json.RawMessage `json:"metadata,omitempty"`
}

// MarshalJSON writes nodes and edges as arrays even when they are nil.
func (g Graph) MarshalJSON() ([]byte, error) {
	type plain Graph
	p := plain(g)
	if p.Nodes == nil {
		p.Nodes = []Node{}
	}
	if p.Edges == nil {
		p.Edges = []Edge{}
	}
	return json.Marshal(p)
}

// Clone returns a deep copy of g: no slice, including Position and Metadata
// bytes, is shared with g. Clone of nil is nil.
func (g *Graph) Clone() *Graph {
	if g == nil {
		return nil
	}
	c := *g
	c.Nodes, c.Edges = cloneParts(g.Nodes, g.Edges)
	return &c
}

// cloneParts copies nodes and edges, putting every raw JSON value into one
// shared arena so a 10,000-node copy costs a handful of allocations.
func cloneParts(nodes []Node, edges []Edge) ([]Node, []Edge) {
	size := 0
	for i := range nodes {
		size += len(nodes[i].Position)
	}
	for i := range edges {
		size += len(edges[i].Metadata)
	}
	arena := make([]byte, 0, size)
	raw := func(r json.RawMessage) json.RawMessage {
		if r == nil {
			return nil
		}
		start := len(arena)
		arena = append(arena, r...)
		return json.RawMessage(arena[start:len(arena):len(arena)])
	}
	var ns []Node
	if nodes != nil {
		ns = make([]Node, len(nodes))
		for i := range nodes {
			ns[i] = nodes[i]
			ns[i].Position = raw(nodes[i].Position)
		}
	}
	var es []Edge
	if edges != nil {
		es = make([]Edge, len(edges))
		for i := range edges {
			es[i] = edges[i]
			es[i].Metadata = raw(edges[i].Metadata)
		}
	}
	return ns, es
}
