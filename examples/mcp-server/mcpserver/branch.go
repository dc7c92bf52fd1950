//lint:file-ignore SA1019 MCP roots are deprecated only from protocol 2026-07-28 on and still served; clients of earlier versions use them to name the project.

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The branch of a tool call whose branch argument is omitted comes from the
// client's MCP roots, never from the server's working directory (which may
// not be the project): when the client declared exactly one root and it is
// inside a git work tree, that work tree's current branch is used, and the
// result says so in "branchFromRoots". Otherwise the argument stays omitted
// and the tool reports the missing branch as it always did.
//
// Only over stdio: a client over HTTP (--http) runs on another machine, so
// its roots name nothing here. Over HTTP the server never asks for roots
// and a call that needs a branch must pass it.

// branchUsed is reported in a result whose branch came from the roots.
type branchUsed struct {
	Branch string `json:"branch"`
	Root   string `json:"root"` // the root's URI
}

// rootsRequestID names the roots request in a multi round-trip call.
const rootsRequestID = "mnemobank/roots"

// multiRoundTripProtocol is the first protocol version in which the server
// asks for the client's roots in the result of the call (multi round-trip
// requests) instead of a request of its own.
const multiRoundTripProtocol = "2026-07-28"

// rootsTimeout bounds the wait for a client's roots.
const rootsTimeout = 5 * time.Second

// errBranchRequiredRemote: a call over HTTP omitted a branch it needs; the
// server does not take it from the client's roots there.
var errBranchRequiredRemote = fmt.Errorf("%w: branch is required over HTTP", memorybank.ErrInvalidRequest)

// errDetachedHead: the client's work tree has no current branch.
var errDetachedHead = errors.New("the git work tree is on a detached HEAD")

// rootsBranch returns the branch of a call that needs one and omitted it:
// the current branch of the client's single root, or "" (the tool then
// reports the missing branch as it always did). It records what it used
// for the result's branchFromRoots. The error is a *needInput when the
// client's roots must be asked for first (once per session until they
// change), or a *tools.Error. used, when not nil, is set to what it used.
func (s *Server) rootsBranch(ctx context.Context, req *mcp.CallToolRequest, used **branchUsed) (string, error) {
	if s.remote.Load() {
		// The roots name the client's machine; read on this one they
		// would let a remote client probe the server's disk.
		return "", &tools.Error{Code: tools.CodeInvalidArgument, Err: errBranchRequiredRemote,
			Message: "branch is required: over HTTP the server does not read the client's roots (they name paths on the client's machine, not the server's); pass branch"}
	}
	roots, ok := s.roots.get(req.Session)
	if r, given := req.Params.InputResponses[rootsRequestID].(*mcp.ListRootsResult); given {
		roots, ok = r.Roots, true
		s.roots.set(req.Session, roots)
		s.track(req.Session)
	}
	if !ok {
		if caps := req.ClientCapabilities(); caps == nil || caps.RootsV2 == nil {
			return "", nil
		}
		if req.ProtocolVersion() >= multiRoundTripProtocol {
			return "", &needInput{requests: mcp.InputRequestMap{rootsRequestID: &mcp.ListRootsParams{}}}
		}
		roots = s.listRoots(ctx, req.Session)
	}
	return branchOfRoots(roots, used)
}

// listRoots asks the client for its roots (protocols before multi
// round-trip requests) and keeps them for the session. A client that
// declares roots but cannot list them (some answer "method not found") is
// taken as having none, so the call still runs.
func (s *Server) listRoots(ctx context.Context, ss *mcp.ServerSession) []*mcp.Root {
	lctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	res, err := ss.ListRoots(lctx, nil)
	cancel()
	var roots []*mcp.Root
	if err != nil {
		s.logger.Warn("the client declared roots but did not list them; branch detection is off for this session", "err", err)
	} else {
		roots = res.Roots
	}
	s.roots.set(ss, roots)
	s.track(ss)
	return roots
}

// sessionBranch is rootsBranch for a request that cannot ask for input
// in its result (prompts/get): the roots the session has, or asked for
// over a protocol that lets the server ask; "" when there are none.
func (s *Server) sessionBranch(ctx context.Context, ss *mcp.ServerSession, protocol string) (string, error) {
	if s.remote.Load() || ss == nil {
		return "", nil
	}
	roots, ok := s.roots.get(ss)
	if !ok {
		p := ss.InitializeParams()
		if p == nil || p.Capabilities == nil || p.Capabilities.RootsV2 == nil || protocol >= multiRoundTripProtocol {
			return "", nil
		}
		roots = s.listRoots(ctx, ss)
	}
	return branchOfRoots(roots, nil)
}

