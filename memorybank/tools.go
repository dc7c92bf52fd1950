package memorybank

// Agent tools over a Bank (issue 5). Decisions where the seeds are silent:
//
//   - Input schemas are draft-07 JSON Schema (what gojsonschema checks and
//     what MCP clients show models), compiled once per process. Every tool
//     refuses unknown top-level properties; patch operation objects accept
//     extra members, as RFC 6902 requires (jsonpatch ignores them).
//     Requirements that depend on another argument (branch when scope is
//     "branch" or branch memory is included) are stated in the descriptions
//     and enforced by the Bank, whose messages name what is missing.
//   - Defaults in the schemas are applied before the call: mode "upsert",
//     returnContent false, include flags true, match "or", search scope
//     "all". language has no schema default: it is Options.Language.
//   - Every result is a JSON object: list_documents and
//     search_documents_by_tags wrap their entries in {"documents": [...]},
//     read_rules returns {"language", "content"}, delete_document
//     {"deleted": true, ...}. Reads return the Document, whose "content" is
//     the envelope as a JSON value.
//   - list_documents and delete_document take scope "branch" or "global"
//     (the origin server had separate tools per bank).
//   - returnContent reads the document after the write; a concurrent writer
//     may already have changed it (its version says so), and if it was
//     deleted meanwhile the document is omitted rather than the write
//     reported as failed.
//   - NOT_FOUND lists at most 50 of the bank's documents (and how many
//     there are). ErrExists (mode "create") is CONFLICT; a corrupt stored
//     document, a store failure or cancellation is INTERNAL.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/agentmemory/agentmemory/jsonpatch"
)

// Tool is one agent tool over a Bank, independent of any transport: a host
// registers Name, Description and InputSchema with its tool protocol (MCP's
// tools/list, a function-calling API, ...) and calls Handle with the
// arguments the model sent.
//
// Handle validates args against InputSchema before anything runs (unknown
// properties and wrong types are refused), fills in the schema's defaults,
// and runs the operation on the Bank. Its result is a value that marshals to
// a JSON object, documents included as JSON values (never JSON in a string).
// Its error is always a *ToolError whose Code is stable and whose Message
// tells the model how to fix its call; nothing was written when a write
// tool fails. Handle is safe for concurrent use.
type Tool struct {
	Name        string                                                       `json:"name"`
	Description string                                                       `json:"description"`
	InputSchema json.RawMessage                                              `json:"inputSchema"` // JSON Schema (draft-07), type object
	Handle      func(ctx context.Context, args json.RawMessage) (any, error) `json:"-"`
}

// Tool names, as in the origin memory-bank MCP server and seeds 000 and 004.
const (
	ToolWriteBranchMemoryBank = "write_branch_memory_bank"
	ToolWriteGlobalMemoryBank = "write_global_memory_bank"
	ToolReadBranchMemoryBank  = "read_branch_memory_bank"
	ToolReadGlobalMemoryBank  = "read_global_memory_bank"
	ToolReadContext           = "read_context"
	ToolReadRules             = "read_rules"
	ToolSearchDocumentsByTags = "search_documents_by_tags"
	ToolListDocuments         = "list_documents"
	ToolDeleteDocument        = "delete_document"
)

// toolSpec defines one tool: run gets arguments already validated and
// completed with defaults.
type toolSpec struct {
	name        string
	description string
	schema      jsonObj
	run         func(ctx context.Context, b *Bank, args json.RawMessage) (any, error)
}

