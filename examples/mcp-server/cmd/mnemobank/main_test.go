package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

func TestBankToolsOverStdio(t *testing.T) {
	root := filepath.Join(t.TempDir(), "docs")
	s := connectStdio(t, nil, root, "--language", "en")

	t.Run("write, patch and read back", func(t *testing.T) {
		out := ok(t, s, tools.WriteBranchMemoryBank,
			`{"branch":"feature/login","path":"notes.json","content":{"plan":["form"]},"tags":["auth"]}`)
		assert.EqualValues(t, 1, out["version"])
		assert.Equal(t, true, out["created"])
		assert.NotContains(t, out, "branchFromRoots", "the branch was given")

		out = ok(t, s, tools.WriteBranchMemoryBank,
			`{"branch":"feature/login","path":"notes.json","patches":[{"op":"add","path":"/content/plan/-","value":"tests"}],"ifVersion":1}`)
		assert.EqualValues(t, 2, out["version"])

		out = ok(t, s, tools.ReadBranchMemoryBank, `{"branch":"feature/login","path":"notes.json"}`)
		assert.EqualValues(t, 2, out["version"])
		env, isObject := out["content"].(map[string]any)
		require.True(t, isObject, "the document is a JSON object, not an escaped string")
		assert.Equal(t, map[string]any{"plan": []any{"form", "tests"}}, env["content"])

		data, err := os.ReadFile(filepath.Join(root, "branch-memory-bank", "feature-login", "notes.json"))
		require.NoError(t, err)
		assert.Contains(t, string(data), `"tests"`)
	})

	t.Run("read_context initialises a new branch", func(t *testing.T) {
		out := ok(t, s, tools.ReadContext, `{"branch":"feature/new"}`)
		rules, _ := out["rules"].(map[string]any)
		assert.Equal(t, memorybank.BuiltinRules(memorybank.English), rules["content"], "--language en")
		branch, _ := out["branchMemory"].(map[string]any)
		for _, core := range memorybank.DefaultBranchCoreFiles() {
			assert.Contains(t, branch, core)
		}
	})

	t.Run("a missing branch without roots is the bank's error", func(t *testing.T) {
		code, msg := fails(t, s, tools.ReadBranchMemoryBank, `{"path":"notes.json"}`)
		assert.Equal(t, "INVALID_ARGUMENT", code)
		assert.Contains(t, msg, "branch")
	})

	t.Run("a bad patch says which operation failed and writes nothing", func(t *testing.T) {
		isError, out, text := call(t, s, tools.WriteBranchMemoryBank,
			`{"branch":"feature/login","path":"notes.json","patches":[{"op":"add","path":"/content/plan/-","value":"x"},{"op":"replace","path":"/content/nothing","value":1}]}`)
		require.True(t, isError)
		assert.Equal(t, "INVALID_PATCH", out["code"])
		assert.True(t, strings.HasPrefix(text, "INVALID_PATCH: "), text)
		assert.EqualValues(t, 2, ok(t, s, tools.ReadBranchMemoryBank, `{"branch":"feature/login","path":"notes.json"}`)["version"])
	})

	t.Run("bad arguments are refused", func(t *testing.T) {
		code, msg := fails(t, s, tools.ListDocuments, `{"scope":"global","colour":"blue"}`)
		assert.Equal(t, "INVALID_ARGUMENT", code)
		assert.Contains(t, msg, "colour")
		code, _ = fails(t, s, "add_memory", `{"content":"x","colour":"blue"}`)
		assert.Equal(t, "INVALID_ARGUMENT", code)
	})

	// Two writers with the same ifVersion: one wins, the other gets
	// CONFLICT with the current version, whether they share a server or
	// run in two server processes on the same directory.
	other := connectStdio(t, nil, root)
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
			assert.Contains(t, loser.Content[0].(*mcp.TextContent).Text, "CONFLICT: ")
			assert.EqualValues(t, 2, ok(t, s, tools.ReadGlobalMemoryBank, fmt.Sprintf(`{"path":%q}`, path))["version"])
		})
	}
}

