package main

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

func runDot(args []string, stdin string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(stdin), &out, &errb)
	return code, out.String(), errb.String()
}

func TestDrawsSanitisedSVG(t *testing.T) {
	code, out, errOut := runDot(nil, `digraph g { a [URL="javascript:alert(1)", label="<script>x</script>"]; a -> b }`)
	assert.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "<svg")
	assert.Contains(t, out, `class="node"`)
	assert.NotContains(t, out, "javascript:")
	assert.NotContains(t, out, "<script")
}

func TestRefusesInputAboveTheLimit(t *testing.T) {
	code, out, errOut := runDot(nil, "digraph g { a; // "+strings.Repeat("x", render.MaxDOTBytes)+"\n}")
	assert.Equal(t, exitTooLarge, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "above the limit of 262144 bytes")
}

func TestRefusesTooManyNodes(t *testing.T) {
	var b strings.Builder
	b.WriteString("digraph g {")
	for i := 0; i <= render.MaxGraphNodes; i++ {
		fmt.Fprintf(&b, " n%d;", i)
	}
	b.WriteString("}")
	code, out, errOut := runDot(nil, b.String())
	assert.Equal(t, exitTooLarge, code, errOut)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "DOT graph nodes")
}

func TestRefusesBadDOT(t *testing.T) {
	code, out, errOut := runDot(nil, "digraph { a -> ")
	assert.Equal(t, exitSyntax, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, "invalid DOT")
}

func TestRefusesArguments(t *testing.T) {
	code, out, errOut := runDot([]string{"-Tpng"}, "digraph g { a }")
	assert.Equal(t, 1, code)
	assert.Empty(t, out)
	assert.Contains(t, errOut, `unexpected argument "-Tpng"`)
}