const writeText = ` Give exactly one of content (full overwrite) or patches (RFC 6902 JSON Patch, partial update of an existing document): ` +
	`content and patches are mutually exclusive. Paths ending in .json hold memory_document_v2 JSON documents, validated against ` +
	`the schema of their metadata.documentType (branch_context, active_context, progress, system_patterns; any other type: a non-empty object); ` +
	`patches apply to the whole envelope, e.g. /content/nextSteps/- or /metadata/tags/-. The bank maintains /schema and metadata ` +
	`id, path, createdAt, version and lastModified: patches may not touch them. Other paths (e.g. .md) hold text: content is the text. ` +
	`A failed write changes nothing; the error code (INVALID_ARGUMENT, INVALID_PATCH, PATCH_TEST_FAILED, VALIDATION_FAILED, CONFLICT, ` +
	`NOT_FOUND, LIMIT_EXCEEDED) and message say what to fix. Returns the new version.`

var toolSpecs = []toolSpec{
	{
		name: ToolWriteBranchMemoryBank,
		description: `Write a document to the memory bank of a git branch. branch is required: the current git branch name ` +
			`(the bank does not detect it).` + writeText,
		schema: writeSchema(true),
		run: func(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
			return runWrite(ctx, b, ScopeBranch, args)
		},
	},
	{
		name:        ToolWriteGlobalMemoryBank,
		description: `Write a document to the global memory bank, shared by all branches (no branch parameter).` + writeText,
		schema:      writeSchema(false),
		run: func(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
			return runWrite(ctx, b, ScopeGlobal, args)
		},
	},
	{
		name: ToolReadBranchMemoryBank,
		description: `Read one document of the memory bank of a git branch (branch is required). Returns its metadata, version and ` +
			`content: for a JSON document the whole envelope {schema, metadata, content} as a JSON object (the value patches apply to), for a text document its text.`,
		schema: readSchema(true),
		run: func(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
			return runRead(ctx, b, ScopeBranch, args)
		},
	},
	{
		name: ToolReadGlobalMemoryBank,
		description: `Read one document of the global memory bank (no branch parameter). Returns its metadata, version and ` +
			`content: for a JSON document the whole envelope {schema, metadata, content} as a JSON object, for a text document its text.`,
		schema: readSchema(false),
		run: func(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
			return runRead(ctx, b, ScopeGlobal, args)
		},
	},
	{
		name: ToolReadContext,
		description: `Read all context information at once: the rules, the branch memory bank (core files) and the global memory bank ` +
			`(core files), plus the paths of the other documents. branch is required when includeBranchMemory is true (the default); ` +
			`a branch bank without documents is first initialised with the core files. Call this at the start of a task.`,
		schema: readContextSchema(),
		run:    runReadContext,
	},
	{
		name:        ToolReadRules,
		description: `Read the memory bank rules (Markdown): how to use and maintain the memory bank.`,
		schema:      readRulesSchema(),
		run:         runReadRules,
	},
	{
		name: ToolSearchDocumentsByTags,
		description: `Find documents by tags in the global memory bank and, when branch is given, the branch memory bank. ` +
			`branch is required when scope is "branch". Returns path, title, documentType, tags and version of each match, without content.`,
		schema: searchSchema(),
		run:    runSearch,
	},
	{
		name: ToolListDocuments,
		description: `List the documents of one memory bank, with title, tags, version and size, sorted by path: scope "global", ` +
			`or scope "branch" with branch (branch is required when scope is "branch").`,
		schema: listSchema(),
		run:    runList,
	},
	{
		name: ToolDeleteDocument,
		description: `Delete one document of a memory bank: scope "global", or scope "branch" with branch ` +
			`(branch is required when scope is "branch"). Pass ifVersion to delete only the version you read.`,
		schema: deleteSchema(),
		run:    runDelete,
	},
}

