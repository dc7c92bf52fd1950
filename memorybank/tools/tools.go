package tools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
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
// Its error is always an *Error whose Code is stable and whose Message
// tells the model how to fix its call; nothing was written when a write
// tool fails. Handle is safe for concurrent use.
type Tool struct {
	Name        string                                                       `json:"name"`
	Description string                                                       `json:"description"`
	InputSchema json.RawMessage                                              `json:"inputSchema"` // JSON Schema (draft-07), type object
	Handle      func(ctx context.Context, args json.RawMessage) (any, error) `json:"-"`
}

// Tool names, as the memory-bank MCP server names its tools.
const (
	WriteBranchMemoryBank = "write_branch_memory_bank"
	WriteGlobalMemoryBank = "write_global_memory_bank"
	ReadBranchMemoryBank  = "read_branch_memory_bank"
	ReadGlobalMemoryBank  = "read_global_memory_bank"
	ReadContext           = "read_context"
	ReadRules             = "read_rules"
	SearchDocumentsByTags = "search_documents_by_tags"
	ListDocuments         = "list_documents"
	DeleteDocument        = "delete_document"
)

// toolSpec defines one tool: run gets arguments already validated and
// completed with defaults. lenient, when set, rewrites the top-level
// arguments a model wrote loosely before they are validated.
type toolSpec struct {
	name        string
	description string
	schema      jsonObj
	lenient     func(args map[string]json.RawMessage)
	run         func(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error)
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
		name: WriteBranchMemoryBank,
		description: `Write a document to the memory bank of a git branch. branch is required: the current git branch name ` +
			`(the bank does not detect it).` + writeText,
		schema:  writeSchema(true),
		lenient: lenientWrite,
		run: func(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
			return runWrite(ctx, b, memorybank.ScopeBranch, args)
		},
	},
	{
		name:        WriteGlobalMemoryBank,
		description: `Write a document to the global memory bank, shared by all branches (no branch parameter).` + writeText,
		schema:      writeSchema(false),
		lenient:     lenientWrite,
		run: func(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
			return runWrite(ctx, b, memorybank.ScopeGlobal, args)
		},
	},
	{
		name: ReadBranchMemoryBank,
		description: `Read one document of the memory bank of a git branch (branch is required). Returns its metadata, version and ` +
			`content: for a JSON document the whole envelope {schema, metadata, content} as a JSON object (the value patches apply to), for a text document its text.`,
		schema: readSchema(true),
		run: func(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
			return runRead(ctx, b, memorybank.ScopeBranch, args)
		},
	},
	{
		name: ReadGlobalMemoryBank,
		description: `Read one document of the global memory bank (no branch parameter). Returns its metadata, version and ` +
			`content: for a JSON document the whole envelope {schema, metadata, content} as a JSON object, for a text document its text.`,
		schema: readSchema(false),
		run: func(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
			return runRead(ctx, b, memorybank.ScopeGlobal, args)
		},
	},
	{
		name: ReadContext,
		description: `Read all context information at once: the rules, the branch memory bank (core files) and the global memory bank ` +
			`(core files), plus the paths of the other documents. branch is required when includeBranchMemory is true (the default); ` +
			`a branch bank without documents is first initialised with the core files. Call this at the start of a task. ` +
			`It keeps to a token budget (maxTokens, default the server's); with query, the documents most relevant to it fill the rest of the budget, ` +
			`and what was left out is listed by path.`,
		schema: readContextSchema(),
		run:    runReadContext,
	},
	{
		name:        ReadRules,
		description: `Read the memory bank rules (Markdown): how to use and maintain the memory bank.`,
		schema:      readRulesSchema(),
		run:         runReadRules,
	},
	{
		name: SearchDocumentsByTags,
		description: `Find documents by tags in the global memory bank and, when branch is given, the branch memory bank. ` +
			`branch is required when scope is "branch". Returns path, title, documentType, tags and version of each match, without content.`,
		schema: searchSchema(),
		run:    runSearch,
	},
	searchDocumentsSpec,
	{
		name: ListDocuments,
		description: `List the documents of one memory bank, with title, tags, version and size, sorted by path: scope "global", ` +
			`or scope "branch" with branch (branch is required when scope is "branch").`,
		schema: listSchema(),
		run:    runList,
	},
	{
		name: DeleteDocument,
		description: `Delete one document of a memory bank: scope "global", or scope "branch" with branch ` +
			`(branch is required when scope is "branch"). Pass ifVersion to delete only the version you read.`,
		schema: deleteSchema(),
		run:    runDelete,
	},
}

