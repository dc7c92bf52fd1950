//lint:file-ignore SA1019 MCP roots are deprecated only from protocol 2026-07-28 on and still served; clients of earlier versions use them to name the project.

package mcpserver

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var (
	git         = mcptest.Git
	fileURI     = mcptest.FileURI
	rootsClient = mcptest.RootsClient
)

func TestBranchFromRoots(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init")
	git(t, repo, "checkout", "-b", "feature/login")
	git(t, repo, "commit", "--allow-empty", "-m", "first")
	linked := filepath.Join(t.TempDir(), "wt")
	git(t, repo, "worktree", "add", "-b", "fix/typo", linked)
	detached := filepath.Join(t.TempDir(), "detached")
	git(t, repo, "worktree", "add", "--detach", detached)
	plain := t.TempDir()

	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			ts := newTestServer(t)

			t.Run("one git root: its branch, said in the result", func(t *testing.T) {
				s := ts.connect(t, rootsClient(repo), protocol)
				out := ok(t, s, "read_context", `{}`)
				assert.Equal(t, map[string]any{"branch": "feature/login", "root": fileURI(repo)}, out["branchFromRoots"])
				assert.DirExists(t, filepath.Join(ts.root, "branch-memory-bank", "feature-login"))

				out = ok(t, s, "write_branch_memory_bank", `{"path":"notes.md","content":"from roots"}`)
				assert.Equal(t, "feature/login", out["branch"])
				assert.Contains(t, out, "branchFromRoots")
				out = ok(t, s, "read_branch_memory_bank", `{"branch":"feature/login","path":"notes.md"}`)
				assert.NotContains(t, out, "branchFromRoots", "a given branch is used as given")
				out = ok(t, s, "list_documents", `{"scope":"global"}`)
				assert.NotContains(t, out, "branchFromRoots", "a global call needs no branch")

				// A subdirectory of the work tree is in it too.
				subdir := filepath.Join(repo, "src")
				require.NoError(t, os.MkdirAll(subdir, 0o755))
				sub := ts.connect(t, rootsClient(subdir), protocol)
				assert.Contains(t, ok(t, sub, "list_documents", `{"scope":"branch"}`), "branchFromRoots")
			})

			t.Run("a linked worktree: its own branch", func(t *testing.T) {
				s := ts.connect(t, rootsClient(linked), protocol)
				out := ok(t, s, "apply_memory_ops", `{"plan":`+createPlan+`,"confirmed":true}`)
				assert.Equal(t, "fix/typo", out["branchFromRoots"].(map[string]any)["branch"])
				assert.FileExists(t, learningFile(ts, "fix-typo"))
			})

			t.Run("a detached HEAD is the missing-branch error", func(t *testing.T) {
				s := ts.connect(t, rootsClient(detached), protocol)
				code, msg := fails(t, s, "read_context", `{}`)
				assert.Equal(t, "INVALID_ARGUMENT", code)
				assert.Contains(t, msg, "detached HEAD")
				assert.Contains(t, msg, "branch is required")
			})

			for name, dirs := range map[string][]string{"two roots": {repo, linked}, "not a git work tree": {plain}, "no roots": nil} {
				t.Run(name+": the error stays", func(t *testing.T) {
					s := ts.connect(t, rootsClient(dirs...), protocol)
					code, msg := fails(t, s, "read_branch_memory_bank", `{"path":"notes.md"}`)
					assert.Equal(t, "INVALID_ARGUMENT", code)
					assert.Contains(t, msg, "branch")
				})
			}

			t.Run("a client without the roots capability", func(t *testing.T) {
				c := newClient(&mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}})
				s := ts.connect(t, c, protocol)
				code, _ := fails(t, s, "read_context", `{}`)
				assert.Equal(t, "INVALID_ARGUMENT", code)
			})
		})
	}
}

// A client that declares roots but answers roots/list with an error (as
// some editors do) gets the missing-branch error, not a failed call.
func TestRootsListFails(t *testing.T) {
	ts := newTestServer(t)
	c := rootsClient(t.TempDir())
	c.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "roots/list" {
				return nil, &jsonrpc.Error{Code: jsonrpc.CodeMethodNotFound, Message: "method not found"}
			}
			return next(ctx, method, req)
		}
	})
	s := ts.connect(t, c, legacyProtocol)
	for range 2 {
		code, msg := fails(t, s, "read_context", `{}`)
		assert.Equal(t, "INVALID_ARGUMENT", code)
		assert.Contains(t, msg, "branch")
	}
	ok(t, s, "read_context", `{"branch":"main"}`)
}

// search_documents_by_tags without a branch searches the branch of the
// client's git root with the global bank, as the other tools use it,
// rather than the global bank alone.
func TestTagSearchUsesTheRootsBranch(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init")
	git(t, repo, "checkout", "-b", "feature/tags")
	git(t, repo, "commit", "--allow-empty", "-m", "first")
	ts := newTestServer(t)
	s := ts.connect(t, rootsClient(repo), legacyProtocol)
	ok(t, s, "write_branch_memory_bank", `{"branch":"feature/tags","path":"auth.md","content":"tokens","tags":["auth"]}`)
	out := ok(t, s, "search_documents_by_tags", `{"tags":["auth"]}`)
	require.Len(t, out["documents"], 1, "%v", out)
	assert.Equal(t, "feature/tags", out["branchFromRoots"].(map[string]any)["branch"])
}

// The rules the server answers say what it does with an omitted branch:
// it takes the client's root's and names it in branchFromRoots (tested
// above), so the rules cannot say the branch is never filled in.
func TestRulesSayTheBranchMayComeFromTheRoot(t *testing.T) {
	s := newTestServer(t).connect(t, nil, "")
	for _, lang := range []string{"en", "ja", "zh"} {
		out := ok(t, s, "read_rules", `{"language":"`+lang+`"}`)
		assert.Contains(t, out["content"], "branchFromRoots", lang)
	}
}
