package main

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The server links the viewer but never Graphviz: go-graphviz compiles its
// WebAssembly module (in wazero) in its package init, which would cost every
// start of the MCP server about 18 MB and up to 1.2 s even with the viewer
// off. Skill graphs are drawn by the separate mnemobank-dot program. This
// is a fact of the build graph, which an import added anywhere below the
// viewer can break.
func TestServerDoesNotLinkGraphviz(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not installed, so the build graph cannot be listed:", err)
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if ee, ok := err.(*exec.ExitError); ok {
		t.Fatalf("go list -deps .: %v: %s", err, ee.Stderr)
	}
	require.NoError(t, err)
	deps := strings.Fields(string(out))
	require.Contains(t, deps, "github.com/mnemobank/mnemobank/examples/mcp-server/ui/render", "the listing covers the viewer")
	for _, d := range deps {
		for _, banned := range []string{"github.com/goccy/go-graphviz", "github.com/tetratelabs/wazero"} {
			assert.False(t, d == banned || strings.HasPrefix(d, banned+"/"), "mnemobank links %s", d)
		}
	}
}
