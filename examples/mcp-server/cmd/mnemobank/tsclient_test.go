package main

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"
)

// tsSDKVersion is the TypeScript SDK the tests install from npm.
const tsSDKVersion = "1.32.2"

// tsSDK returns node and a directory holding node_modules/@modelcontextprotocol/sdk:
// MNEMOBANK_TS_SDK if set, else a copy of tsSDKVersion installed with npm
// into the user's cache directory (once; later runs reuse it). It skips
// when node or npm is not installed.
func tsSDK(t *testing.T) (node, dir string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the TypeScript SDK client tests need node and npm")
	}
	if dir := os.Getenv("MNEMOBANK_TS_SDK"); dir != "" {
		_, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk"))
		require.NoError(t, err, "MNEMOBANK_TS_SDK must hold node_modules/@modelcontextprotocol/sdk (npm install @modelcontextprotocol/sdk there)")
		return node, dir
	}
	npm, err := exec.LookPath("npm")
	if err != nil {
		t.Skip("npm is not installed: the TypeScript SDK client tests install the SDK with it (or set MNEMOBANK_TS_SDK)")
	}
	cache, err := os.UserCacheDir()
	require.NoError(t, err)
	dir = filepath.Join(cache, "mnemobank", "ts-sdk-"+tsSDKVersion)
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json")); err == nil {
		return node, dir
	}
	// Install beside it and rename into place, so that test processes
	// running at once never see a half-installed copy.
	require.NoError(t, os.MkdirAll(filepath.Dir(dir), 0o755))
	tmp, err := os.MkdirTemp(filepath.Dir(dir), "install-")
	require.NoError(t, err)
	defer os.RemoveAll(tmp)
	install := exec.Command(npm, "install", "--no-audit", "--no-fund", "--prefix", tmp, "@modelcontextprotocol/sdk@"+tsSDKVersion)
	out, err := install.CombinedOutput()
	require.NoError(t, err, "npm install @modelcontextprotocol/sdk@%s (set MNEMOBANK_TS_SDK to an installed copy to skip this): %s", tsSDKVersion, out)
	if err := os.Rename(tmp, dir); err != nil && !errors.Is(err, os.ErrExist) {
		if _, statErr := os.Stat(dir); statErr != nil {
			require.NoError(t, err, "moving the installed SDK into place")
		}
	}
	return node, dir
}

// runTSScript runs testdata/tsclient/<name> with node from the SDK's
// directory (node resolves packages from the script's directory) and
// returns its output.
func runTSScript(t *testing.T, node, sdk, name string, args ...string) string {
	t.Helper()
	script, err := os.ReadFile(filepath.Join("testdata", "tsclient", name))
	require.NoError(t, err)
	f, err := os.CreateTemp(sdk, "mnemobank-check-*.mjs")
	require.NoError(t, err)
	t.Cleanup(func() { _ = os.Remove(f.Name()) })
	_, err = f.Write(script)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	out, err := exec.Command(node, append([]string{f.Name()}, args...)...).CombinedOutput()
	require.NoError(t, err, "%s", out)
	return string(out)
}

// TestTypeScriptClient drives the server over stdio with the TypeScript
// SDK's client (testdata/tsclient/check.mjs), which checks every
// structured result, failed calls included, against the tool's output
// schema.
func TestTypeScriptClient(t *testing.T) {
	node, sdk := tsSDK(t)
	project := t.TempDir()
	mcptest.Git(t, project, "init")
	mcptest.Git(t, project, "checkout", "-b", "feature/ts")
	out := runTSScript(t, node, sdk, "check.mjs", serverBinary(t), project, "feature/ts")
	require.Contains(t, out, "ok")
}

// TestTypeScriptClientOverHTTP drives the server over streamable HTTP with
// the TypeScript SDK's client (testdata/tsclient/check_http.mjs): tool
// calls checked against their output schemas, a failed call, resources,
// and a resource update heard on the session's event stream. The SDK
// speaks protocols up to 2025-11-25, which the endpoint serves with
// sessions beside 2026-07-28's stateless requests.
func TestTypeScriptClientOverHTTP(t *testing.T) {
	node, sdk := tsSDK(t)
	_, url := startHTTPServer(t)
	out := runTSScript(t, node, sdk, "check_http.mjs", url)
	version, found := strings.CutPrefix(strings.TrimSpace(out), "ok ")
	require.True(t, found, "%s", out)
	assert.Equal(t, "2025-11-25", version, "the protocol version the TypeScript client negotiated")
}
