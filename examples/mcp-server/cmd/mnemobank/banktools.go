package main

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Tool annotations. Every tool works on the bank or the memories file
// only, so none is open-world.
var (
	readOnly = &mcp.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: ptr(false)}
	// additive: writes that only add (a new memory, a new branch bank's
	// core files).
	additive = &mcp.ToolAnnotations{DestructiveHint: ptr(false), OpenWorldHint: ptr(false)}
	// initialising: writes only what is missing; calling it again changes
	// nothing more.
	initialising = &mcp.ToolAnnotations{DestructiveHint: ptr(false), IdempotentHint: true, OpenWorldHint: ptr(false)}
	// overwriting: may replace or remove what is stored.
	overwriting = &mcp.ToolAnnotations{DestructiveHint: ptr(true), OpenWorldHint: ptr(false)}
	// replacing: replaces what is stored with the arguments; the same call
	// again leaves the same state.
	replacing = &mcp.ToolAnnotations{DestructiveHint: ptr(true), IdempotentHint: true, OpenWorldHint: ptr(false)}
)

func ptr[T any](v T) *T { return &v }

// bankTools says, for each memory bank tool, its annotations and when an
// omitted branch is taken from the client's roots.
var bankTools = map[string]struct {
	annotations *mcp.ToolAnnotations
	branch      func(map[string]json.RawMessage) bool
}{
	tools.WriteBranchMemoryBank: {overwriting, alwaysBranch},
	tools.WriteGlobalMemoryBank: {overwriting, nil},
	tools.ReadBranchMemoryBank:  {readOnly, alwaysBranch},
	tools.ReadGlobalMemoryBank:  {readOnly, nil},
	// read_context initialises a new branch bank with the core files.
	tools.ReadContext:           {initialising, readContextBranch},
	tools.ReadRules:             {readOnly, nil},
	tools.SearchDocumentsByTags: {readOnly, branchScope},
	tools.SearchDocuments:       {readOnly, branchScope},
	tools.ListDocuments:         {readOnly, branchScope},
	tools.DeleteDocument:        {replacing, branchScope},
	tools.DocumentHistory:       {readOnly, branchScope},
	tools.RevertDocument:        {overwriting, branchScope},
}

const rootsBranchText = ` When branch is omitted and the client declared exactly one root that is a git work tree, ` +
	`the server uses that work tree's current branch and names it in the result's branchFromRoots.`

// addBankTool registers a memory bank tool of memorybank/tools. Where the
// branch may come from the client's roots, branch is no longer required by
// the schema; the bank still refuses a call that ends up without one.
func (s *server) addBankTool(t tools.Tool, outputs map[string]*jsonschema.Schema) {
	info := bankTools[t.Name]
	schema := json.RawMessage(t.InputSchema)
	if info.branch != nil {
		schema = optionalBranch(schema)
	}
	s.AddTool(&mcp.Tool{
		Name:         t.Name,
		Description:  t.Description + branchNote(info.branch != nil),
		InputSchema:  schema,
		OutputSchema: outputs[t.Name],
		Annotations:  info.annotations,
	}, s.handler(toolDef{
		branch: info.branch,
		run: func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (any, error) {
			return t.Handle(tools.WithActor(ctx, clientName(req)), args)
		},
	}))
}

// clientName is the name the MCP client gave in its handshake (such as
// "claude-code"), recorded as the actor of every change to the bank.
func clientName(req *mcp.CallToolRequest) string {
	if req == nil || req.Session == nil {
		return ""
	}
	if p := req.Session.InitializeParams(); p != nil && p.ClientInfo != nil {
		return actorName(p.ClientInfo.Name)
	}
	return ""
}

// actorName makes a client's name an actor the bank records: as it is when
// the bank accepts it, else its first bytes quoted in Go syntax (control
// characters and invalid UTF-8 escaped), so a client with an odd name can
// still write, and its history still says who it was.
func actorName(name string) string {
	if memorybank.ValidateActor(name) == nil {
		return name
	}
	const keep = 48 // a quoted byte is at most 4 characters: 2 + 4*48 < MaxActorBytes
	if len(name) > keep {
		name = strings.ToValidUTF8(name[:keep], "") + "..."
	}
	return strconv.QuoteToASCII(name)
}

func branchNote(roots bool) string {
	if roots {
		return rootsBranchText
	}
	return ""
}

// optionalBranch removes "branch" from the schema's required list and says
// in its description where an omitted branch comes from.
func optionalBranch(schema json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(schema, &m) != nil {
		return schema
	}
	if req, ok := m["required"].([]any); ok {
		req = slices.DeleteFunc(req, func(v any) bool { return v == "branch" })
		if len(req) == 0 {
			delete(m, "required")
		} else {
			m["required"] = req
		}
	}
	if props, ok := m["properties"].(map[string]any); ok {
		if b, ok := props["branch"].(map[string]any); ok {
			d, _ := b["description"].(string)
			b["description"] = d + rootsBranchText
		}
	}
	out, err := json.Marshal(m)
	if err != nil {
		return schema
	}
	return out
}
