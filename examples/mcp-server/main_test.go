package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentmemory/agentmemory/memorybank"
	"github.com/agentmemory/agentmemory/memorybank/tools"
)

// The server is tested as a client sees it: built, started as a subprocess
// and driven over stdio by the SDK's own client.

// buildServer compiles this program into a temporary directory.
func buildServer(t *testing.T) string {
	t.Helper()
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not on PATH, so the server binary cannot be built:", err)
	}
	bin := filepath.Join(t.TempDir(), "mcp-server")
	out, err := exec.Command(goTool, "build", "-o", bin, ".").CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// connect starts the server on root and returns a client session on it.
func connect(t *testing.T, bin, root string, args ...string) *mcp.ClientSession {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"--root", root}, args...)...)
	cmd.Stderr = os.Stderr
	client := mcp.NewClient(&mcp.Implementation{Name: "mcp-server-test", Version: "v0"}, nil)
	session, err := client.Connect(t.Context(), &mcp.CommandTransport{Command: cmd}, nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = session.Close() })
	return session
}

// call calls a tool and returns whether it failed and its structured
// content decoded as a JSON object, after checking that the text content
// says the same.
func call(t *testing.T, s *mcp.ClientSession, name, args string) (isError bool, out map[string]any, text string) {
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
	return res.IsError, out, tc.Text
}

func ok(t *testing.T, s *mcp.ClientSession, name, args string) map[string]any {
	t.Helper()
	isError, out, text := call(t, s, name, args)
	require.False(t, isError, "%s %s: %s", name, args, text)
	return out
}

