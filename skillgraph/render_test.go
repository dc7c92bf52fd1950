package skillgraph

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func renderGraph() *Graph {
	return &Graph{SkillID: "code-review", Version: 2, Nodes: []Node{
		{ID: "start", Type: TypeInstruction, Data: NodeData{Label: "Read the diff", Markdown: "Use `git diff`.\n\nFocus on logic."}},
		{ID: "ex", Type: TypeExample, Data: NodeData{Label: "A good review", Markdown: "> LGTM after fixing the off-by-one."}},
		{ID: "lint", Type: TypeTool, Data: NodeData{Label: "Lint", ToolName: "Bash(npm:*)"}},
		{ID: "ask", Type: TypeDecision, Data: NodeData{Label: `Tests "green"?`}},
		{ID: "read", Type: TypeTool, Data: NodeData{Label: "Read files", ToolName: "Read"}},
		{ID: "end", Type: TypeInstruction, Data: NodeData{Label: "Write <summary> #1"}},
	}, Edges: []Edge{
		{ID: "e1", Source: "start", Target: "lint"},
		{ID: "e2", Source: "lint", Target: "ask"},
		{ID: "e3", Source: "ask", Target: "end", Metadata: json.RawMessage(`{"condition":"yes"}`)},
		{ID: "e4", Source: "start", Target: "read"},
		{ID: "e5", Source: "read", Target: "end"},
		{ID: "e6", Source: "start", Target: "ex"},
	}}
}

func TestMermaid(t *testing.T) {
	want := `flowchart TD
    start["Read the diff"]
    ex(["A good review"])
    lint[["Lint<br/>Bash(npm:*)"]]
    ask{"Tests #quot;green#quot;?"}
    read[["Read files<br/>Read"]]
    id_end["Write #lt;summary#gt; #35;1"]
    start --> lint
    lint --> ask
    ask -->|"yes"| id_end
    start --> read
    read --> id_end
    start --> ex
`
	assert.Equal(t, want, Mermaid(renderGraph()))
	assert.Equal(t, "flowchart TD\n", Mermaid(nil))
}

func TestSafeIDs(t *testing.T) {
	g := graph([]string{"a-b", "a_b", "id_a_b", "1x", "end", "End", "ok", "日本"})
	ids := safeIDs(g, mermaidID)
	assert.Equal(t, map[string]string{
		"a-b": "id_a_b_2", "a_b": "a_b", "id_a_b": "id_a_b", "1x": "id_1x",
		"end": "id_end", "End": "id_End", "ok": "ok", "日本": "id___",
	}, ids)
	seen := map[string]bool{}
	for _, v := range ids {
		assert.False(t, seen[v], "safe ids must be unique: %s", v)
		seen[v] = true
		assert.True(t, mermaidID(v), v)
	}
}

func TestDOT(t *testing.T) {
	g := &Graph{SkillID: `my "skill"`, Nodes: []Node{
		{ID: `a"1`, Type: TypeInstruction, Data: NodeData{Label: "line1\nline2 \\ end"}},
		{ID: "b", Type: TypeDecision, Data: NodeData{Label: "ok?"}},
	}, Edges: []Edge{{ID: "e1", Source: `a"1`, Target: "b", Metadata: json.RawMessage(`{"label":"go \"now\""}`)}}}
	want := `digraph "my \"skill\"" {
    rankdir=TB;
    node [shape=box];
    "a\"1" [label="line1\nline2 \\ end", shape=box];
    "b" [label="ok?", shape=diamond];
    "a\"1" -> "b" [label="go \"now\""];
}
`
	assert.Equal(t, want, DOT(g))
}

func TestSkillMD(t *testing.T) {
	ja, err := SkillMD(renderGraph(), &SkillMDOptions{Description: "Reviews a pull request: reads, lints, summarises."})
	require.NoError(t, err)
	// start is first; then ex, lint, read are ready (start's successors):
	// node order puts ex (1), lint (2), read (4) in that order; ask after lint.
	wantJA := `---
name: code-review
description: 'Reviews a pull request: reads, lints, summarises.'
allowed-tools: Bash(npm:*) Read
---

## 指示

1. **Read the diff**
   Use ` + "`git diff`" + `.

   Focus on logic.
2. **Lint** — ` + "`Bash(npm:*)`" + `
3. **Tests "green"?**
4. **Read files** — ` + "`Read`" + `
5. **Write <summary> #1**

## 例

### A good review

> LGTM after fixing the off-by-one.
`
	assert.Equal(t, wantJA, ja)

	en, err := SkillMD(renderGraph(), &SkillMDOptions{Description: "Reviews code.", Lang: LangEN})
	require.NoError(t, err)
	assert.Contains(t, en, "\n## Instructions\n")
	assert.Contains(t, en, "\n## Examples\n")

	_, err = SkillMD(renderGraph(), &SkillMDOptions{Description: "Reviews code.", Lang: "fr"})
	assert.ErrorIs(t, err, ErrInvalidOption)
}

func TestSkillMDOrder(t *testing.T) {
	// Topological order, ties by node order: c comes before b because c is
	// earlier in node order and both are ready once a is done; d waits for b.
	g := graph([]string{"a", "c", "d", "b"}, "a>b", "a>c", "b>d")
	md, err := SkillMD(g, &SkillMDOptions{Description: "Does a, then b, c and d."})
	require.NoError(t, err)
	assert.Contains(t, md, "1. **La**\n2. **Lc**\n3. **Lb**\n4. **Ld**\n")
	assert.NotContains(t, md, "allowed-tools")
	assert.NotContains(t, md, "## 例")
}

func TestSkillMDRefusesInvalid(t *testing.T) {
	opts := &SkillMDOptions{Description: "d"}
	_, err := SkillMD(graph([]string{"a", "b"}, "a>b", "b>a"), opts)
	require.ErrorIs(t, err, ErrInvalidGraph)
	g := graph([]string{"a"})
	g.SkillID = ""
	_, err = SkillMD(g, opts)
	var ge *GraphError
	require.ErrorAs(t, err, &ge)
	assert.Equal(t, CodeEmptyID, ge.Report.Errors[0].Code)
}

// Ids that share a safe base (every two-rune Japanese id becomes id___)
// get suffixes in one pass, not by rescanning the taken ones: the
// allocations grow linearly with the number of nodes.
func TestSafeIDsLinear(t *testing.T) {
	var ids []string
	for r := rune(0x4e00); len(ids) < 3000; r++ {
		ids = append(ids, string([]rune{r, r + 1}))
	}
	g := graph(ids)
	var got map[string]string
	allocs := testing.AllocsPerRun(1, func() { got = safeIDs(g, mermaidID) })
	assert.Less(t, allocs, float64(10*len(ids)), "allocations for %d ids", len(ids))
	seen := map[string]bool{}
	for _, v := range got {
		assert.False(t, seen[v], "safe ids must be unique: %s", v)
		seen[v] = true
	}
	assert.Len(t, seen, len(ids))
	assert.Equal(t, "id___", got[ids[0]])
	assert.Equal(t, "id____3", got[ids[2]])
}
