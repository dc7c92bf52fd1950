package render_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/skillgraph"
)

// markdownOf returns a Markdown document of about n bytes: headings,
// paragraphs with emphasis and links, a table and a task list per section.
func markdownOf(n int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "## Section %d\n\nThe **service** keeps [notes](https://example.com/%d) about `decisions`; see https://example.com/x/%d.\n\n| key | value |\n|---|---|\n| a%d | b |\n\n- [x] done %d\n- [ ] todo\n\n", i, i, i, i, i)
	}
	return []byte(b.String())
}

func BenchmarkMarkdown(b *testing.B) {
	for _, size := range []int{10 << 10, render.MaxMarkdownBytes - 1024} {
		src := markdownOf(size)
		b.Run(fmt.Sprintf("%dKiB", len(src)>>10), func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				render.Markdown(src)
			}
		})
	}
}

func BenchmarkJSON(b *testing.B) {
	var s strings.Builder
	s.WriteString(`{"items":[`)
	for i := 0; s.Len() < 100<<10; i++ {
		if i > 0 {
			s.WriteString(",")
		}
		fmt.Fprintf(&s, `{"id":%d,"name":"item <%d>","tags":["a","b"],"ok":true,"extra":null}`, i, i)
	}
	s.WriteString(`]}`)
	src := []byte(s.String())
	b.SetBytes(int64(len(src)))
	for b.Loop() {
		if _, err := render.JSON(src); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLineDiff(b *testing.B) {
	var x, y strings.Builder
	for i := range 2000 {
		fmt.Fprintf(&x, "line %d of the document\n", i)
		if i%50 == 0 {
			fmt.Fprintf(&y, "changed line %d\n", i)
		} else {
			fmt.Fprintf(&y, "line %d of the document\n", i)
		}
	}
	a, c := x.String(), y.String()
	for b.Loop() {
		render.LineDiff(a, c)
	}
}

func BenchmarkGraphSVG(b *testing.B) {
	g := &skillgraph.Graph{SkillID: "bench"}
	for i := range 30 {
		g.Nodes = append(g.Nodes, skillgraph.Node{ID: fmt.Sprintf("n%d", i), Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: fmt.Sprintf("Step %d of the skill", i)}})
		if i > 0 {
			g.Edges = append(g.Edges, skillgraph.Edge{ID: fmt.Sprintf("e%d", i), Source: fmt.Sprintf("n%d", i-1), Target: fmt.Sprintf("n%d", i)})
		}
	}
	dot := []byte(skillgraph.DOT(g))
	ctx := context.Background()
	if _, err := render.GraphSVG(ctx, dot); err != nil { // the instance is made once
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := render.GraphSVG(ctx, dot); err != nil {
			b.Fatal(err)
		}
	}
}
