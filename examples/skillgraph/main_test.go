package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestRun(t *testing.T) {
	var out bytes.Buffer
	require.NoError(t, run(&out))
	s := out.String()
	for _, want := range []string{
		"Applied 4 operations (version 5 → 6)",
		"flowchart TD\n",
		"    read --> n1\n",
		"allowed-tools: Bash(git diff:*), Bash(go test:*)\n",
		"## 指示\n\n1. **差分を読む**",
		"same reply on the new version: true",
		`NODE_NOT_FOUND: target: node "reviews" not found`,
	} {
		assert.Contains(t, s, want)
	}
	assert.False(t, strings.Contains(s, "古い手順"), "the deleted node must not be rendered")
}