// Plans are refused on a bad --confirm-plans, before anything is opened.
func TestConfirmPlansFlagIsChecked(t *testing.T) {
	err := run(t.Context(), []string{"--root", t.TempDir(), "--confirm-plans", "sometimes"}, nil, &strings.Builder{}, &strings.Builder{})
	require.ErrorIs(t, err, mcpserver.ErrBadConfirmPolicy)
}

// A subscriber hears of a write to its document from its own server and
// from another server process on the same bank, and of nothing else.
//
// Under protocol 2026-07-28 Subscribe sends subscriptions/listen and
// returns at once; the subscription holds only once the server sends
// notifications/subscriptions/acknowledged. The test waits for that
// signal before writing: it once wrote first, now and then, so the server
// took the written version as the one subscribed to and had nothing to
// announce (a timeout in about one run of 30).
func TestSubscriptionsAcrossProcesses(t *testing.T) {
	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "docs")
			updated := make(chan string, 16)
			client := newClient(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				updated <- req.Params.URI
			}})
			acked := make(chan struct{}, 1)
			client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "notifications/subscriptions/acknowledged" {
						acked <- struct{}{}
					}
					return next(ctx, method, req)
				}
			})
			watcherCmd := connectStdioVersion(t, client, root, protocol)
			writer := connectStdio(t, nil, root)

			const uri = "memorybank://branch/feature%2Flogin/progress.json"
			ok(t, writer, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","content":{"done":[]}}`)
			require.NoError(t, watcherCmd.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
			if protocol == "" { // the legacy resources/subscribe answers once it holds
				select {
				case <-acked:
				case <-time.After(10 * time.Second):
					t.Fatal("the server never acknowledged the subscription")
				}
			}

			ok(t, writer, "write_global_memory_bank", `{"path":"other.json","content":{"x":1}}`)
			ok(t, writer, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","patches":[{"op":"add","path":"/content/done/-","value":"form"}]}`)
			select {
			case got := <-updated:
				assert.Equal(t, uri, got, "only the subscribed document")
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/resources/updated for a write by another process")
			}

			ok(t, watcherCmd, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","patches":[{"op":"add","path":"/content/done/-","value":"tests"}]}`)
			select {
			case got := <-updated:
				assert.Equal(t, uri, got)
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/resources/updated for a write by the same process")
			}
		})
	}
}

func TestHelpAndVersion(t *testing.T) {
	bin := serverBinary(t)
	for _, arg := range []string{"--help", "-h", "-help"} {
		var stdout, stderr bytes.Buffer
		cmd := exec.Command(bin, arg)
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		require.NoError(t, cmd.Run(), "%s exits 0", arg)
		assert.Contains(t, stdout.String(), "Usage:", arg)
		assert.Contains(t, stdout.String(), "-root", arg)
		assert.Contains(t, stdout.String(), "-memories", arg)
		assert.Empty(t, stderr.String(), arg)
	}
	out, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(string(out), "mnemobank "+mcpserver.Version()), "%s", out)

	err = exec.Command(bin, "--colour").Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode(), "a wrong flag is a usage error")
}

func TestRunRefusesBadFlags(t *testing.T) {
	var stdout, stderr strings.Builder
	err := run(t.Context(), []string{"--root", t.TempDir(), "--language", "fr"}, nil, &stdout, &stderr)
	require.Error(t, err)
	assert.Contains(t, err.Error(), `"fr"`)
	err = run(t.Context(), []string{"--unknown"}, nil, &stdout, &stderr)
	require.ErrorIs(t, err, errUsage)
	assert.Contains(t, stderr.String(), "-root")
	err = run(t.Context(), []string{"stray"}, nil, &stdout, &stderr)
	require.ErrorIs(t, err, errUsage)
}

