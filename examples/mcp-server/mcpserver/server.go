// Package mcpserver is the mnemobank MCP server as a package a Go program
// can embed: New registers, over one memory bank and one memories manager,
// every tool (the library's: memorybank/tools, memories/memtools,
// skillgraph/graphtools, memorybank/plan/plantools,
// consolidate/consolidatetools), every document as a resource with
// subscriptions, and two prompts. The *Server embeds the SDK's
// *mcp.Server, so a host runs it on any transport: Run over the stdio
// package's transport, the mcphttp package's handler for streamable HTTP,
// or mcp.NewInMemoryTransports in a test.
//
// When a tool call omits its branch, the branch of the client's single git
// root (MCP roots) is used, unless the server serves remote clients
// (MarkRemote). A tool failure is a result with isError set: its text is
// "CODE: message" and its structured content {"code","message","details"}.
//
// The package opens no store and reads no flag: the host gives it the
// Bank and the memories it serves. Its only I/O of its own is reading the
// .git/HEAD of a local client's root, and polling the bank for the
// documents clients subscribed to (stopped by Close).
package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	buildversion "github.com/mnemobank/mnemobank/examples/mcp-server/internal/version"
	"log/slog"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// instructions are sent once per session, so the tool descriptions, sent
// on every turn, need not repeat what the tools share (tools.Guide).
const instructions = `Agent memory that outlives the conversation: a memory bank per git branch and a global bank (documents, also ` +
	`readable as memorybank:// resources), learned memories, skill graphs and confirmed write plans. ` +
	`At the start of a task call read_context (the start_task prompt does it); keep activeContext.json and progress.json up to date ` +
	`with small patches; read_rules explains the conventions. When branch is omitted, the branch of the client's single git root is used ` +
	`(over stdio; over HTTP pass branch) and named in the result's branchFromRoots. ` + tools.Guide +
	` A failed call is an isError result: text "CODE: message" and structured content {code, message, details}.`

// Version is the server's version, reported in the initialize handshake
// and by mnemobank --version: the module version of a tagged build
// (v1.2.3), the stamp of a release build, or the VCS revision of a build
// from a checkout.
func Version() string { return buildversion.Get() }

// StatelessProtocol is the first MCP protocol version without sessions
// (SEP-2575): each request carries its version, in _meta and in the
// MCP-Protocol-Version header, and stands alone. Versions are dates, so
// they compare as strings.
const StatelessProtocol = "2026-07-28"

// Server is the MCP server over one bank and one memories manager.
type Server struct {
	*mcp.Server
	bank    *memorybank.Bank
	mem     *memories.Manager
	defs    []tools.Def // every tool, as toolDefs binds them
	logger  *slog.Logger
	roots   *rootsCache
	watcher *watcher
	// remote: clients reach the server over HTTP from other machines, so
	// their roots are not read (see rootsBranch).
	remote atomic.Bool
	// sessions holds the sessions track waits on.
	sessions sync.Map // *mcp.ServerSession → struct{}
	// states seals the state a multi round-trip tool call carries
	// between its rounds (see reqstate.go).
	states *stateSealer
}

// cacheTTLMs is how long, in milliseconds, a client may keep a list or
// read result (ttlMs): short, since the documents change as agents write
// them, and other agents write them too on a shared bank.
const cacheTTLMs = 2000

// privateCache marks a result for the requesting user's client only
// (cacheScope "private"): the bank's documents and the tools serving them
// are not for shared caches, even though a token serves a team.
func privateCache() mcp.Cacheable {
	return mcp.Cacheable{CacheScope: "private", TTLMs: cacheTTLMs}
}

// Options configure a Server; the zero value is all defaults.
type Options struct {
	// Logger receives the server's warnings; nil discards them.
	Logger *slog.Logger
	// ConfirmPlans is which write plans of apply_memory_ops the person
	// confirms; "" is ConfirmAlways.
	ConfirmPlans ConfirmPolicy
}

// New returns the server of bank and mem with every tool, resource
// template and prompt registered; opts may be nil. Close stops its change
// watcher.
func New(bank *memorybank.Bank, mem *memories.Manager, opts *Options) *Server {
	var o Options
	if opts != nil {
		o = *opts
	}
	logger := o.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	s := &Server{bank: bank, mem: mem, logger: logger, roots: newRootsCache(), states: newStateSealer(nil),
		defs: toolDefs(bank, mem, o.ConfirmPlans)}
	s.watcher = newWatcher(bank, logger)
	s.Server = mcp.NewServer(&mcp.Implementation{Name: "mnemobank", Version: Version()}, &mcp.ServerOptions{
		Logger:       logger,
		Instructions: instructions,
		Capabilities: &mcp.ServerCapabilities{
			Tools:     &mcp.ToolCapabilities{},
			Prompts:   &mcp.PromptCapabilities{},
			Resources: &mcp.ResourceCapabilities{Subscribe: true},
		},
		SetCacheable:       func(_ context.Context, _ mcp.Request, c *mcp.Cacheable) { *c = privateCache() },
		SubscribeHandler:   s.subscribe,
		UnsubscribeHandler: s.unsubscribe,
		//lint:ignore SA1019 roots are still served; see branch.go.
		RootsListChangedHandler: func(_ context.Context, req *mcp.RootsListChangedRequest) { s.roots.forget(req.Session) },
	})
	s.watcher.notify = func(uri string) {
		_ = s.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
	}
	s.addTools()
	s.filterToolList()
	s.addResources()
	s.addPrompts()
	return s
}

