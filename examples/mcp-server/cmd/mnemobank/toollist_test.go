package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var updateTools = flag.Bool("update-tools", false, "rewrite tools.json from the tools' declarations")

// generatedToolList is tools.json as the declarations derive it.
func generatedToolList(t *testing.T) []byte {
	t.Helper()
	var list []any
	for _, d := range newTestServer(t).declaredTools() {
		list = append(list, d.tool)
	}
	data, err := json.MarshalIndent(list, "", "  ")
	require.NoError(t, err)
	return append(data, '\n')
}

// tools.json, which the server registers, is what the tools' declarations
// derive: a description, schema or annotation changed in Go without
// regenerating tools.json fails here.
func TestToolListIsGenerated(t *testing.T) {
	want := generatedToolList(t)
	if *updateTools {
		require.NoError(t, os.WriteFile("tools.json", want, 0o644))
		return
	}
	if !bytes.Equal(want, toolsJSON) {
		assert.JSONEq(t, string(want), string(toolsJSON), "tools.json is stale: run go generate in examples/mcp-server/cmd/mnemobank")
		assert.Fail(t, "tools.json is not as go generate writes it: run go generate in examples/mcp-server/cmd/mnemobank")
	}
}

// The server lists exactly the tools its declarations derive.
func TestListedToolsAreTheDeclaredOnes(t *testing.T) {
	ts := newTestServer(t)
	res, err := ts.connect(t, nil, "").ListTools(t.Context(), nil)
	require.NoError(t, err)
	listed := map[string][]byte{}
	for _, tool := range res.Tools {
		listed[tool.Name] = mustJSON(t, tool)
	}
	declared := ts.declaredTools()
	require.Len(t, listed, len(declared))
	for _, d := range declared {
		require.Contains(t, listed, d.tool.Name)
		assert.JSONEq(t, string(mustJSON(t, d.tool)), string(listed[d.tool.Name]), d.tool.Name)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}