// Tools returns the agent tools of the memory bank b, in a fixed order:
// write_branch_memory_bank, write_global_memory_bank,
// read_branch_memory_bank, read_global_memory_bank, read_context,
// read_rules, search_documents_by_tags, list_documents, delete_document.
// The input schemas are compiled once per process; each call returns new
// Tool values (their InputSchema may be modified by the caller).
func Tools(b *Bank) []Tool {
	schemas, err := toolSchemas()
	tools := make([]Tool, 0, len(toolSpecs))
	for _, spec := range toolSpecs {
		var ts *toolSchema
		if err == nil {
			ts = schemas[spec.name]
		}
		t := Tool{Name: spec.name, Description: spec.description}
		if ts != nil {
			t.InputSchema = bytes.Clone(ts.text)
		} else {
			t.InputSchema, _ = json.Marshal(spec.schema)
		}
		t.Handle = func(ctx context.Context, args json.RawMessage) (any, error) {
			if ts == nil {
				return nil, AsToolError(err)
			}
			args, verr := ts.prepare(spec.name, args)
			if verr != nil {
				return nil, verr
			}
			res, rerr := spec.run(ctx, b, args)
			if rerr != nil {
				return nil, AsToolError(rerr)
			}
			return res, nil
		}
		tools = append(tools, t)
	}
	return tools
}

// decodeArgs decodes validated arguments into v. The schema has already
// refused unknown properties and wrong types, so an error here comes from a
// value the schema cannot judge, such as an invalid patch operation (an
// *jsonpatch.OperationError, mapped to INVALID_PATCH).
func decodeArgs(tool string, args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var oe *jsonpatch.OperationError
		if errors.As(err, &oe) || errors.Is(err, jsonpatch.ErrInvalidPatch) {
			return err
		}
		return &ToolError{Code: CodeInvalidArgument, Err: err,
			Message: fmt.Sprintf("%s: invalid arguments: %v", tool, err)}
	}
	return nil
}

type writeArgs struct {
	Branch        string          `json:"branch"`
	Path          string          `json:"path"`
	Content       json.RawMessage `json:"content"`
	Patches       jsonpatch.Patch `json:"patches"`
	Tags          []string        `json:"tags"`
	Mode          Mode            `json:"mode"`
	IfVersion     int64           `json:"ifVersion"`
	ReturnContent bool            `json:"returnContent"`
}

// writeToolResult is the WriteResult, plus the stored document when
// returnContent is set.
type writeToolResult struct {
	*WriteResult
	Document *Document `json:"document,omitempty"`
}

func runWrite(ctx context.Context, b *Bank, scope Scope, args json.RawMessage) (any, error) {
	tool := ToolWriteGlobalMemoryBank
	if scope == ScopeBranch {
		tool = ToolWriteBranchMemoryBank
	}
	var a writeArgs
	if err := decodeArgs(tool, args, &a); err != nil {
		return nil, err
	}
	res, err := b.Write(ctx, WriteRequest{Scope: scope, Branch: a.Branch, Path: a.Path, Content: a.Content,
		Patches: a.Patches, Tags: a.Tags, Mode: a.Mode, IfVersion: a.IfVersion})
	if err != nil {
		return nil, withAvailable(ctx, b, err, scope, a.Branch)
	}
	out := &writeToolResult{WriteResult: res}
	if a.ReturnContent {
		// A concurrent writer may have written since: the document read
		// carries its own version, so the caller can tell. If it was
		// deleted meanwhile, the write still succeeded: report that alone.
		out.Document, _ = b.Read(ctx, ReadRequest{Scope: scope, Branch: a.Branch, Path: a.Path})
	}
	return out, nil
}

type readArgs struct {
	Branch string `json:"branch"`
	Path   string `json:"path"`
}

func runRead(ctx context.Context, b *Bank, scope Scope, args json.RawMessage) (any, error) {
	tool := ToolReadGlobalMemoryBank
	if scope == ScopeBranch {
		tool = ToolReadBranchMemoryBank
	}
	var a readArgs
	if err := decodeArgs(tool, args, &a); err != nil {
		return nil, err
	}
	doc, err := b.Read(ctx, ReadRequest{Scope: scope, Branch: a.Branch, Path: a.Path})
	if err != nil {
		return nil, withAvailable(ctx, b, err, scope, a.Branch)
	}
	return doc, nil
}

