package render_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/dottest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// dotProgram is mnemobank-dot, built once for the tests that draw with it;
// "" when the go command is missing (those tests then skip, saying so).
var dotProgram string

// TestMain builds mnemobank-dot once and makes it the renderer of every
// test (render.RendererEnv); tests of other renderers set their own.
func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "render-test")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	dotProgram, err = dottest.Build(dir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "render tests: building mnemobank-dot:", err)
		dotProgram = ""
	} else {
		_ = os.Setenv(render.RendererEnv, dotProgram)
	}
	code := m.Run()
	_ = os.RemoveAll(dir)
	os.Exit(code)
}

// needDot skips t when mnemobank-dot could not be built because the go
// command is missing.
func needDot(t *testing.T) {
	t.Helper()
	if dotProgram == "" {
		t.Skip("mnemobank-dot could not be built (is the go command installed? see the output above), so nothing draws graphs")
	}
}
