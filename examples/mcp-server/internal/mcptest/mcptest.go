//lint:file-ignore SA1019 MCP roots are deprecated only from protocol 2026-07-28 on and still served; the tests of earlier clients use them.

// Package mcptest holds what the server's tests share: a client, tool calls
// checked as a client sees them (the text is the structured content's JSON,
// which matches the declared output schema), and a bank on a temporary
// directory. It is imported only by tests.
package mcptest

import (
	"context"
	"encoding/json"
	"log/slog"
	"net/url"
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
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// NewClient is a client named mnemobank-test; opts may be nil.
func NewClient(opts *mcp.ClientOptions) *mcp.Client {
	return mcp.NewClient(&mcp.Implementation{Name: "mnemobank-test", Version: "v0"}, opts)
}

// Bank is a bank on a temporary directory, with its memories file and
// trash beside it, as "mnemobank --root DIR/docs" run in DIR keeps them.
type Bank struct {
	Bank     *memorybank.Bank
	Memories *memories.Manager
	Root     string // the bank's directory
	File     string // the memories file
	Logger   *slog.Logger
}

// NewBank opens a Bank in a new temporary directory, in English, logging
// errors only to stderr; it is closed when t ends.
func NewBank(t testing.TB) *Bank {
	t.Helper()
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	store, err := fsstore.Open(root, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = store.Close() })
	logger := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError}))
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English, Logger: logger, History: history.New(&history.Options{Logger: logger})})
	memFile := filepath.Join(dir, ".agent", "memories.md")
	mem, err := memories.New(filestore.New(memFile, nil), &memories.Options{Trash: filestore.New(filepath.Join(dir, ".agent", "memories.trash.md"), nil)})
	require.NoError(t, err)
	return &Bank{Bank: bank, Memories: mem, Root: root, File: memFile, Logger: logger}
}

// Connect connects client (nil: NewClient(nil)) to srv in memory; protocol,
// when set, is the protocol version the client asks for.
func Connect(t testing.TB, srv *mcp.Server, client *mcp.Client, protocol string) *mcp.ClientSession {
	t.Helper()
	if client == nil {
		client = NewClient(nil)
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(context.Background(), st, nil)
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

// Call calls a tool and returns whether it failed, its structured content
// decoded as a JSON object, and its text, after checking that a successful
// result's text is the same JSON as its structured content.
func Call(t testing.TB, s *mcp.ClientSession, name, args string) (isError bool, out map[string]any, text string) {
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
	if schema := OutputSchema(t, s, name); schema != nil {
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

// OutputSchema returns the resolved output schema the session's server
// declares for a tool, nil when it declares none.
func OutputSchema(t testing.TB, s *mcp.ClientSession, name string) *jsonschema.Resolved {
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

// OK calls a tool that must succeed and returns its structured content.
func OK(t testing.TB, s *mcp.ClientSession, name, args string) map[string]any {
	t.Helper()
	isError, out, text := Call(t, s, name, args)
	require.False(t, isError, "%s %s: %s", name, args, text)
	return out
}

// Fails calls a tool that must fail and returns its error code and message.
func Fails(t testing.TB, s *mcp.ClientSession, name, args string) (code, message string) {
	t.Helper()
	isError, out, text := Call(t, s, name, args)
	require.True(t, isError, "%s %s succeeded: %s", name, args, text)
	code, _ = out["code"].(string)
	message, _ = out["message"].(string)
	return code, message
}

// JSONValue decodes s, which must be JSON.
func JSONValue(t testing.TB, s string) any {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal([]byte(s), &v))
	return v
}

// FileURI is the file: URI of the local path p.
func FileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// RootsClient is a client whose roots (MCP roots) are dirs.
func RootsClient(dirs ...string) *mcp.Client {
	c := NewClient(nil)
	for _, d := range dirs {
		c.AddRoots(&mcp.Root{URI: FileURI(d), Name: filepath.Base(d)})
	}
	return c
}

// Git runs git in dir with a fixed identity; without git the test skips.
func Git(t *testing.T, dir string, args ...string) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed:", err)
	}
	cmd := exec.Command("git", append([]string{"-c", "user.name=test", "-c", "user.email=test@example.com", "-c", "init.defaultBranch=main"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}
