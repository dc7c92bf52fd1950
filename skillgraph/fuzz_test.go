package skillgraph

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fuzzOps turns bytes into a batch over a small vocabulary of ids, kinds,
// policies and values, valid and not, so random batches hit every path.
func fuzzOps(data []byte) []Operation {
	pick := func(i *int, n int) int {
		if *i >= len(data) {
			return 0
		}
		b := data[*i]
		*i++
		return int(b) % n
	}
	ids := []string{"n1", "n2", "n3", "n4", "n5", "n6", "n7", "", "N1", "e1"}
	edgeIDs := []string{"e1", "e2", "e3", "e4", "e9", "", "n1"}
	types := []NodeType{TypeInstruction, TypeExample, TypeTool, TypeDecision, TypeInstruction, TypeExample, TypeDecision, "", "Tool"}
	labels := []*string{nil, ptr("x"), ptr("step"), ptr("y"), ptr("")}
	patches := []StringPatch{{}, ClearString(), SetString("Read"), SetString(""), SetString("Bash(go test:*)")}
	policies := []EdgePolicy{"", PolicyCascade, PolicyReconnect, PolicyError, "x"}
	metas := []json.RawMessage{nil, nil, json.RawMessage(`{"condition":"c"}`), nil, json.RawMessage(`[]`)}
	hint := func(i *int) string { // present one time in three
		if pick(i, 3) > 0 {
			return ""
		}
		return ids[pick(i, len(ids))]
	}
	var ops []Operation
	for i := 0; i < len(data) && len(ops) < 40; {
		op := Operation{OperationID: fmt.Sprintf("op%d", pick(&i, 50)), Kind: kinds[pick(&i, len(kinds))]}
		if pick(&i, 16) == 0 {
			op.Kind = "bogus"
		}
		switch op.Kind {
		case KindAddNode:
			if pick(&i, 8) > 0 {
				n := &Node{ID: ids[pick(&i, len(ids))], Type: types[pick(&i, len(types))]}
				if l := labels[pick(&i, len(labels))]; l != nil {
					n.Data.Label = *l
				}
				if n.Type == TypeTool || pick(&i, 8) == 0 {
					n.Data.ToolName = patches[pick(&i, len(patches))].value()
				}
				op.Node = n
			}
			op.InsertAfter = hint(&i)
			op.InsertBefore = hint(&i)
			op.ParentHint = hint(&i)
		case KindDeleteNode:
			op.NodeID = ids[pick(&i, len(ids))]
			op.EdgePolicy = policies[pick(&i, len(policies))]
		case KindUpdateNode:
			op.NodeID = ids[pick(&i, len(ids))]
			op.Label = labels[pick(&i, len(labels))]
			op.Markdown = patches[pick(&i, len(patches))]
			op.Type = types[pick(&i, len(types))]
			op.ToolName = patches[pick(&i, len(patches))]
		case KindAddEdge:
			op.Source = ids[pick(&i, len(ids))]
			op.Target = ids[pick(&i, len(ids))]
			op.ID = edgeIDs[pick(&i, len(edgeIDs))]
			op.Metadata = metas[pick(&i, len(metas))]
		case KindDeleteEdge:
			if pick(&i, 2) == 0 {
				op.EdgeID = edgeIDs[pick(&i, len(edgeIDs))]
			} else {
				op.Source = ids[pick(&i, len(ids))]
				op.Target = ids[pick(&i, len(ids))]
			}
		}
		ops = append(ops, op)
	}
	return ops
}

func fuzzGraph() *Graph {
	g := graph([]string{"n1", "n2", "n3", "n4", "n5"}, "n1>n2", "n2>n3", "n2>n4", "n4>n5")
	g.Nodes[2].Type, g.Nodes[2].Data.ToolName = TypeTool, "Bash(go:*)"
	g.Nodes[0].Position = json.RawMessage(`{"x":0}`)
	g.Edges[1].Metadata = json.RawMessage(`{"condition":"yes"}`)
	return g
}

// fuzzInputGraph turns bytes into an input graph: three times in four the
// valid fuzzGraph, else random nodes and edges over a vocabulary that
// includes self-loops, parallel and dangling edges, duplicate, empty, blank
// and control-character ids, and invalid positions and metadata. It returns
// the bytes it did not use.
func fuzzInputGraph(data []byte) (*Graph, []byte) {
	if len(data) == 0 || data[0]%4 != 0 {
		return fuzzGraph(), data
	}
	i := 1
	pick := func(n int) int {
		if i >= len(data) {
			return 0
		}
		i++
		return int(data[i-1]) % n
	}
	ids := []string{"n1", "n2", "n3", "n4", "n5", "n1", "", " ", "n\n6", "N1"}
	ends := append(ids[:6:6], "ghost")
	edgeIDs := []string{"e1", "e2", "e3", "e4", "e1", "", "e\t5", "n1"}
	types := []NodeType{TypeInstruction, TypeInstruction, TypeExample, TypeTool, TypeDecision, "bogus"}
	labels := []string{"x", "step", "", " "}
	tools := []string{"", "Read", "Bash(go test:*)", "Read\nname: evil", "Bash(go:*)"}
	raws := []json.RawMessage{nil, nil, json.RawMessage(`{"x":1}`), json.RawMessage(`nope`), json.RawMessage(`[]`)}
	g := &Graph{SkillID: []string{"demo", "", "a\nb"}[pick(3)], Version: pick(3)}
	for range pick(7) {
		n := Node{ID: ids[pick(len(ids))], Type: types[pick(len(types))], Data: NodeData{Label: labels[pick(len(labels))]}, Position: raws[pick(len(raws))]}
		if n.Type == TypeTool || pick(6) == 0 {
			n.Data.ToolName = tools[pick(len(tools))]
		}
		g.Nodes = append(g.Nodes, n)
	}
	for range pick(9) {
		e := Edge{ID: edgeIDs[pick(len(edgeIDs))], Source: ends[pick(len(ends))], Target: ends[pick(len(ends))], Metadata: raws[pick(len(raws))]}
		if pick(4) == 0 {
			e.Target = e.Source // a self-loop
		}
		g.Edges = append(g.Edges, e)
	}
	return g, data[min(i, len(data)):]
}

