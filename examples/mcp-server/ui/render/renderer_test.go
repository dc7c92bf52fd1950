package render_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// renderBound is how long a GraphSVG whose renderer is stopped may take
// before the test fails: a failure bound far above the deadlines used, so
// a loaded machine does not fail it; not a speed claim.
const renderBound = 30 * time.Second

// script writes a shell script that stands in for a renderer and makes it
// the renderer. It skips t where there is no sh (Windows).
func script(t *testing.T, body string) string {
	t.Helper()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh to run a stand-in renderer script:", err)
	}
	p := filepath.Join(t.TempDir(), "renderer.sh")
	require.NoError(t, os.WriteFile(p, []byte("#!"+sh+"\n"+body+"\n"), 0o755))
	t.Setenv(render.RendererEnv, p)
	return p
}

// graphSVG runs GraphSVG and fails t if it has not returned within
// renderBound.
func graphSVG(t *testing.T, ctx context.Context, dot string) ([]byte, error) {
	t.Helper()
	type result struct {
		svg []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		svg, err := render.GraphSVG(ctx, []byte(dot))
		done <- result{svg, err}
	}()
	select {
	case r := <-done:
		return r.svg, r.err
	case <-time.After(renderBound):
		t.Fatalf("GraphSVG has not returned after %v", renderBound)
		return nil, nil
	}
}

func TestGraphSVGSanitisesWhatTheRendererWrites(t *testing.T) {
	script(t, `cat >/dev/null
cat <<'SVG'
<?xml version="1.0"?>
<!DOCTYPE svg>
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)">
<script>alert(2)</script>
<foreignObject><img xmlns="http://www.w3.org/1999/xhtml" src="x" onerror="alert(3)"/></foreignObject>
<a xlink:href="javascript:alert(4)"><text>a</text></a>
<g class="node"><title>ok</title><text>kept</text></g>
</svg>
SVG`)
	svg, err := graphSVG(t, context.Background(), "digraph g { a }")
	require.NoError(t, err)
	s := strings.ToLower(string(svg))
	for _, bad := range []string{"<script", "alert(", "onload", "onerror", "foreignobject", "javascript:", "<!doctype"} {
		assert.NotContains(t, s, bad)
	}
	assert.Contains(t, s, "<text>kept</text>")
}

func TestGraphSVGGetsTheDOTOnStandardInput(t *testing.T) {
	got := filepath.Join(t.TempDir(), "stdin")
	script(t, `cat >"`+got+`"; echo '<svg xmlns="http://www.w3.org/2000/svg"></svg>'`)
	_, err := graphSVG(t, context.Background(), "digraph g { a -> b }")
	require.NoError(t, err)
	b, err := os.ReadFile(got)
	require.NoError(t, err)
	assert.Equal(t, "digraph g { a -> b }", string(b))
}

func TestGraphSVGStopsARendererThatHangs(t *testing.T) {
	// sleep is a child of the script holding its output open after the
	// script is killed: WaitDelay ends the wait on it.
	script(t, "sleep 300")
	ctx, cancel := context.WithTimeout(context.Background(), 100*time.Millisecond)
	defer cancel()
	_, err := graphSVG(t, ctx, "digraph g { a }")
	assert.ErrorIs(t, err, context.DeadlineExceeded)
	var re *render.RendererError
	require.True(t, errors.As(err, &re), "got %v", err)
	assert.Contains(t, err.Error(), "was stopped")
}

func TestGraphSVGRefusesTooMuchOutput(t *testing.T) {
	script(t, `cat >/dev/null; echo '<svg xmlns="http://www.w3.org/2000/svg">'; yes '<g></g>'`)
	_, err := graphSVG(t, context.Background(), "digraph g { a }")
	assert.ErrorIs(t, err, render.ErrTooLarge)
	var le *render.LimitError
	require.True(t, errors.As(err, &le), "got %v", err)
	assert.Equal(t, "renderer output bytes", le.What)
	assert.Equal(t, int64(render.MaxSVGBytes), le.Limit)
}

func TestGraphSVGReportsAFailingRenderer(t *testing.T) {
	script(t, `cat >/dev/null; i=0; while [ $i -lt 2000 ]; do echo "graphviz is unhappy $i" >&2; i=$((i+1)); done; exit 7`)
	_, err := graphSVG(t, context.Background(), "digraph g { a }")
	assert.ErrorIs(t, err, render.ErrRenderer)
	var re *render.RendererError
	require.True(t, errors.As(err, &re), "got %v", err)
	assert.Equal(t, 7, re.Status)
	assert.Contains(t, re.Stderr, "graphviz is unhappy 0")
	assert.NotContains(t, re.Stderr, "graphviz is unhappy 1999", "standard error is kept up to a limit")
	assert.Less(t, len(re.Stderr), 5000)
	assert.Contains(t, err.Error(), "exited with status 7")
}

func TestGraphSVGRefusesOutputThatIsNotSVG(t *testing.T) {
	script(t, `cat >/dev/null; echo '<html><body onload="alert(1)">hi</body></html>'`)
	_, err := graphSVG(t, context.Background(), "digraph g { a }")
	assert.ErrorIs(t, err, render.ErrSyntax)
	var se *render.SyntaxError
	require.True(t, errors.As(err, &se), "got %v", err)
	assert.Equal(t, "SVG", se.Format)
}

func TestGraphSVGWithoutARenderer(t *testing.T) {
	t.Setenv(render.RendererEnv, "")
	t.Setenv("PATH", t.TempDir())
	_, err := graphSVG(t, context.Background(), "digraph g { a }")
	require.ErrorIs(t, err, render.ErrNoRenderer)
	var ne *render.NoRendererError
	require.True(t, errors.As(err, &ne), "got %v", err)
	assert.Len(t, ne.Searched, 4, "MNEMOBANK_DOT, beside the executable, mnemobank-dot and dot on PATH: %v", ne.Searched)
	msg := err.Error()
	for _, want := range []string{render.RendererEnv, "mnemobank-dot on PATH", "dot on PATH",
		"go install github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank-dot@latest", "apt-get install graphviz"} {
		assert.Contains(t, msg, want)
	}
}

func TestGraphSVGDoesNotReplaceTheRendererNamed(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-renderer")
	t.Setenv(render.RendererEnv, missing)
	_, err := graphSVG(t, context.Background(), "digraph g { a }")
	require.ErrorIs(t, err, render.ErrNoRenderer)
	assert.Contains(t, err.Error(), missing)
}

func TestGraphSVGRefusesOversizedDOTBeforeRunningAnything(t *testing.T) {
	ran := filepath.Join(t.TempDir(), "ran")
	script(t, `touch "`+ran+`"; cat >/dev/null; echo '<svg xmlns="http://www.w3.org/2000/svg"></svg>'`)
	_, err := graphSVG(t, context.Background(), "digraph g {"+strings.Repeat(" ", render.MaxDOTBytes)+"}")
	assert.ErrorIs(t, err, render.ErrTooLarge)
	assert.NoFileExists(t, ran)
}
