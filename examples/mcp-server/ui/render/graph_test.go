package render_test

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// skillDOT is the DOT skillgraph writes for a small review skill whose
// labels try to smuggle markup into the picture.
func skillDOT() []byte {
	g := &skillgraph.Graph{SkillID: "code-review", Nodes: []skillgraph.Node{
		{ID: "read", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Read the diff"}},
		{ID: "lint", Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "Lint", ToolName: "Bash(npm:*)"}},
		{ID: "ok", Type: skillgraph.TypeDecision, Data: skillgraph.NodeData{Label: "<script>alert(1)</script> clean?"}},
		{ID: "ex", Type: skillgraph.TypeExample, Data: skillgraph.NodeData{Label: `<img src=x onerror="alert(1)">`}},
	}, Edges: []skillgraph.Edge{
		{ID: "e1", Source: "read", Target: "lint"},
		{ID: "e2", Source: "lint", Target: "ok", Metadata: json.RawMessage(`{"label":"javascript:alert(1)"}`)},
		{ID: "e3", Source: "ok", Target: "ex"},
	}}
	return []byte(skillgraph.DOT(g))
}

func TestGraphSVGDrawsASkillGraph(t *testing.T) {
	needDot(t)
	svg, err := render.GraphSVG(context.Background(), skillDOT())
	require.NoError(t, err)
	requireWellFormedSVG(t, svg)
	s := string(svg)
	assert.Equal(t, 4, strings.Count(s, `class="node"`), "one group per node")
	assert.Equal(t, 3, strings.Count(s, `class="edge"`), "one group per edge")
	assert.Contains(t, s, "Read the diff")
	assert.Contains(t, s, "&lt;script&gt;", "a label's markup is text")
	assert.NotContains(t, s, "<script")
	assert.NotContains(t, s, "<img")
}

func TestGraphSVGStripsScriptHandlersAndJavascriptLinks(t *testing.T) {
	needDot(t)
	dot := `digraph g {
		graph [URL="javascript:alert(1)", id="g\" onload=\"alert(1)"];
		a [URL="javascript:alert(2)", href="JaVaScRiPt:alert(3)", label=<<B>bold</B>>];
		b [URL="https://example.com/ok", tooltip="x\" onmouseover=\"alert(4)"];
		c [URL="data:text/html,<script>alert(5)</script>"];
		a -> b [URL="java&#9;script:alert(6)"];
		b -> c;
	}`
	svg, err := render.GraphSVG(context.Background(), []byte(dot))
	require.NoError(t, err)
	requireWellFormedSVG(t, svg)
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	links := 0
	for {
		tok, err := d.RawToken()
		if err != nil {
			break
		}
		se, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		assert.NotEqual(t, "script", se.Name.Local)
		for _, a := range se.Attr {
			assert.False(t, strings.HasPrefix(strings.ToLower(a.Name.Local), "on"), "handler %s on <%s>", a.Name.Local, se.Name.Local)
			if a.Name.Local == "href" {
				links++
				assert.True(t, strings.HasPrefix(a.Value, "https://") || strings.HasPrefix(a.Value, "#"), "link target %q", a.Value)
			}
		}
	}
	assert.Equal(t, 1, links, "the one https link survives")
}

func TestGraphSVGCannotReadTheHostsFiles(t *testing.T) {
	needDot(t)
	// Graphviz opens the file a node's image or shapefile names, to size
	// it. go-graphviz's default file system is the host's (relative names
	// from the working directory), so a graph could probe and embed the
	// viewer's files; mnemobank-dot gives it an empty file system instead.
	// GraphSVG runs it in this test's working directory.
	dir := t.TempDir()
	img := image.NewRGBA(image.Rect(0, 0, 40, 30))
	img.Set(1, 1, color.Black)
	f, err := os.Create(filepath.Join(dir, "secret.png"))
	require.NoError(t, err)
	require.NoError(t, png.Encode(f, img))
	require.NoError(t, f.Close())
	t.Chdir(dir)

	for _, dot := range []string{
		`digraph g { a [image="secret.png", label=""]; }`,
		`digraph g { b [label=<<TABLE><TR><TD><IMG SRC="secret.png"/></TD></TR></TABLE>>]; }`,
		`digraph g { c [shapefile="secret.png"]; }`,
	} {
		svg, err := render.GraphSVG(context.Background(), []byte(dot))
		require.NoError(t, err, dot)
		assert.NotContains(t, string(svg), "<image", "no file was read into the picture: %s", dot)
	}
}

