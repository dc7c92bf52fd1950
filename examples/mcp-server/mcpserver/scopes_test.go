package mcpserver

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

// Every tool has a scope, every scope names a tool, and a tool that
// changes nothing never needs more than read.
func TestEveryToolHasAScope(t *testing.T) {
	names := map[string]bool{}
	for _, gt := range generatedTools {
		names[gt.Name] = true
		need, ok := ToolScope(gt.Name)
		if !assert.True(t, ok, "tool %s has no scope in toolScopes", gt.Name) {
			continue
		}
		if gt.Annotations != nil && gt.Annotations.ReadOnlyHint {
			assert.Equal(t, tokens.ScopeRead, need, "read-only tool %s", gt.Name)
		}
	}
	for name := range toolScopes {
		assert.True(t, names[name], "toolScopes names %s, which is no tool", name)
	}
}