// For returns the agent tools of the memory bank b, in a fixed order:
// write_branch_memory_bank, write_global_memory_bank,
// read_branch_memory_bank, read_global_memory_bank, read_context,
// read_rules, search_documents_by_tags, search_documents, list_documents,
// delete_document, document_history, revert_document.
// The input schemas are compiled once per process; each call returns new
// Tool values (their InputSchema may be modified by the caller).
func For(b *memorybank.Bank) []Tool {
	schemas, err := toolSchemas()
	specs := allSpecs()
	tools := make([]Tool, 0, len(specs))
	for _, spec := range specs {
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
				return nil, AsError(err)
			}
			args, verr := ts.prepare(spec.name, args, spec.lenient)
			if verr != nil {
				return nil, verr
			}
			res, rerr := spec.run(ctx, b, args)
			if rerr != nil {
				return nil, AsError(rerr)
			}
			return res, nil
		}
		tools = append(tools, t)
	}
	return tools
}

// decodeArgs decodes validated arguments into v. The schema has already
// refused unknown properties and wrong types, so an error here comes from a
// value the schema cannot judge, such as an invalid patch operation.
func decodeArgs(tool string, args json.RawMessage, v any) error {
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if te := patchArgError(err); te != nil {
			return te
		}
		return &Error{Code: CodeInvalidArgument, Err: err,
			Message: fmt.Sprintf("%s: invalid arguments: %v", tool, err)}
	}
	return nil
}

// patchArgError reports a patches argument that does not decode as an RFC
// 6902 patch (an unknown op, a malformed pointer, a move without from) as
// INVALID_PATCH naming the operation, or returns nil for other errors.
func patchArgError(err error) *Error {
	var oe *jsonpatch.OperationError
	switch {
	case errors.As(err, &oe):
		te := &Error{Code: CodeInvalidPatch, Message: err.Error(), Err: err,
			Details: map[string]any{"operation": operationDetails(oe.Index, oe.Op)}}
		if errors.Is(err, jsonpatch.ErrLimitExceeded) {
			te.Code = CodeLimitExceeded
		}
		te.hint(fmt.Sprintf("Nothing was written: fix operation %d (index from 0; read the document to see its structure) and resend the whole patch.", oe.Index))
		return te
	case errors.Is(err, jsonpatch.ErrLimitExceeded):
		te := &Error{Code: CodeLimitExceeded, Message: err.Error(), Err: err}
		te.hint("Nothing was written: split the patch.")
		return te
	case errors.Is(err, jsonpatch.ErrInvalidPatch):
		te := &Error{Code: CodeInvalidPatch, Message: err.Error(), Err: err}
		te.hint("Nothing was written: send patches as a list of RFC 6902 operations such as {\"op\":\"add\",\"path\":\"/content/x\",\"value\":1}.")
		return te
	}
	return nil
}

type writeArgs struct {
	Branch        string          `json:"branch"`
	Path          string          `json:"path"`
	Content       json.RawMessage `json:"content"`
	Patches       jsonpatch.Patch `json:"patches"`
	Tags          []string        `json:"tags"`
	Mode          memorybank.Mode `json:"mode"`
	IfVersion     int64           `json:"ifVersion"`
	ReturnContent bool            `json:"returnContent"`
}

// writeToolResult is the WriteResult, plus the stored document when
// returnContent is set.
type writeToolResult struct {
	*memorybank.WriteResult
	Document *memorybank.Document `json:"document,omitempty"`
}

func runWrite(ctx context.Context, b *memorybank.Bank, scope memorybank.Scope, args json.RawMessage) (any, error) {
	tool := WriteGlobalMemoryBank
	if scope == memorybank.ScopeBranch {
		tool = WriteBranchMemoryBank
	}
	var a writeArgs
	if err := decodeArgs(tool, args, &a); err != nil {
		return nil, err
	}
	req := memorybank.WriteRequest{Scope: scope, Branch: a.Branch, Path: a.Path, Patches: a.Patches, Actor: actorFrom(ctx),
		Tags: a.Tags, Mode: a.Mode, IfVersion: a.IfVersion}
	if err := setContent(&req, a.Content); err != nil {
		return nil, err
	}
	res, err := b.Write(ctx, req)
	if err != nil {
		return nil, withAvailable(ctx, b, err, scope, a.Branch)
	}
	out := &writeToolResult{WriteResult: res}
	if a.ReturnContent {
		// The document this write stored, not read back: a concurrent
		// writer cannot swap in another version.
		out.Document, _ = res.Document()
	}
	return out, nil
}

type readArgs struct {
	Branch string `json:"branch"`
	Path   string `json:"path"`
}

