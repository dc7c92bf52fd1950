package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/ownrevert"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// toolScopes is the scope a token needs to call each tool, and to see it
// in tools/list. Every tool of tools_gen.go has one (addTools panics
// otherwise, and TestEveryToolHasAScope fails first). read_context is a
// read although it may create a missing template document: a read-only
// member must be able to start a task. revert_document is write, with
// the rule of package ownrevert on top (see authorize): a write token
// reverts only its own writes, an admin anyone's.
var toolScopes = map[string]tokens.Scope{
	"read_branch_memory_bank":      tokens.ScopeRead,
	"read_global_memory_bank":      tokens.ScopeRead,
	"read_context":                 tokens.ScopeRead,
	"read_rules":                   tokens.ScopeRead,
	"search_documents_by_tags":     tokens.ScopeRead,
	"search_documents":             tokens.ScopeRead,
	"list_documents":               tokens.ScopeRead,
	"document_history":             tokens.ScopeRead,
	"search_memories":              tokens.ScopeRead,
	"list_memories":                tokens.ScopeRead,
	"read_skill_graph":             tokens.ScopeRead,
	"check_file_selection":         tokens.ScopeRead,
	"write_branch_memory_bank":     tokens.ScopeWrite,
	"write_global_memory_bank":     tokens.ScopeWrite,
	"delete_document":              tokens.ScopeWrite,
	"add_memory":                   tokens.ScopeWrite,
	"delete_memory":                tokens.ScopeWrite,
	"restore_memory":               tokens.ScopeWrite,
	"write_skill_graph":            tokens.ScopeWrite,
	"apply_skill_graph_operations": tokens.ScopeWrite,
	"apply_memory_ops":             tokens.ScopeWrite,
	"consolidation_candidates":     tokens.ScopeRead,
	"apply_consolidation":          tokens.ScopeWrite,
	"revert_document":              tokens.ScopeWrite,
}

// ToolScope is the scope a token needs to call the tool name; false when
// the server has no such tool.
func ToolScope(name string) (tokens.Scope, bool) {
	s, ok := toolScopes[name]
	return s, ok
}

// CodePermissionDenied is the code of a tool call refused for the token's
// scope.
const CodePermissionDenied tools.Code = "PERMISSION_DENIED"

// ErrPermission is wrapped by a refusal for lack of scope.
var ErrPermission = errors.New("mcpserver: the token's scope does not allow this")

// requestIdentity is who sent req: the identity of its bearer token over
// HTTP, or false when there is none (stdio, or HTTP without tokens), and
// then the client may do everything.
func requestIdentity(req mcp.Request) (tokens.Identity, bool) {
	if req == nil || req.GetExtra() == nil {
		return tokens.Identity{}, false
	}
	return tokens.IdentityOf(req.GetExtra().TokenInfo)
}

// allowed checks that req's token may use the tool name.
func allowed(req mcp.Request, name string) *tools.Error {
	id, ok := requestIdentity(req)
	if !ok {
		return nil
	}
	need := toolScopes[name]
	if id.Scope.Allows(need) {
		return nil
	}
	return tools.Errorf(CodePermissionDenied, ErrPermission, map[string]any{"tool": name, "needs": need.String(), "token": id.Name, "scope": id.Scope.String()},
		"%s needs a token of scope %s; the token %q has scope %s (ask an admin: mnemobank token create --name %s --scope %s)",
		name, need, id.Name, id.Scope, id.Name, need)
}

// authorize checks that req's token may make the call name with args,
// and returns the arguments to run it with. A revert_document by a token
// below admin must also pass ownrevert.Check, and runs pinned to the
// version it checked (ifVersion), so that a write by someone else in
// between fails the revert rather than being undone.
func (s *Server) authorize(ctx context.Context, req *mcp.CallToolRequest, name string, args json.RawMessage) (json.RawMessage, *tools.Error) {
	if te := allowed(req, name); te != nil {
		return nil, te
	}
	id, ok := requestIdentity(req)
	if !ok || name != tools.RevertDocument || id.Scope.Allows(tokens.ScopeAdmin) {
		return args, nil
	}
	var fields map[string]json.RawMessage
	var ra memorybank.RevertRequest
	if err := json.Unmarshal(args, &fields); err != nil {
		return nil, tools.AsError(fmt.Errorf("%w: revert_document's arguments: %v", memorybank.ErrInvalidRequest, err))
	}
	if err := json.Unmarshal(args, &ra); err != nil {
		return nil, tools.AsError(fmt.Errorf("%w: revert_document's arguments: %v", memorybank.ErrInvalidRequest, err))
	}
	if ra.Scope == "" && ra.Branch != "" {
		ra.Scope = memorybank.ScopeBranch // as revert_document reads an omitted scope
	}
	pinned, err := ownrevert.Check(ctx, s.bank, id, ra)
	var de *ownrevert.DeniedError
	switch {
	case errors.As(err, &de):
		return nil, tools.Errorf(CodePermissionDenied, fmt.Errorf("%w: %w", ErrPermission, err),
			map[string]any{"tool": name, "needs": de.Need.String(), "token": id.Name, "scope": id.Scope.String()}, "%v", err)
	case err != nil:
		return nil, tools.AsError(err)
	}
	if pinned.IfVersion != ra.IfVersion {
		fields["ifVersion"] = json.RawMessage(strconv.FormatInt(pinned.IfVersion, 10))
		if args, err = json.Marshal(fields); err != nil {
			return nil, tools.AsError(err)
		}
	}
	return args, nil
}

// filterToolList drops from tools/list the tools the request's token may
// not call, so its client never offers them to the model.
func (s *Server) filterToolList() {
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if method != "tools/list" || err != nil {
				return res, err
			}
			id, ok := requestIdentity(req)
			lr, isList := res.(*mcp.ListToolsResult)
			if !ok || !isList {
				return res, err
			}
			out := *lr
			out.Tools = nil
			for _, t := range lr.Tools {
				if id.Scope.Allows(toolScopes[t.Name]) {
					out.Tools = append(out.Tools, t)
				}
			}
			return &out, nil
		}
	})
}

// actor is who the history records for req's changes: the token's name
// over HTTP with tokens (whatever the client calls itself), else the
// client's self-declared name.
func actor(req *mcp.CallToolRequest) string {
	if id, ok := requestIdentity(req); ok {
		return id.Name
	}
	return clientName(req)
}

func mustScope(name string) {
	if _, ok := toolScopes[name]; !ok {
		panic(fmt.Sprintf("mcpserver: tool %s has no scope in toolScopes", name))
	}
}