func TestGraphSVGRefusesOversizedInput(t *testing.T) {
	big := []byte("digraph g { a; // " + strings.Repeat("x", render.MaxDOTBytes) + "\n}")
	_, err := render.GraphSVG(context.Background(), big)
	assert.ErrorIs(t, err, render.ErrTooLarge)
	assert.Contains(t, err.Error(), "DOT graph bytes")

	var b strings.Builder
	b.WriteString("digraph g {\n")
	for i := 0; i <= render.MaxGraphNodes; i++ {
		fmt.Fprintf(&b, "n%d;\n", i)
	}
	b.WriteString("}\n")
	needDot(t)
	_, err = render.GraphSVG(context.Background(), []byte(b.String()))
	var re *render.RendererError
	require.True(t, errors.As(err, &re), "got %v", err)
	assert.Equal(t, 2, re.Status, "mnemobank-dot's status for input above a limit")
	assert.Contains(t, re.Stderr, "DOT graph nodes")
	assert.Contains(t, re.Stderr, fmt.Sprint(render.MaxGraphNodes))
	assert.ErrorIs(t, err, render.ErrTooLarge)
}

func TestGraphSVGRefusesBadDOT(t *testing.T) {
	needDot(t)
	_, err := render.GraphSVG(context.Background(), []byte("digraph { a -> "))
	assert.ErrorIs(t, err, render.ErrSyntax)
	assert.Contains(t, err.Error(), "invalid DOT")
}

func TestGraphSVGHonoursContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := render.GraphSVG(ctx, skillDOT())
	assert.ErrorIs(t, err, context.Canceled)
}

func requireWellFormedSVG(t *testing.T, svg []byte) {
	t.Helper()
	d := xml.NewDecoder(strings.NewReader(string(svg)))
	root := ""
	for {
		tok, err := d.Token()
		if err != nil {
			require.ErrorContains(t, err, "EOF", "the SVG is well-formed XML")
			break
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
			assert.Equal(t, "http://www.w3.org/2000/svg", se.Name.Space)
		}
	}
	require.Equal(t, "svg", root)
}

// Graphviz's parser keeps state between calls; no input may leave it
// unable to read the next graph.
var brokenDOT = []string{
	`"111`,
	`digraph { a [label="x`,
	`digraph { a [label=<b> ]; c [label=< `,
	`digraph { a [label=<<b>x</b> ]; }`,
	`digraph { /* open`,
	`digraph { a -> `,
	`}}}}`,
	"\x00\xff",
	`digraph { a [label="x\"]; }`,
	"digraph { a; // \"\n b [label=\"ok\"]; }",
	"# \"directive\ndigraph { a; }",
}

func TestGraphSVGKeepsWorkingAfterBadDOT(t *testing.T) {
	good := skillDOT()
	for _, bad := range brokenDOT {
		_, err := render.GraphSVG(context.Background(), []byte(bad))
		_, err2 := render.GraphSVG(context.Background(), good)
		assert.NoError(t, err2, "a good graph after %q (which gave %v)", bad, err)
	}
	_, err := render.GraphSVG(context.Background(), []byte(`digraph { a [label="never closed]; }`))
	var se *render.SyntaxError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, int64(19), se.Offset, "the error points at the opening quote")
	assert.Contains(t, err.Error(), "quoted string starting here is never closed")
}

func TestGraphSVGReadsCommentsAndEscapesAsGraphvizDoes(t *testing.T) {
	for _, dot := range []string{
		"digraph { a; // \"\n b [label=\"ok\"]; }",
		"# \"directive\ndigraph { a; }",
		`digraph { a [label="say \"hi\" \\"]; }`,
		`digraph { a [label=<<b>x</b> <i>y</i>>]; }`,
		"digraph { /* \" < */ a; }",
	} {
		_, err := render.GraphSVG(context.Background(), []byte(dot))
		assert.NoError(t, err, dot)
	}
}
