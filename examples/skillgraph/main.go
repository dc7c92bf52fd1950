// Command skillgraph shows a model's edit to an agent skill applied all or
// nothing: a SkillGraph, an LLM-style JSON reply parsed and schema-checked,
// applied with a version precondition, then the change summary, a Mermaid
// flowchart and the SKILL.md it renders to. It also shows faulty replies
// being refused with errors a model can act on, and a limit at work.
//
//	go run ./examples/skillgraph
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"

	"github.com/mnemobank/mnemobank/skillgraph"
)

// reply is what a model answered to "run the tests before the review, and
// add an example of a good comment".
const reply = `{
  "operations": [
    {"operationId": "op1", "kind": "addNode",
     "humanReadableDescription": "テストをレビューの前に実行する",
     "node": {"type": "tool", "label": "テスト実行", "toolName": "Bash(go:*)"},
     "insertAfter": "read"},
    {"operationId": "op2", "kind": "addNode",
     "humanReadableDescription": "良いコメントの例を追加",
     "node": {"id": "ex1", "type": "example", "label": "良いレビューコメント",
              "markdown": "> handler.go:42 — nil チェックがないため、空のリクエストで panic します。"},
     "parentHint": "review"},
    {"operationId": "op3", "kind": "updateNode", "nodeId": "review",
     "markdown": "ファイル名と行番号を必ず添える。"},
    {"operationId": "op4", "kind": "deleteNode", "nodeId": "old", "edgePolicy": "reconnect"}
  ],
  "summary": "テスト実行を追加し、例を足しました。"
}`

func skill() *skillgraph.Graph {
	return &skillgraph.Graph{
		SkillID: "code-review",
		Version: 5,
		Nodes: []skillgraph.Node{
			{ID: "read", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "差分を読む", Markdown: "`git diff main...` で変更を確認する。"}},
			{ID: "old", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "古い手順"}},
			{ID: "review", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "レビューを書く"}},
			{ID: "git", Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "差分取得", ToolName: "Bash(git:*)"}},
		},
		Edges: []skillgraph.Edge{
			{ID: "e1", Source: "read", Target: "old"},
			{ID: "e2", Source: "old", Target: "review"},
			{ID: "e3", Source: "git", Target: "read"},
		},
	}
}

func main() {
	if err := run(os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "skillgraph:", err)
		os.Exit(1)
	}
}

func run(w io.Writer) error {
	g := skill()
	env, err := skillgraph.ParseEnvelope([]byte(reply)) // stages 1 and 2: JSON, schema
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "model says: %s\n\n", env.Summary)

	base := g.Version // the version the model was shown
	editor := skillgraph.NewEditor(&skillgraph.Options{
		Now: func() time.Time { return time.Date(2026, 11, 21, 9, 30, 0, 0, time.UTC) },
	})
	next, res, err := editor.ApplyAt(g, base, env.Operations) // stage 3: apply + invariants
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "## Summary")
	fmt.Fprintln(w, res.Summary)

	fmt.Fprintln(w, "\n## Mermaid")
	fmt.Fprint(w, skillgraph.Mermaid(next))

	md, err := skillgraph.SkillMD(next, &skillgraph.SkillMDOptions{Description: "Go のコードレビューを行う。PR のレビューを頼まれたときに使う。"})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "\n## SKILL.md")
	fmt.Fprint(w, md)

	// A stale or faulty reply changes nothing and says why.
	fmt.Fprintln(w, "\n## Refused edits")
	_, _, err = editor.ApplyAt(next, base, env.Operations)
	fmt.Fprintln(w, "same reply on the new version:", errors.Is(err, skillgraph.ErrVersionConflict))
	bad := []byte(`[{"operationId": "op1", "kind": "addEdge", "source": "review", "target": "read"},
	                {"operationId": "op2", "kind": "deleteEdge", "source": "read", "target": "reviews"}]`)
	ops, err := skillgraph.ParseOperations(bad)
	if err != nil {
		return err
	}
	_, _, err = skillgraph.NewEditor(nil).Apply(next, ops)
	fmt.Fprintln(w, err)

	// allowed-tools is space-delimited, so a tool name holds no space.
	spaced := []skillgraph.Operation{{OperationID: "op1", Kind: skillgraph.KindAddNode,
		Node: &skillgraph.Node{Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "lint", ToolName: "Bash(go vet:*)"}}}}
	_, _, err = skillgraph.NewEditor(nil).Apply(next, spaced)
	fmt.Fprintln(w, err)

	// Limits (Options.MaxNodes and friends) are checked before the work.
	small := skillgraph.NewEditor(&skillgraph.Options{MaxNodes: len(next.Nodes)})
	_, _, err = small.Apply(next, []skillgraph.Operation{{OperationID: "op1", Kind: skillgraph.KindAddNode,
		Node: &skillgraph.Node{Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "one more"}}}})
	var le *skillgraph.LimitError
	if errors.As(err, &le) {
		fmt.Fprintf(w, "limit %s: %d > %d (errors.Is ErrLimit: %v)\n", le.Limit, le.Value, le.Max, errors.Is(err, skillgraph.ErrLimit))
	}
	return nil
}
