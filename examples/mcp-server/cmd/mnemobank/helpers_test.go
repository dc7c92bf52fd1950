package main

import (
	"context"
	"encoding/json"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// The server is tested as a client sees it: driven by the SDK's own client,
// in memory (newServer on a directory) or over stdio (the built binary as a
// subprocess).

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

func newClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mnemobank-test", Version: "v0"}, opts)
}

// testServer is a server on a directory, driven in memory.
type testServer struct {
	*server
	root     string // the bank's directory
	memories string // the memories file
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	store, err := fsstore.Open(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English, Logger: logger})
	memFile := filepath.Join(dir, ".agent", "memories.md")
	mem, err := memories.New(filestore.New(memFile, nil), &memories.Options{Trash: filestore.New(filepath.Join(dir, ".agent", trashFileName), nil)})
	require.NoError(t, err)
	s := newServer(bank, mem, logger)
	t.Cleanup(s.Close)
	return &testServer{server: s, root: root, memories: memFile}
}

// connect connects a client to the server in memory. opts may be nil;
// protocol, when set, is the protocol version the client asks for.
func (ts *testServer) connect(t testing.TB, client *mcp.Client, protocol string) *mcp.ClientSession {
	t.Helper()
	if client == nil {
		client = newClient(nil)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := ts.Connect(context.Background(), st, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = ss.Close() })
	var copts *mcp.ClientSessionOptions
	if protocol != "" {
		copts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := client.Connect(context.Background(), ct, copts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// call calls a tool and returns whether it failed, its structured content
// decoded as a JSON object, and its text, after checking that a successful
// result's text is the same JSON as its structured content.
func call(t testing.TB, s *mcp.ClientSession, name, args string) (isError bool, out map[string]any, text string) {
	t.Helper()
	res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
	require.NoError(t, err, "a tool failure is a result, never a protocol error")
	require.Len(t, res.Content, 1)
	tc, ok := res.Content[0].(*mcp.TextContent)
	require.True(t, ok, "text content")
	data, err := json.Marshal(res.StructuredContent)
	require.NoError(t, err)
	require.NoError(t, json.Unmarshal(data, &out), "structured content is an object: %s", data)
	if !res.IsError {
		assert.JSONEq(t, tc.Text, string(data), "the text is the same JSON as the structured content")
	}
	// Clients check failed calls against the output schema too.
	if schema := outputSchema(t, s, name); schema != nil {
		var v any
		require.NoError(t, json.Unmarshal(data, &v))
		assert.NoError(t, schema.Validate(v), "%s: the result matches the output schema: %s", name, data)
	}
	return res.IsError, out, tc.Text
}

var (
	outputSchemasMu sync.Mutex
	outputSchemas   = map[*mcp.ClientSession]map[string]*jsonschema.Resolved{}
)

// outputSchema returns the resolved output schema the session's server
// declares for a tool, nil when it declares none.
func outputSchema(t testing.TB, s *mcp.ClientSession, name string) *jsonschema.Resolved {
	outputSchemasMu.Lock()
	defer outputSchemasMu.Unlock()
	m, ok := outputSchemas[s]
	if !ok {
		m = map[string]*jsonschema.Resolved{}
		res, err := s.ListTools(context.Background(), nil)
		require.NoError(t, err)
		for _, tool := range res.Tools {
			if tool.OutputSchema == nil {
				continue
			}
			data, err := json.Marshal(tool.OutputSchema)
			require.NoError(t, err)
			var sc jsonschema.Schema
			require.NoError(t, json.Unmarshal(data, &sc))
			r, err := sc.Resolve(nil)
			require.NoError(t, err, "%s: output schema", tool.Name)
			m[tool.Name] = r
		}
		outputSchemas[s] = m
	}
	return m[name]
}

func ok(t testing.TB, s *mcp.ClientSession, name, args string) map[string]any {
	t.Helper()
	isError, out, text := call(t, s, name, args)
	require.False(t, isError, "%s %s: %s", name, args, text)
	return out
}

// fails calls a tool that must fail and returns its error code and message.
func fails(t testing.TB, s *mcp.ClientSession, name, args string) (code, message string) {
	t.Helper()
	isError, out, text := call(t, s, name, args)
	require.True(t, isError, "%s %s succeeded: %s", name, args, text)
	code, _ = out["code"].(string)
	message, _ = out["message"].(string)
	return code, message
}

func jsonValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}
