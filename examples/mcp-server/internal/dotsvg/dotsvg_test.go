package dotsvg_test

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/dotsvg"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/stretchr/testify/assert"
)

var good = []byte("digraph g { a -> b; }")

// Inputs that end inside a string or comment, or otherwise fail to parse.
var badDOT = []string{
	`"111`,
	`digraph { a [label="x`,
	`digraph { a [label=<b> ]; c [label=< `,
	`digraph { /* open`,
	`digraph { a -> `,
	`}}}}`,
	"\x00\xff",
	"\"3000\xcc\xb8\xf0\xf0\x00\xf10\"30", // a NUL inside a string (found by FuzzRender)
}

// Graphviz's parser keeps its state in the WebAssembly module between
// calls: without render.CheckDOT, `"111` leaves it inside a string and
// every later graph of the process fails.
func TestRenderKeepsWorkingAfterBadDOT(t *testing.T) {
	for _, bad := range badDOT {
		_, err := dotsvg.Render(context.Background(), []byte(bad))
		assert.ErrorIs(t, err, render.ErrSyntax, "%q", bad)
		_, err = dotsvg.Render(context.Background(), good)
		assert.NoError(t, err, "a good graph after %q", bad)
	}
}

func FuzzRender(f *testing.F) {
	for _, s := range badDOT {
		f.Add([]byte(s))
	}
	f.Add([]byte(`digraph g { a [label=<<b>x</b>>]; a -> b [label="say \"hi\""]; }`))
	f.Fuzz(func(t *testing.T, dot []byte) {
		svg, err := dotsvg.Render(context.Background(), dot)
		if err != nil && !errors.Is(err, render.ErrSyntax) && !errors.Is(err, render.ErrTooLarge) {
			t.Fatalf("error outside the contract for %q: %v", dot, err)
		}
		if err == nil && !bytes.Contains(svg, []byte("<svg")) {
			t.Fatalf("no <svg> for %q", dot)
		}
	})
}