func TestServer(t *testing.T) {
	bin := buildServer(t)
	root := t.TempDir()
	s := connect(t, bin, root, "--language", "en")

	t.Run("lists every tool with an object schema", func(t *testing.T) {
		res, err := s.ListTools(t.Context(), nil)
		require.NoError(t, err)
		var names []string
		for _, tool := range res.Tools {
			names = append(names, tool.Name)
			schema, ok := tool.InputSchema.(map[string]any)
			require.True(t, ok, "%s: schema is an object", tool.Name)
			assert.Equal(t, "object", schema["type"], tool.Name)
			assert.Equal(t, false, schema["additionalProperties"], tool.Name)
			assert.NotEmpty(t, tool.Description)
		}
		var want []string
		for _, tool := range tools.For(memorybank.New(&memorybank.MemStore{}, nil)) {
			want = append(want, tool.Name)
		}
		slices.Sort(names)
		slices.Sort(want)
		assert.Equal(t, want, names)
		assert.Len(t, names, 11)
	})

	t.Run("write, patch and read back", func(t *testing.T) {
		out := ok(t, s, tools.WriteBranchMemoryBank,
			`{"branch":"feature/login","path":"notes.json","content":{"plan":["form"]},"tags":["auth"]}`)
		assert.EqualValues(t, 1, out["version"])
		assert.Equal(t, true, out["created"])

		out = ok(t, s, tools.WriteBranchMemoryBank,
			`{"branch":"feature/login","path":"notes.json","patches":[{"op":"add","path":"/content/plan/-","value":"tests"}],"ifVersion":1}`)
		assert.EqualValues(t, 2, out["version"])

		out = ok(t, s, tools.ReadBranchMemoryBank, `{"branch":"feature/login","path":"notes.json"}`)
		assert.EqualValues(t, 2, out["version"])
		assert.Equal(t, []any{"auth"}, out["tags"])
		env, isObject := out["content"].(map[string]any)
		require.True(t, isObject, "the document is a JSON object, not an escaped string")
		assert.Equal(t, map[string]any{"plan": []any{"form", "tests"}}, env["content"])

		// The document is a file in the layout of existing memory banks.
		data, err := os.ReadFile(filepath.Join(root, "branch-memory-bank", "feature-login", "notes.json"))
		require.NoError(t, err)
		assert.Contains(t, string(data), `"tests"`)
	})

	t.Run("read_context initialises a new branch", func(t *testing.T) {
		out := ok(t, s, tools.ReadContext, `{"branch":"feature/new"}`)
		rules, _ := out["rules"].(map[string]any)
		assert.Equal(t, memorybank.BuiltinRules(memorybank.English), rules["content"], "--language en is the default")
		branch, _ := out["branchMemory"].(map[string]any)
		for _, core := range memorybank.DefaultBranchCoreFiles {
			assert.Contains(t, branch, core)
			assert.FileExists(t, filepath.Join(root, "branch-memory-bank", "feature-new", core))
		}
		assert.Contains(t, out, "globalMemory")
	})

	t.Run("a bad patch says which operation failed", func(t *testing.T) {
		isError, out, text := call(t, s, tools.WriteBranchMemoryBank,
			`{"branch":"feature/login","path":"notes.json","patches":[{"op":"add","path":"/content/plan/-","value":"x"},{"op":"replace","path":"/content/nothing","value":1}]}`)
		require.True(t, isError)
		assert.Equal(t, "INVALID_PATCH", out["code"])
		assert.True(t, strings.HasPrefix(text, "INVALID_PATCH: "), text)
		assert.Contains(t, text, "operation 1")
		details, _ := out["details"].(map[string]any)
		op, _ := details["operation"].(map[string]any)
		assert.EqualValues(t, 1, op["index"])
		assert.Equal(t, "/content/nothing", op["path"])
		// Nothing was written.
		assert.EqualValues(t, 2, ok(t, s, tools.ReadBranchMemoryBank, `{"branch":"feature/login","path":"notes.json"}`)["version"])
	})

	t.Run("bad arguments are refused", func(t *testing.T) {
		isError, out, _ := call(t, s, tools.ListDocuments, `{"scope":"global","colour":"blue"}`)
		require.True(t, isError)
		assert.Equal(t, "INVALID_ARGUMENT", out["code"])
		assert.Contains(t, out["message"], "colour")
	})

	// Two writers with the same ifVersion: one wins, the other gets
	// CONFLICT with the current version, whether they share a server or
	// run in two server processes on the same directory.
	other := connect(t, bin, root)
	pairs := []struct {
		name string
		a, b *mcp.ClientSession
	}{
		{"one server", s, s},
		{"two server processes", s, other},
	}
	for i, p := range pairs {
		t.Run("concurrent writes with the same ifVersion, "+p.name, func(t *testing.T) {
			path := fmt.Sprintf("race%d.json", i)
			ok(t, s, tools.WriteGlobalMemoryBank, fmt.Sprintf(`{"path":%q,"content":{"n":0}}`, path))
			var wg sync.WaitGroup
			start := make(chan struct{})
			results := make([]*mcp.CallToolResult, 2)
			errs := make([]error, 2)
			for j, session := range []*mcp.ClientSession{p.a, p.b} {
				wg.Go(func() {
					<-start
					results[j], errs[j] = session.CallTool(context.Background(), &mcp.CallToolParams{
						Name:      tools.WriteGlobalMemoryBank,
						Arguments: json.RawMessage(fmt.Sprintf(`{"path":%q,"content":{"n":%d},"ifVersion":1}`, path, j+1)),
					})
				})
			}
			close(start)
			wg.Wait()
			require.NoError(t, errs[0])
			require.NoError(t, errs[1])
			require.NotEqual(t, results[0].IsError, results[1].IsError, "exactly one write fails")
			loser := results[0]
			if results[1].IsError {
				loser = results[1]
			}
			data, err := json.Marshal(loser.StructuredContent)
			require.NoError(t, err)
			var te struct {
				Code    string `json:"code"`
				Details struct {
					CurrentVersion int64 `json:"currentVersion"`
				} `json:"details"`
			}
			require.NoError(t, json.Unmarshal(data, &te))
			assert.Equal(t, "CONFLICT", te.Code)
			assert.EqualValues(t, 2, te.Details.CurrentVersion)
			assert.Contains(t, loser.Content[0].(*mcp.TextContent).Text, "CONFLICT: ")
			assert.EqualValues(t, 2, ok(t, s, tools.ReadGlobalMemoryBank, fmt.Sprintf(`{"path":%q}`, path))["version"])
		})
	}
}

func TestRunRefusesBadFlags(t *testing.T) {
	var stderr strings.Builder
	err := run(t.Context(), []string{"--root", t.TempDir(), "--language", "fr"}, nil, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"fr"`)
	err = run(t.Context(), []string{"--unknown"}, nil, &stderr)
	require.Error(t, err)
	assert.Contains(t, stderr.String(), "-root")
}