func runReadContext(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
	var req ReadContextRequest
	if err := decodeArgs(ToolReadContext, args, &req); err != nil {
		return nil, err
	}
	return b.ReadContext(ctx, req)
}

// rulesResult is the result of the read_rules tool.
type rulesResult struct {
	Language Language `json:"language"`
	Content  string   `json:"content"`
}

func runReadRules(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
	var a struct {
		Language Language `json:"language"`
	}
	if err := decodeArgs(ToolReadRules, args, &a); err != nil {
		return nil, err
	}
	if a.Language == "" {
		a.Language = b.opts.Language
	}
	text, err := b.Rules(ctx, a.Language)
	if err != nil {
		return nil, err
	}
	return &rulesResult{Language: a.Language, Content: text}, nil
}

func runSearch(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
	var req SearchRequest
	if err := decodeArgs(ToolSearchDocumentsByTags, args, &req); err != nil {
		return nil, err
	}
	hits, err := b.SearchByTags(ctx, req)
	if err != nil {
		return nil, err
	}
	if hits == nil {
		hits = []SearchHit{}
	}
	return &struct {
		Documents []SearchHit `json:"documents"`
	}{hits}, nil
}

func runList(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
	var req ListRequest
	if err := decodeArgs(ToolListDocuments, args, &req); err != nil {
		return nil, err
	}
	entries, err := b.List(ctx, req)
	if err != nil {
		return nil, err
	}
	if entries == nil {
		entries = []ListEntry{}
	}
	return &struct {
		Scope     Scope       `json:"scope"`
		Branch    string      `json:"branch,omitempty"`
		Documents []ListEntry `json:"documents"`
	}{req.Scope, req.Branch, entries}, nil
}

func runDelete(ctx context.Context, b *Bank, args json.RawMessage) (any, error) {
	var req DeleteRequest
	if err := decodeArgs(ToolDeleteDocument, args, &req); err != nil {
		return nil, err
	}
	if err := b.Delete(ctx, req); err != nil {
		return nil, withAvailable(ctx, b, err, req.Scope, req.Branch)
	}
	return &struct {
		Deleted bool   `json:"deleted"`
		Scope   Scope  `json:"scope"`
		Branch  string `json:"branch,omitempty"`
		Path    string `json:"path"`
	}{true, req.Scope, req.Branch, req.Path}, nil
}

// maxAvailable caps the document paths a NOT_FOUND error lists.
const maxAvailable = 50

// withAvailable turns a not-found error into a NOT_FOUND ToolError that
// lists the documents the bank does hold, so the model can correct the
// path. Other errors are returned as they are.
func withAvailable(ctx context.Context, b *Bank, err error, scope Scope, branch string) error {
	if !errors.Is(err, ErrNotFound) {
		return err
	}
	te := AsToolError(err)
	if scope == ScopeBranch && branch == "" {
		return te
	}
	entries, lerr := b.List(ctx, ListRequest{Scope: scope, Branch: branch})
	if lerr != nil {
		return te
	}
	paths := make([]string, 0, min(len(entries), maxAvailable))
	for _, e := range entries[:min(len(entries), maxAvailable)] {
		paths = append(paths, e.Path)
	}
	where := "the global bank"
	if scope == ScopeBranch {
		where = fmt.Sprintf("the branch bank of %q", branch)
	}
	switch {
	case len(entries) == 0:
		te.hint(fmt.Sprintf("%s holds no documents yet; create the document with content.", capitalize(where)))
	case len(entries) > len(paths):
		te.hint(fmt.Sprintf("Documents in %s (first %d of %d): %s.", where, len(paths), len(entries), strings.Join(paths, ", ")))
	default:
		te.hint(fmt.Sprintf("Documents in %s: %s.", where, strings.Join(paths, ", ")))
	}
	if te.Details == nil {
		te.Details = map[string]any{}
	}
	te.Details["availableDocuments"] = paths
	te.Details["totalDocuments"] = len(entries)
	return te
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
