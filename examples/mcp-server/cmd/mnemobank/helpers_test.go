package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"
)

// The program is tested as a client and a person see it: the built binary
// as a subprocess over stdio and HTTP, and run/runMain with its flags. The
// server itself is tested in package mcpserver, in memory.

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
)

// serverBinary compiles this program once per test run.
func serverBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		goTool, err := exec.LookPath("go")
		if err != nil {
			buildErr = err
			return
		}
		dir, err := os.MkdirTemp("", "mnemobank-test")
		if err != nil {
			buildErr = err
			return
		}
		binPath = filepath.Join(dir, "mnemobank")
		if out, err := exec.Command(goTool, "build", "-o", binPath, ".").CombinedOutput(); err != nil {
			buildErr = &exec.ExitError{Stderr: out}
		}
	})
	if buildErr != nil {
		if ee, ok := buildErr.(*exec.ExitError); ok {
			t.Fatalf("go build: %s", ee.Stderr)
		}
		t.Skip("the go command is not available, so the server binary cannot be built:", buildErr)
	}
	return binPath
}

func TestMain(m *testing.M) {
	code := m.Run()
	if binPath != "" {
		_ = os.RemoveAll(filepath.Dir(binPath))
	}
	os.Exit(code)
}

// connectStdio starts the server binary on root (in dir, the working
// directory) and returns a client session on it.
func connectStdio(t testing.TB, client *mcp.Client, root string, args ...string) *mcp.ClientSession {
	t.Helper()
	return connectStdioVersion(t, client, root, "", args...)
}

// connectStdioVersion is connectStdio with the protocol version the client
// asks for ("" for the latest).
func connectStdioVersion(t testing.TB, client *mcp.Client, root, protocol string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(serverBinary(t), append([]string{"--root", root}, args...)...)
	cmd.Dir = filepath.Dir(root)
	cmd.Stderr = os.Stderr
	if client == nil {
		client = newClient(nil)
	}
	var copts *mcp.ClientSessionOptions
	if protocol != "" {
		copts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	session, err := client.Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, copts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// legacyProtocol is the last protocol version with sessions.
const legacyProtocol = "2025-11-25"

var (
	newClient = mcptest.NewClient
	call      = mcptest.Call
	ok        = mcptest.OK
	fails     = mcptest.Fails
)

// testToken is a token long enough for MNEMOBANK_TOKEN.
const testToken = "0123456789abcdef0123456789abcdef"