// branchOfRoots is the current branch of the single root's git work tree,
// "" when there is not exactly one root or it is not in a work tree, and
// an error for a detached HEAD. used, when not nil, is set to what it used.
func branchOfRoots(roots []*mcp.Root, used **branchUsed) (string, error) {
	if len(roots) != 1 {
		return "", nil
	}
	branch, err := gitBranch(roots[0].URI)
	if errors.Is(err, errDetachedHead) {
		return "", &tools.Error{Code: tools.CodeInvalidArgument, Err: memorybank.ErrInvalidRequest,
			Message: fmt.Sprintf("branch is required: the client's root %s is a git work tree on a detached HEAD, so it has no current branch; pass branch", roots[0].URI)}
	}
	if err != nil || memorybank.ValidateBranch(branch) != nil {
		return "", nil
	}
	if used != nil {
		*used = &branchUsed{Branch: branch, Root: roots[0].URI}
	}
	return branch, nil
}

// gitBranch returns the current branch of the git work tree holding the
// directory of a file:// URI, reading .git/HEAD (or the HEAD of a linked
// worktree's git directory) without running git.
func gitBranch(uri string) (string, error) {
	dir, err := fileURIPath(uri)
	if err != nil {
		return "", err
	}
	gitDir, err := findGitDir(dir)
	if err != nil {
		return "", err
	}
	head, err := os.ReadFile(filepath.Join(gitDir, "HEAD"))
	if err != nil {
		return "", err
	}
	return parseHEAD(head)
}

// parseHEAD returns the branch a git HEAD file names ("ref: refs/heads/<branch>"),
// errDetachedHead for anything else (a commit id, another ref), and an
// error for a branch name the bank cannot use.
func parseHEAD(head []byte) (string, error) {
	ref, ok := strings.CutPrefix(strings.TrimSpace(string(head)), "ref:")
	if !ok {
		return "", errDetachedHead
	}
	branch, ok := strings.CutPrefix(strings.TrimSpace(ref), "refs/heads/")
	if !ok || branch == "" {
		return "", errDetachedHead
	}
	if err := memorybank.ValidateBranch(branch); err != nil {
		return "", err
	}
	return branch, nil
}

// findGitDir returns the git directory of the work tree holding dir: dir
// or its nearest parent with a .git directory, or a .git file pointing to
// one ("gitdir: ..." in linked worktrees and submodules).
func findGitDir(dir string) (string, error) {
	for {
		p := filepath.Join(dir, ".git")
		fi, err := os.Stat(p)
		if err == nil {
			if fi.IsDir() {
				return p, nil
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return "", err
			}
			target, ok := strings.CutPrefix(strings.TrimSpace(string(data)), "gitdir:")
			if !ok {
				return "", fmt.Errorf("%s is not a gitdir file", p)
			}
			target = strings.TrimSpace(target)
			if !filepath.IsAbs(target) {
				target = filepath.Join(dir, target)
			}
			return target, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no git work tree holds %s", dir)
		}
		dir = parent
	}
}

// fileURIPath returns the local path of a file:// URI.
func fileURIPath(uri string) (string, error) {
	u, err := url.Parse(uri)
	if err != nil {
		return "", err
	}
	if u.Scheme != "file" {
		return "", fmt.Errorf("root %s is not a file:// URI", uri)
	}
	p := u.Path
	if runtime.GOOS == "windows" {
		// file:///C:/work → C:/work
		p = strings.TrimPrefix(p, "/")
	}
	return filepath.FromSlash(p), nil
}

// rootsCache keeps each session's roots until the client says they
// changed.
type rootsCache struct {
	mu sync.Mutex
	m  map[*mcp.ServerSession][]*mcp.Root
}

func newRootsCache() *rootsCache {
	return &rootsCache{m: map[*mcp.ServerSession][]*mcp.Root{}}
}

func (c *rootsCache) get(s *mcp.ServerSession) ([]*mcp.Root, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	r, ok := c.m[s]
	return r, ok
}

func (c *rootsCache) set(s *mcp.ServerSession, roots []*mcp.Root) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m[s] = roots
}

func (c *rootsCache) forget(s *mcp.ServerSession) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, s)
}
