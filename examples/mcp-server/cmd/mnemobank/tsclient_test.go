package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
)

// TestTypeScriptClient drives the server with the TypeScript SDK's client
// (testdata/tsclient/check.mjs), which checks every structured result,
// failed calls included, against the tool's output schema. It needs node
// and the SDK: set MNEMOBANK_TS_SDK to a directory where
// `npm install @modelcontextprotocol/sdk` was run.
func TestTypeScriptClient(t *testing.T) {
	sdk := os.Getenv("MNEMOBANK_TS_SDK")
	node, err := exec.LookPath("node")
	if sdk == "" || err != nil {
		t.Skip("the TypeScript SDK client is not installed: set MNEMOBANK_TS_SDK to a directory holding node_modules/@modelcontextprotocol/sdk")
	}
	if _, err := os.Stat(filepath.Join(sdk, "node_modules", "@modelcontextprotocol", "sdk")); err != nil {
		t.Skip("MNEMOBANK_TS_SDK holds no node_modules/@modelcontextprotocol/sdk:", err)
	}
	script, err := os.ReadFile("testdata/tsclient/check.mjs")
	require.NoError(t, err)
	// Node resolves packages from the script's directory.
	run := filepath.Join(sdk, "mnemobank-check.mjs")
	require.NoError(t, os.WriteFile(run, script, 0o644))
	t.Cleanup(func() { _ = os.Remove(run) })

	project := t.TempDir()
	git(t, project, "init")
	git(t, project, "checkout", "-b", "feature/ts")
	out, err := exec.Command(node, run, serverBinary(t), project, "feature/ts").CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "ok")
}
