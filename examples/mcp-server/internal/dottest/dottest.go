// Package dottest builds the mnemobank-dot command for tests of what draws
// skill graphs (render.GraphSVG and the viewer's skill pages), which run it
// as a program. Only tests import it.
package dottest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// Package is the import path of the command built.
const Package = "github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank-dot"

// Build runs "go build -o" of mnemobank-dot into dir, from inside this
// module (a test's working directory), and returns the program's path.
func Build(dir string) (string, error) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		return "", err
	}
	name := render.RendererName
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	path := filepath.Join(dir, name)
	cmd := exec.Command(goTool, "build", "-o", path, Package)
	cmd.Stderr = os.Stderr
	if err := cmd.Run(); err != nil {
		return "", err
	}
	return path, nil
}

// Use builds mnemobank-dot into tb's temporary directory and points
// render.RendererEnv (MNEMOBANK_DOT) at it for the rest of tb, so that
// render.GraphSVG draws with it. It skips tb, saying so, when the go
// command is not installed; a failing build fails tb. Like tb.Setenv, it
// cannot be used in a parallel test.
func Use(tb testing.TB) string {
	tb.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		tb.Skip("the go command is not installed, so mnemobank-dot cannot be built to draw graphs:", err)
	}
	path, err := Build(tb.TempDir())
	if err != nil {
		tb.Fatalf("go build %s: %v", Package, err)
	}
	tb.Setenv(render.RendererEnv, path)
	return path
}