// A command line that is wrong exits 2 and says why on stderr, once, with
// where to read the usage; the flag package's own errors come with the
// usage it prints already.
func TestUsageErrorsSayWhy(t *testing.T) {
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"foo"}, []string{`mnemobank: unexpected argument "foo"`, "subcommands are ui, export, import, copy, scrub, setup, token and consolidate", `"mnemobank --help"`}},
		{[]string{"--root", t.TempDir(), "foo", "bar"}, []string{`unexpected argument "foo"`, `"mnemobank --help"`}},
		{[]string{"ui", "extra"}, []string{`mnemobank: unexpected argument "extra"`, "--addr", `"mnemobank ui --help"`}},
		{[]string{"export", "extra"}, []string{`mnemobank: unexpected argument "extra"`, `"mnemobank export --help"`}},
		{[]string{"export", "--format", "zip"}, []string{`mnemobank: --format "zip": use archive or anthropic-memory-store`}},
	} {
		var stdout, stderr strings.Builder
		code := runMain(t.Context(), c.args, io.NopCloser(strings.NewReader("")), &stdout, &stderr)
		assert.Equal(t, 2, code, "%q", c.args)
		for _, w := range c.want {
			assert.Contains(t, stderr.String(), w, "%q", c.args)
		}
		assert.NotContains(t, stderr.String(), "usage: ", "%q: the sentinel's text is not shown", c.args)
		assert.Empty(t, stdout.String(), "%q: stdout carries the protocol, not errors", c.args)
	}

	var stdout, stderr strings.Builder
	code := runMain(t.Context(), []string{"--colour"}, io.NopCloser(strings.NewReader("")), &stdout, &stderr)
	assert.Equal(t, 2, code)
	assert.Equal(t, 1, strings.Count(stderr.String(), "flag provided but not defined: -colour"), "said once: %s", stderr.String())
	assert.Contains(t, stderr.String(), "Usage:", "the flag package prints the usage")

	stdout.Reset()
	stderr.Reset()
	assert.Equal(t, 0, runMain(t.Context(), []string{"--version"}, io.NopCloser(strings.NewReader("")), &stdout, &stderr))
	assert.Contains(t, stdout.String(), mcpserver.Version())
	assert.Empty(t, stderr.String())

	stderr.Reset()
	assert.Equal(t, 1, runMain(t.Context(), []string{"--root", t.TempDir(), "--language", "fr"}, io.NopCloser(strings.NewReader("")), &stdout, &stderr))
	assert.Contains(t, stderr.String(), `mnemobank: --language "fr"`, "any other error is printed too, exit 1")
}

// A mistyped --root makes a new bank: said once, loudly, at start-up; an
// existing bank is opened without a word.
func TestNewRootIsLoggedOnce(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "dcos")
	for i, want := range []int{1, 0} {
		st, ct := mcp.NewInMemoryTransports()
		var stderr syncBuffer
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			done <- run(ctx, []string{"--root", root, "--memories", filepath.Join(dir, "m.md")}, st, &strings.Builder{}, &stderr)
		}()
		cs, err := newClient(nil).Connect(ctx, ct, nil)
		require.NoError(t, err)
		ok(t, cs, tools.ListDocuments, `{"scope":"global"}`)
		ok(t, cs, tools.ListDocuments, `{"scope":"global"}`)
		_ = cs.Close()
		cancel()
		<-done
		assert.Equal(t, want, strings.Count(stderr.String(), "NEW, EMPTY memory bank"), "start %d: %s", i, stderr.String())
		if want == 1 {
			assert.Contains(t, stderr.String(), root)
		}
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// go install names the binary after the last element of the package's
// import path, cmd/mnemobank.
func TestInstalledBinaryIsNamedMnemobank(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go command is not available:", err)
	}
	dir := t.TempDir()
	out, err := exec.Command(goTool, "build", "-o", dir+string(filepath.Separator), ".").CombinedOutput()
	require.NoError(t, err, "%s", out)
	name := "mnemobank"
	if runtime.GOOS == "windows" {
		name += ".exe"
	}
	assert.FileExists(t, filepath.Join(dir, name))
}