func runRead(ctx context.Context, b *memorybank.Bank, scope memorybank.Scope, args json.RawMessage) (any, error) {
	tool := ReadGlobalMemoryBank
	if scope == memorybank.ScopeBranch {
		tool = ReadBranchMemoryBank
	}
	var a readArgs
	if err := decodeArgs(tool, args, &a); err != nil {
		return nil, err
	}
	doc, err := b.Read(ctx, memorybank.ReadRequest{Scope: scope, Branch: a.Branch, Path: a.Path})
	if err != nil {
		return nil, withAvailable(ctx, b, err, scope, a.Branch)
	}
	return doc, nil
}

func runReadContext(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var req memorybank.ReadContextRequest
	if err := decodeArgs(ReadContext, args, &req); err != nil {
		return nil, err
	}
	return b.ReadContext(ctx, req)
}

// rulesResult is the result of the read_rules tool.
type rulesResult struct {
	Language memorybank.Language `json:"language"`
	Content  string              `json:"content"`
}

func runReadRules(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var a struct {
		Language memorybank.Language `json:"language"`
	}
	if err := decodeArgs(ReadRules, args, &a); err != nil {
		return nil, err
	}
	if a.Language == "" {
		a.Language = b.Options().Language
	}
	text, err := b.Rules(ctx, a.Language)
	if err != nil {
		return nil, err
	}
	return &rulesResult{Language: a.Language, Content: text}, nil
}

func runSearch(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var req memorybank.SearchRequest
	if err := decodeArgs(SearchDocumentsByTags, args, &req); err != nil {
		return nil, err
	}
	hits, err := b.SearchByTags(ctx, req)
	if err != nil {
		return nil, err
	}
	if hits == nil {
		hits = []memorybank.SearchHit{}
	}
	return &struct {
		Documents []memorybank.SearchHit `json:"documents"`
	}{hits}, nil
}

func runList(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var req memorybank.ListRequest
	if err := decodeArgs(ListDocuments, args, &req); err != nil {
		return nil, err
	}
	entries, err := b.List(ctx, req)
	if err != nil {
		return nil, err
	}
	if entries == nil {
		entries = []memorybank.ListEntry{}
	}
	return &struct {
		Scope     memorybank.Scope       `json:"scope"`
		Branch    string                 `json:"branch,omitempty"`
		Documents []memorybank.ListEntry `json:"documents"`
	}{req.Scope, req.Branch, entries}, nil
}

func runDelete(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var req memorybank.DeleteRequest
	if err := decodeArgs(DeleteDocument, args, &req); err != nil {
		return nil, err
	}
	req.Actor = actorFrom(ctx)
	if err := b.Delete(ctx, req); err != nil {
		return nil, withAvailable(ctx, b, err, req.Scope, req.Branch)
	}
	return &struct {
		Deleted bool             `json:"deleted"`
		Scope   memorybank.Scope `json:"scope"`
		Branch  string           `json:"branch,omitempty"`
		Path    string           `json:"path"`
	}{true, req.Scope, req.Branch, req.Path}, nil
}

// maxAvailable caps the document paths a NOT_FOUND error lists.
const maxAvailable = 50

// withAvailable turns a not-found error into a NOT_FOUND Error that lists
// the documents the bank does hold, so the model can correct the path.
// Other errors are returned as they are. The paths come from Bank.Paths,
// which reads no document: when warm, a mistyped path costs one
// change-count check, not a listing of the bank.
func withAvailable(ctx context.Context, b *memorybank.Bank, err error, scope memorybank.Scope, branch string) error {
	if !errors.Is(err, memorybank.ErrNotFound) {
		return err
	}
	te := AsError(err)
	where := "the global bank"
	if scope == memorybank.ScopeBranch {
		if memorybank.ValidateBranch(branch) != nil {
			return te
		}
		where = fmt.Sprintf("the branch bank of %q", branch)
	}
	all, lerr := b.Paths(ctx, memorybank.ListRequest{Scope: scope, Branch: branch})
	if lerr != nil {
		return te
	}
	total := len(all)
	paths := all[:min(total, maxAvailable)]
	switch {
	case total == 0:
		te.hint(fmt.Sprintf("%s holds no documents yet; create the document with content.", capitalize(where)))
	case total > len(paths):
		te.hint(fmt.Sprintf("Documents in %s (first %d of %d): %s.", where, len(paths), total, strings.Join(paths, ", ")))
	default:
		te.hint(fmt.Sprintf("Documents in %s: %s.", where, strings.Join(paths, ", ")))
	}
	if te.Details == nil {
		te.Details = map[string]any{}
	}
	te.Details["availableDocuments"] = paths
	te.Details["totalDocuments"] = total
	return te
}

func capitalize(s string) string {
	if s == "" {
		return s
	}
	return strings.ToUpper(s[:1]) + s[1:]
}
