package ui_test

import (
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

// standInSVG is what standInRenderer draws, whatever the graph.
const standInSVG = `<svg xmlns="http://www.w3.org/2000/svg"><g class="node"><text>drawn</text></g></svg>`

// standInRenderer makes a shell script that counts its runs in the
// returned file and prints standInSVG the renderer (render.RendererEnv),
// for tests about when the viewer draws rather than how. It skips t where
// there is no sh (Windows).
func standInRenderer(t testing.TB) (runs string) {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run a stand-in renderer script:", err)
	}
	dir := t.TempDir()
	runs = filepath.Join(dir, "runs")
	p := filepath.Join(dir, "renderer.sh")
	require.NoError(t, os.WriteFile(p, []byte("#!"+sh+"\ncat >/dev/null\necho run >>'"+runs+"'\necho '"+standInSVG+"'\n"), 0o755))
	t.Setenv(render.RendererEnv, p)
	return runs
}

// noRenderer leaves render.GraphSVG nothing to run.
func noRenderer(t *testing.T) {
	t.Setenv(render.RendererEnv, "")
	t.Setenv("PATH", t.TempDir())
}

func countRuns(t *testing.T, runs string) int {
	t.Helper()
	b, err := os.ReadFile(runs)
	if os.IsNotExist(err) {
		return 0
	}
	require.NoError(t, err)
	return strings.Count(string(b), "run\n")
}

func TestSkillPageWithoutARendererShowsTheDOT(t *testing.T) {
	noRenderer(t)
	f := newFixture(t, ui.Options{})
	g := &skillgraph.Graph{SkillID: "hostile", Version: 1, Nodes: []skillgraph.Node{
		{ID: "a", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: `<script>alert(1)</script>`}},
	}}
	_, err := skilldoc.Store(context.Background(), f.bank, g, 0, "")
	require.NoError(t, err)

	res := f.get("/ui/skill?id=hostile")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	assert.NotContains(t, res.Body, `id="graph"`, "no image that cannot load")
	assert.Contains(t, res.Body, `id="graph-error"`)
	assert.Contains(t, res.Body, "go install github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank-dot@latest")
	assert.Contains(t, res.Body, "apt-get install graphviz")
	assert.Contains(t, res.Body, `<pre id="graph-dot">digraph`)
	assert.Contains(t, res.Body, "&lt;script&gt;alert(1)&lt;/script&gt;", "the DOT is shown as text")
	assert.NotContains(t, res.Body, "<script>alert(1)")

	res = f.get("/ui/skill/graph.svg?id=hostile")
	assert.Equal(t, http.StatusServiceUnavailable, res.Code)
	assert.Contains(t, res.Body, "mnemobank-dot")
}

func TestSkillGraphIsDrawnOncePerVersion(t *testing.T) {
	runs := standInRenderer(t)
	f := newFixture(t, ui.Options{})
	f.seed()
	for range 2 {
		res := f.get("/ui/skill?id=release")
		require.Equal(t, http.StatusOK, res.Code, res.Body)
		assert.Contains(t, res.Body, `id="graph"`)
		res = f.get("/ui/skill/graph.svg?id=release")
		require.Equal(t, http.StatusOK, res.Code, res.Body)
		assert.Contains(t, res.Body, "drawn")
	}
	assert.Equal(t, 1, countRuns(t, runs), "the page and its picture, twice, ran the renderer once")

	g, v, err := skilldoc.Load(context.Background(), f.bank, "release")
	require.NoError(t, err)
	g.Nodes[0].Data.Label = "Tag it"
	_, err = skilldoc.Store(context.Background(), f.bank, g, v, "")
	require.NoError(t, err)
	res := f.get("/ui/skill/graph.svg?id=release")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	assert.Equal(t, 2, countRuns(t, runs), "a new version is drawn again")
}
