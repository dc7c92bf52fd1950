package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mnemobank/mnemobank/skillgraph"
)

// tourSkillGraph applies a model's JSON edit to a skill graph all or
// nothing, then renders the result.
func tourSkillGraph(_ context.Context, w io.Writer) error {
	g := &skillgraph.Graph{
		SkillID: "release",
		Version: 1,
		Nodes: []skillgraph.Node{
			{ID: "n1", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Bump the version"}},
			{ID: "n2", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Tag and push"}},
		},
		Edges: []skillgraph.Edge{{ID: "e1", Source: "n1", Target: "n2"}},
	}
	reply := []byte(`{"operations": [
	  {"operationId": "op1", "kind": "addNode", "humanReadableDescription": "test before tagging",
	   "node": {"type": "tool", "label": "Run the tests", "toolName": "Bash(go:*)"}, "insertAfter": "n1"}
	], "summary": "Adds a test run before tagging."}`)

	fmt.Fprintln(w, "A model replies with operations; ParseOperations checks JSON and the schema:")
	ops, err := skillgraph.ParseOperations(reply)
	if err != nil {
		return err
	}
	editor := skillgraph.NewEditor(&skillgraph.Options{
		Now: func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) },
	})
	next, res, err := editor.ApplyAt(g, g.Version, ops)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, res.Summary)
	fmt.Fprint(w, skillgraph.Mermaid(next))

	fmt.Fprintln(w, "\nA wrong reply changes nothing and names what exists instead:")
	ops, err = skillgraph.ParseOperations([]byte(`[{"operationId": "op1", "kind": "deleteNode", "nodeId": "n9"}]`))
	if err != nil {
		return err
	}
	if _, _, err := editor.Apply(g, ops); errors.Is(err, skillgraph.ErrNodeNotFound) {
		fmt.Fprintln(w, " ", err)
	} else {
		return fmt.Errorf("want ErrNodeNotFound, got %v", err)
	}
	_, err = skillgraph.ParseOperations([]byte(`[{"operationId": "op1", "kind": "DeleteNode", "nodeId": "n1"}]`))
	fmt.Fprintln(w, " ", err)

	md, err := skillgraph.SkillMD(next, &skillgraph.SkillMDOptions{Description: "Cut a release.", Lang: skillgraph.LangEN})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\nSKILL.md:")
	fmt.Fprint(w, md)
	return nil
}
