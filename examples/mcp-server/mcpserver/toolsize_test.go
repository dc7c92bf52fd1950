package mcpserver

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The tools/list answer goes into the model's context on every turn: at
// most 18 KiB (about 4,500 tokens) for every tool; it was 16 KiB until the
// two consolidation tools (1.6 KiB) came. What the tools share is
// said once, in the server's instructions (tools.Guide), and the output
// schemas name the result's members only.
const maxToolListBytes = 18 << 10

// The whole tools/list answer, as the in-memory client receives it, stays
// within maxToolListBytes; with -v the bytes of each tool are logged by
// part, largest first, to see where they go.
func TestToolListFitsItsBudget(t *testing.T) {
	s := newTestServer(t).connect(t, nil, "")
	res, err := s.ListTools(t.Context(), nil)
	require.NoError(t, err)
	all, err := json.Marshal(res)
	require.NoError(t, err)
	type row struct {
		name                        string
		total, desc, in, out, annot int
	}
	var rows []row
	var sum row
	for _, tool := range res.Tools {
		r := row{name: tool.Name, desc: len(tool.Description)}
		for _, part := range []struct {
			n *int
			v any
		}{{&r.total, tool}, {&r.in, tool.InputSchema}, {&r.out, tool.OutputSchema}, {&r.annot, tool.Annotations}} {
			b, err := json.Marshal(part.v)
			require.NoError(t, err)
			*part.n = len(b)
		}
		rows = append(rows, r)
		sum.total, sum.desc, sum.in, sum.out, sum.annot = sum.total+r.total, sum.desc+r.desc, sum.in+r.in, sum.out+r.out, sum.annot+r.annot
	}
	slices.SortFunc(rows, func(a, b row) int { return b.total - a.total })
	var b strings.Builder
	fmt.Fprintf(&b, "%-30s %6s %6s %6s %6s %6s\n", "tool", "total", "desc", "input", "output", "annot")
	for _, r := range append(rows, row{"(all tools)", sum.total, sum.desc, sum.in, sum.out, sum.annot}) {
		fmt.Fprintf(&b, "%-30s %6d %6d %6d %6d %6d\n", r.name, r.total, r.desc, r.in, r.out, r.annot)
	}
	t.Logf("tools/list: %d bytes (at most %d) for %d tools\n%s", len(all), maxToolListBytes, len(res.Tools), b.String())
	assert.LessOrEqual(t, len(all), maxToolListBytes, "tools/list is too large for the model's context")
}

// What the tool descriptions leave out because every tool shares it (the
// branch, the documents, paging, the errors) reaches the client once, in
// the instructions of the handshake.
func TestInstructionsSayWhatToolsShare(t *testing.T) {
	s := newTestServer(t).connect(t, nil, "")
	got := s.InitializeResult().Instructions
	assert.Contains(t, got, tools.Guide)
	assert.Contains(t, got, `{code, message, details}`, "the shape of a failed call's structured content")
}