// FuzzApply: random input graphs and batches never panic; a successful result satisfies
// every invariant; a failure returns no graph and leaves the input as it was.
func FuzzApply(f *testing.F) {
	f.Add([]byte{0, 0, 1, 0, 1, 1, 0, 1, 2, 3})
	f.Add([]byte{3, 3, 1, 4, 0, 0, 0, 3, 4})
	f.Add([]byte{5, 1, 1, 2, 2, 8, 2, 2, 7, 7, 7, 1, 3, 0, 1, 0, 9})
	f.Add([]byte("the quick brown fox jumps over the lazy dog"))
	f.Fuzz(func(t *testing.T, data []byte) {
		in, rest := fuzzInputGraph(data)
		before := in.Clone()
		ops := fuzzOps(rest)
		opsBefore, err := json.Marshal(ops)
		require.NoError(t, err)
		opts := &Options{RejectDuplicateEdges: len(data) > 0 && data[0]%2 == 1}
		if len(data) > 1 && data[1]%4 == 0 { // small limits, so that batches reach them
			opts.MaxNodes, opts.MaxEdges = 1+int(data[1]/4)%6, 1+int(data[1]/16)%6
			opts.MaxOperations, opts.MaxRawJSONBytes = 1+int(data[1])%40, 1+int(data[1])%60
		}
		out, res, err := testEditor(opts).Apply(in, ops)
		assert.Equal(t, before, in, "Apply changed its input")
		opsAfter, _ := json.Marshal(ops)
		assert.JSONEq(t, string(opsBefore), string(opsAfter), "Apply changed its operations")
		// One by one, keeping what succeeds: many more successful states.
		cur := in
		for i := range ops {
			snapshot := cur.Clone()
			next, _, err := testEditor(opts).Apply(cur, ops[i:i+1])
			require.Equal(t, snapshot, cur)
			if err == nil {
				require.Empty(t, Validate(next).Errors, "after %+v", ops[i])
				cur = next
			}
		}
		if err != nil {
			assert.Nil(t, out)
			assert.Nil(t, res)
			var ge *GraphError
			if errors.As(err, &ge) {
				require.NotEmpty(t, ge.Report.Errors)
				assert.NotEmpty(t, Validate(in).Errors, "Apply refused a graph Validate accepts: %v", err)
				return
			}
			var le *LimitError
			if errors.As(err, &le) {
				assert.ErrorIs(t, err, ErrLimit)
				assert.Greater(t, le.Value, le.Max, "%v", err)
			}
			if le != nil && le.Limit == "MaxOperations" {
				assert.Greater(t, len(ops), opts.MaxOperations)
				return
			}
			var oe *OperationError
			require.True(t, errors.As(err, &oe), "unexpected error type %T: %v", err, err)
			assert.Equal(t, oe.Code == CodeLimitExceeded, le != nil)
			if oe.Code == CodeToolNameSeparator { // only a new toolName is refused
				assert.Contains(t, []Kind{KindAddNode, KindUpdateNode}, oe.Kind)
			}
			assert.NotEmpty(t, oe.Message)
			if oe.Index >= 0 {
				assert.Equal(t, ops[oe.Index].OperationID, oe.OperationID)
			}
			return
		}
		rep := Validate(out)
		require.Empty(t, rep.Errors, "result breaks invariants after %v", ops)
		if opts.MaxNodes > 0 { // no operation grows the graph past a limit
			assert.LessOrEqual(t, len(out.Nodes), max(opts.MaxNodes, len(in.Nodes)))
			assert.LessOrEqual(t, len(out.Edges), max(opts.MaxEdges, len(in.Edges)))
			assert.LessOrEqual(t, rawBytes(out), max(opts.MaxRawJSONBytes, rawBytes(in)))
		}
		b, err := json.Marshal(out)
		require.NoError(t, err, "the result must be writable as JSON")
		var back Graph
		require.NoError(t, json.Unmarshal(b, &back))
		assert.Len(t, res.Changes, len(ops))
		if len(ops) > 0 {
			assert.Equal(t, in.Version+1, out.Version)
		}
		md, err := SkillMD(out, &SkillMDOptions{Description: "d"})
		spaced := false // a tool name allowed-tools cannot list, kept from the input
		for _, w := range rep.Warnings {
			spaced = spaced || w.Code == CodeToolNameSeparator
		}
		if out.SkillID == "" || spaced { // SKILL.md needs a name and listable tools
			assert.ErrorIs(t, err, ErrInvalidGraph)
		} else {
			assert.NoError(t, err)
			assert.False(t, strings.ContainsFunc(md, func(r rune) bool { return r < 0x20 && r != '\n' }), "control character in %q", md)
		}
	})
}

// rawBytes is what MaxRawJSONBytes bounds: positions and metadata together.
func rawBytes(g *Graph) int {
	n := 0
	for _, nd := range g.Nodes {
		n += len(nd.Position)
	}
	for _, e := range g.Edges {
		n += len(e.Metadata)
	}
	return n
}