// Close stops watching the bank for subscribed documents.
func (s *Server) Close() { s.watcher.stop() }

// MarkRemote says the server's clients reach it from other machines (over
// HTTP): from then on it reads no client's roots, which name paths on the
// client's machine, and a tool call that needs a branch must pass it. The
// mcphttp handler calls it.
func (s *Server) MarkRemote() { s.remote.Store(true) }

// WatchedDocuments is the number of documents the server watches for its
// subscribers, over all sessions; a session's watches end with it.
func (s *Server) WatchedDocuments() int { return s.watcher.watchedDocuments() }

// needInput is returned as an error by a tool that needs the client's
// input first (MCP's multi round-trip requests: elicitation, roots); the
// result asks for it and the client calls again with the responses.
// state, when set, is the sealed requestState the client echoes back
// with its answers.
type needInput struct {
	requests mcp.InputRequestMap
	state    string
}

func (*needInput) Error() string { return "the tool needs the client's input first" }

// handler runs d with the request's tools.Env: the actor (the token's
// name, else the client's), an omitted branch from the client's roots,
// and the client's dialog to confirm a plan; it turns the result or error
// into a tool result. Tool failures are results with IsError, so the model
// sees them and can fix its call; the Go error is nil.
//
// A result's text is its structured content's JSON, byte for byte, for
// every tool: clients differ in which of the two reaches the model, so a
// compact text (say, list_documents as one line per path) would let the
// two say different things. Answers stay small by paging instead:
// list_documents answers 20 entries by default (about 6.6 KB with both
// copies, against 14 KB for the simple Node server's 1,000 names).
func (s *Server) handler(d tools.Def) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		if err := ctx.Err(); err != nil {
			return errorResult(tools.Cancelled(err)), nil
		}
		args, te := s.authorize(ctx, req, d.Name, req.Params.Arguments)
		if te != nil {
			return errorResult(te), nil
		}
		var used *branchUsed
		env := tools.Env{
			Actor:  actor(req),
			Branch: func(ctx context.Context) (string, error) { return s.rootsBranch(ctx, req, &used) },
			Confirm: func(ctx context.Context, text string, confirmed bool) (tools.Confirmation, error) {
				return s.askUser(ctx, req, text, confirmed, d.Name)
			},
		}
		res, err := d.Handle(ctx, env, args)
		var ni *needInput
		if errors.As(err, &ni) {
			return &mcp.CallToolResult{InputRequests: ni.requests, RequestState: ni.state}, nil
		}
		if err != nil {
			return errorResult(tools.AsError(err)), nil
		}
		data, err := json.Marshal(res)
		if err != nil {
			return errorResult(tools.AsError(err)), nil
		}
		if used != nil {
			data = withField(data, "branchFromRoots", used)
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(data)}},
			StructuredContent: json.RawMessage(data),
		}, nil
	}
}

// withField adds "name": v to the JSON object data.
func withField(data []byte, name string, v any) []byte {
	fv, err := json.Marshal(v)
	if err != nil || len(data) < 2 || data[0] != '{' {
		return data
	}
	key, _ := json.Marshal(name)
	var b bytes.Buffer
	b.Write(data[:len(data)-1])
	if len(bytes.TrimSpace(data[1:len(data)-1])) > 0 {
		b.WriteByte(',')
	}
	b.Write(key)
	b.WriteByte(':')
	b.Write(fv)
	b.WriteByte('}')
	return b.Bytes()
}

// errorResult: the text is "CODE: message" (plus the details as JSON, for
// clients that show the model only the text); the structured content is the
// tools.Error as JSON: {"code", "message", "details"}.
func errorResult(te *tools.Error) *mcp.CallToolResult {
	text := te.Error()
	if len(te.Details) > 0 {
		if d, err := json.Marshal(te.Details); err == nil {
			text += "\ndetails: " + string(d)
		}
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: te,
	}
}

// track releases what the server keeps for a session (its watches, its
// roots) when the session ends; it is called whenever something is kept.
func (s *Server) track(ss *mcp.ServerSession) {
	if ss == nil {
		return
	}
	if _, loaded := s.sessions.LoadOrStore(ss, struct{}{}); loaded {
		return
	}
	go func() {
		_ = ss.Wait()
		s.watcher.release(ss)
		s.roots.forget(ss)
		s.sessions.Delete(ss)
	}()
}
