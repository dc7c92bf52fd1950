package skillgraph_test

import (
	"errors"
	"fmt"
	"time"

	"github.com/mnemobank/mnemobank/skillgraph"
)

func reviewSkill() *skillgraph.Graph {
	return &skillgraph.Graph{
		SkillID: "code-review",
		Version: 3,
		Nodes: []skillgraph.Node{
			{ID: "n1", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Read the diff"}},
			{ID: "n2", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Write the review"}},
		},
		Edges: []skillgraph.Edge{{ID: "e1", Source: "n1", Target: "n2"}},
	}
}

// A model's reply is parsed (JSON, then schema) and applied (operations,
// then invariants), all or nothing.
func ExampleEditor_Apply() {
	reply := []byte(`{
	  "operations": [
	    {"operationId": "op1", "kind": "addNode", "humanReadableDescription": "run the tests before reviewing",
	     "node": {"type": "tool", "label": "Run tests", "toolName": "Bash(go:*)"}, "insertAfter": "n1"},
	    {"operationId": "op2", "kind": "updateNode", "nodeId": "n2", "markdown": "Cite file and line."}
	  ],
	  "summary": "Adds a test run."
	}`)
	ops, err := skillgraph.ParseOperations(reply)
	if err != nil {
		fmt.Println(err)
		return
	}
	editor := skillgraph.NewEditor(&skillgraph.Options{
		Now: func() time.Time { return time.Date(2026, 11, 21, 9, 0, 0, 0, time.UTC) },
	})
	g := reviewSkill()
	next, res, err := editor.ApplyAt(g, 3, ops) // 3: the version the model was shown

	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(res.Summary)
	fmt.Println("new node:", res.AddedNodeIDs["op1"], "version:", next.Version, next.UpdatedAt.Format(time.RFC3339))
	fmt.Println("input untouched:", len(g.Nodes), "nodes at version", g.Version)

	// A bad reply fails as a whole, naming what exists instead.
	_, _, err = editor.Apply(g, []skillgraph.Operation{
		{OperationID: "op1", Kind: skillgraph.KindUpdateNode, NodeID: "n1", Label: ptr("Read")},
		{OperationID: "op2", Kind: skillgraph.KindDeleteNode, NodeID: "n9"},
	})
	fmt.Println(err)
	var oe *skillgraph.OperationError
	if errors.As(err, &oe) && errors.Is(err, skillgraph.ErrNodeNotFound) {
		fmt.Println(oe.Index, oe.Code)
	}
	// Output:
	// Applied 2 operations (version 3 → 4): nodes +1 −0 ~1, edges +2 −1 ~0.
	// 1. addNode op1: added tool node n3 "Run tests"; added edges n1→n3 (e2), n3→n2 (e3); removed edge n1→n2 (e1) — "run the tests before reviewing"
	// 2. updateNode op2: updated markdown of node n2 "Write the review"
	// new node: n3 version: 4 2026-11-21T09:00:00Z
	// input untouched: 2 nodes at version 3
	// skillgraph: operations[1] "op2" (deleteNode): NODE_NOT_FOUND: nodeId: node "n9" not found; nodes are n1, n2
	// 1 NODE_NOT_FOUND
}

func ExampleMermaid() {
	g := reviewSkill()
	g.Nodes = append(g.Nodes, skillgraph.Node{ID: "n3", Type: skillgraph.TypeDecision, Data: skillgraph.NodeData{Label: `Approve?`}})
	g.Edges = append(g.Edges, skillgraph.Edge{ID: "e2", Source: "n2", Target: "n3"})
	fmt.Print(skillgraph.Mermaid(g))
	// Output:
	// flowchart TD
	//     n1["Read the diff"]
	//     n2["Write the review"]
	//     n3{"Approve?"}
	//     n1 --> n2
	//     n2 --> n3
}

func ExampleSkillMD() {
	g := reviewSkill()
	g.Nodes = append(g.Nodes, skillgraph.Node{ID: "t", Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "Diff", ToolName: "Bash(git:*)"}})
	g.Edges = append(g.Edges, skillgraph.Edge{ID: "e2", Source: "n1", Target: "t"})
	md, err := skillgraph.SkillMD(g, &skillgraph.SkillMDOptions{Description: "Review a change.", Lang: skillgraph.LangEN})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Print(md)
	// Output:
	// ---
	// name: code-review
	// description: Review a change.
	// allowed-tools: Bash(git:*)
	// ---
	//
	// ## Instructions
	//
	// 1. **Read the diff**
	// 2. **Write the review**
	// 3. **Diff** — `Bash(git:*)`
}

func ExampleValidate() {
	g := reviewSkill()
	g.Edges = append(g.Edges, skillgraph.Edge{ID: "e2", Source: "n2", Target: "n1"})
	for _, is := range skillgraph.Validate(g).Errors {
		fmt.Println(is.Code, is.Message)
	}
	// Output:
	// NO_START_NODE no start node: every node has an incoming edge; edges form a cycle n1 → n2 → n1 (edges e1, e2); a skill graph must be acyclic: delete or reverse one of these edges
}

func ExampleParseOperations() {
	_, err := skillgraph.ParseOperations([]byte(`[{"operationId": "op1", "kind": "deleteNode", "nodeID": "n1"}]`))
	var se *skillgraph.SchemaError
	if errors.As(err, &se) {
		for _, p := range se.Problems {
			fmt.Println(p)
		}
	}
	// Output:
	// operations[0]: missing required field "nodeId"
	// operations[0]: unknown field "nodeID" (field names are case-sensitive: did you mean "nodeId"?); allowed fields are operationId, kind, humanReadableDescription, nodeId, edgePolicy
}

func ptr[T any](v T) *T { return &v }

// Limits are checked before the work they bound: deleteNode with reconnect
// counts the edges it would add (each predecessor times each successor)
// before adding any.
func ExampleLimitError() {
	g := &skillgraph.Graph{SkillID: "fan", Version: 1}
	for _, id := range []string{"a1", "a2", "a3", "hub", "b1", "b2", "b3"} {
		g.Nodes = append(g.Nodes, skillgraph.Node{ID: id, Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: id}})
	}
	for i, p := range [][2]string{{"a1", "hub"}, {"a2", "hub"}, {"a3", "hub"}, {"hub", "b1"}, {"hub", "b2"}, {"hub", "b3"}} {
		g.Edges = append(g.Edges, skillgraph.Edge{ID: fmt.Sprintf("e%d", i+1), Source: p[0], Target: p[1]})
	}
	ed := skillgraph.NewEditor(&skillgraph.Options{MaxEdges: 8})
	_, _, err := ed.Apply(g, []skillgraph.Operation{{OperationID: "op1", Kind: skillgraph.KindDeleteNode, NodeID: "hub", EdgePolicy: skillgraph.PolicyReconnect}})
	var le *skillgraph.LimitError
	if errors.As(err, &le) {
		fmt.Println(le.Limit, le.Value, le.Max, errors.Is(err, skillgraph.ErrLimit))
	}
	fmt.Println(err)
	// Output:
	// MaxEdges 9 8 true
	// skillgraph: operations[0] "op1" (deleteNode): LIMIT_EXCEEDED: edges in the graph would be 9 after this operation, over the limit of 8 (Options.MaxEdges); reconnect links each of the 3 predecessors of hub to each of its 3 successors, up to 9 new edges: use edgePolicy cascade and add the edges that matter with addEdge
}
