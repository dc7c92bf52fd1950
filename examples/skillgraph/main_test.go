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
		"allowed-tools: Bash(git:*) Bash(go:*)\n",
		"## 指示\n\n1. **差分取得** — `Bash(git:*)`\n2. **差分を読む**",
		"same reply on the new version: true",
		`NODE_NOT_FOUND: target: node "reviews" not found`,
		`TOOL_NAME_SEPARATOR: toolName "Bash(go vet:*)" holds ' '`,
		"limit MaxNodes: 6 > 5 (errors.Is ErrLimit: true)",
		"3. **テスト実行** — `Bash(go:*)`\n",
	} {
		assert.Contains(t, s, want)
	}
	assert.False(t, strings.Contains(s, "古い手順"), "the deleted node must not be rendered")
}
