package tools

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/screen"
)

// Tool is one agent tool over a Bank, independent of any transport: a host
// registers Name, Description, InputSchema, OutputSchema and Annotations
// with its tool protocol (MCP's tools/list, a function-calling API, ...) as
// they are, and calls Handle with the arguments the model sent.
//
// The schemas are derived from the Go types the arguments decode into and
// the result marshals from (InputType and OutputType), so they cannot
// disagree with what Handle does. Handle decodes the arguments once into
// InputType, refusing unknown properties, wrong types and values outside
// the schema, fills in the schema's defaults, and runs the operation on
// the Bank. Its result is a value that marshals to a JSON object,
// documents included as JSON values (never JSON in a string). Its error is
// always an *Error whose Code is stable and whose Message tells the model
// how to fix its call; nothing was written when a write tool fails. Handle
// is safe for concurrent use.
type Tool struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"inputSchema"`
	// OutputSchema names the members of the result and their JSON types
	// (see OutputSchema); a failed call's Error fits it too. The result's
	// object is open: a host may add members.
	OutputSchema *jsonschema.Schema `json:"outputSchema"`
	Annotations  Annotations        `json:"annotations"`
	// InputType and OutputType are the Go types the schemas are derived
	// from.
	InputType  reflect.Type `json:"-"`
	OutputType reflect.Type `json:"-"`
	// Handle runs the tool with the arguments the model sent; env says
	// who calls and supplies what the model may omit (the zero Env
	// works).
	Handle func(ctx context.Context, env Env, args json.RawMessage) (any, error) `json:"-"`
	branch bool                                                                  // the arguments have a branch a BranchResolver may supply
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

const writeText = `: content (the whole document) or patches (RFC 6902, to an existing one), mutually exclusive.`

// decls is every tool, in the order For returns them.
var decls = []Decl[*memorybank.Bank]{
	Declare(WriteBranchMemoryBank,
		`Write a document of a branch's bank (branch required)`+writeText,
		Overwriting, adjustWrite, lenientWrite,
		func(ctx context.Context, b *memorybank.Bank, env Env, a *writeBranchArgs) (*writeToolResult, error) {
			return runWrite(ctx, b, env, memorybank.ScopeBranch, a.Branch, &a.writeArgs)
		}),
	Declare(WriteGlobalMemoryBank,
		`Write a document of the global bank (shared by all branches)`+writeText,
		Overwriting, adjustWrite, lenientWrite,
		func(ctx context.Context, b *memorybank.Bank, env Env, a *writeArgs) (*writeToolResult, error) {
			return runWrite(ctx, b, env, memorybank.ScopeGlobal, "", a)
		}),
	Declare(ReadBranchMemoryBank,
		`Read a document of a branch's bank (branch required): metadata, version and content.`,
		ReadOnly, nil, nil,
		func(ctx context.Context, b *memorybank.Bank, _ Env, a *readBranchArgs) (*readResult, error) {
			return runRead(ctx, b, memorybank.ScopeBranch, a.Branch, a.Path)
		}),
	Declare(ReadGlobalMemoryBank,
		`Read a document of the global bank: metadata, version and content.`,
		ReadOnly, nil, nil,
		func(ctx context.Context, b *memorybank.Bank, _ Env, a *readArgs) (*readResult, error) {
			return runRead(ctx, b, memorybank.ScopeGlobal, "", a.Path)
		}),
	Declare(ReadContext,
		`Call first in a task: rules, both banks' core files, other paths; with query the most relevant documents. `+
			`branch required unless includeBranchMemory is false.`,
		// read_context initialises a new branch bank with the core files.
		Initialising, adjustReadContext, nil, runReadContext),
	Declare(ReadRules, `Read the rules (Markdown): how to use and keep the memory bank.`,
		ReadOnly, adjustLanguage, nil, runReadRules),
	Declare(SearchDocumentsByTags,
		`Find documents by tags, without content.`,
		ReadOnly, adjustSearchByTags, nil, runSearch),
	searchDocumentsDecl,
	Declare(ListDocuments,
		`List one bank's documents by path with title, tags, version, size.`,
		ReadOnly, adjustList, inferScope, runList),
	Declare(DeleteDocument,
		`Delete a document; revert_document restores it.`,
		Replacing, adjustDelete, inferScope, runDelete),
	historyDecl,
	revertDecl,
}

// Defs returns the tools of the memory bank b bound to it, in the order
// of For, without deriving their schemas.
func Defs(b *memorybank.Bank) []Def { return Bind(b, decls...) }

// For returns the agent tools of the memory bank b, in a fixed order:
// write_branch_memory_bank, write_global_memory_bank,
// read_branch_memory_bank, read_global_memory_bank, read_context,
// read_rules, search_documents_by_tags, search_documents, list_documents,
// delete_document, document_history, revert_document.
// The schemas are derived once per process, by the first call; each call
// returns new Tool values whose schemas the caller may modify.
func For(b *memorybank.Bank, opts ...Option) []Tool { return Tools(Defs(b), opts...) }

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
	Path          string          `json:"path"`
	Content       json.RawMessage `json:"content,omitempty" jsonschema:"envelope, its content, or text"`
	Patches       jsonpatch.Patch `json:"patches,omitempty"`
	Tags          []string        `json:"tags,omitempty"`
	Mode          memorybank.Mode `json:"mode,omitempty"`
	IfVersion     int64           `json:"ifVersion,omitempty"`
	ReturnContent bool            `json:"returnContent,omitempty"`
}

type writeBranchArgs struct {
	Branch string `json:"branch,omitempty"`
	writeArgs
}

func (a *writeBranchArgs) BranchRef() *string { return &a.Branch }
func (a *writeBranchArgs) NeedsBranch() bool  { return true }

func adjustWrite(s *jsonschema.Schema) {
	content := Property(s, "content")
	content.Types = []string{"string", "object"}
	patches := Property(s, "patches")
	patches.Types, patches.Type = nil, "array"
	one := 1
	patches.MinItems = &one
	op := patches.Items
	op.AdditionalProperties = nil // RFC 6902: other members are ignored
	SetEnum(op, "op", jsonpatch.OpAdd, jsonpatch.OpRemove, jsonpatch.OpReplace, jsonpatch.OpMove, jsonpatch.OpCopy, jsonpatch.OpTest)
	tags := Property(s, "tags")
	tags.Types, tags.Type = nil, "array"
	tags.Items.MinLength = &one
	SetEnum(s, "mode", string(memorybank.ModeUpsert), string(memorybank.ModeCreate), string(memorybank.ModeUpdate))
	SetDefault(s, "mode", memorybank.ModeUpsert)
	SetBounds(s, "ifVersion", 0, 0)
	SetDefault(s, "returnContent", false)
}

// writeToolResult is the WriteResult, plus the stored document when
// returnContent is set.
type writeToolResult struct {
	*memorybank.WriteResult
	Document *readResult `json:"document,omitempty"`
}

func runWrite(ctx context.Context, b *memorybank.Bank, env Env, scope memorybank.Scope, branch string, a *writeArgs) (*writeToolResult, error) {
	tool := WriteGlobalMemoryBank
	if scope == memorybank.ScopeBranch {
		tool = WriteBranchMemoryBank
	}
	req := memorybank.WriteRequest{Scope: scope, Branch: branch, Path: a.Path, Patches: a.Patches, Actor: env.Actor,
		Tags: a.Tags, Mode: a.Mode, IfVersion: a.IfVersion, Provenance: &memorybank.Provenance{Tool: tool}}
	if err := setContent(&req, a.Content); err != nil {
		return nil, err
	}
	res, err := b.Write(ctx, req)
	if err != nil {
		return nil, withAvailable(ctx, b, err, scope, branch)
	}
	out := &writeToolResult{WriteResult: res}
	if a.ReturnContent {
		// The document this write stored, not read back: a concurrent
		// writer cannot swap in another version.
		if doc, err := res.Document(); err == nil {
			out.Document = asRead(doc)
		}
	}
	return out, nil
}

type readArgs struct {
	Path string `json:"path"`
}

type readBranchArgs struct {
	Branch string `json:"branch,omitempty"`
	readArgs
}

func (a *readBranchArgs) BranchRef() *string { return &a.Branch }
func (a *readBranchArgs) NeedsBranch() bool  { return true }

// readResult is a document as a read answers it, with its metadata once:
// inside the envelope that is a JSON document's content, or as metadata
// beside a text document's text (memorybank.Document also repeats the
// metadata's fields at its top, which a model would read twice). version
// is kept at the top, as every write answers it, for ifVersion.
type readResult struct {
	Scope    memorybank.Scope  `json:"scope"`
	Branch   string            `json:"branch,omitempty"`
	Path     string            `json:"path"`
	Format   memorybank.Format `json:"format"`
	Version  int64             `json:"version"`
	Metadata json.RawMessage   `json:"metadata,omitempty"`
	Content  json.RawMessage   `json:"content"`
	Flags    []screen.Flag     `json:"flags,omitempty"`
}

func asRead(d *memorybank.Document) *readResult {
	return &readResult{Scope: d.Scope, Branch: d.Branch, Path: d.Path, Format: d.Format, Version: d.Version,
		Metadata: d.Metadata, Content: d.Content, Flags: d.Flags}
}

func runRead(ctx context.Context, b *memorybank.Bank, scope memorybank.Scope, branch, path string) (*readResult, error) {
	doc, err := b.Read(ctx, memorybank.ReadRequest{Scope: scope, Branch: branch, Path: path})
	if err != nil {
		return nil, withAvailable(ctx, b, err, scope, branch)
	}
	doc, err = bounded(doc, b.Options().MaxDocumentBytes)
	if err != nil {
		return nil, err
	}
	return asRead(doc), nil
}

// Truncate returns text when it is at most limit bytes, else its first
// limit bytes or fewer (cut at a line where one is in the second half, and
// never inside a character) followed by a note saying how much of how much
// it holds and where to read the rest, and true. A read of the tools and
// a resource read of the server cut a document larger than a write could
// store this way.
func Truncate(text string, limit int) (string, bool) {
	if len(text) <= limit {
		return text, false
	}
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(text[:cut], '\n'); nl > cut/2 {
		cut = nl + 1
	}
	return text[:cut] + fmt.Sprintf("\n\n[Truncated: this document is %d bytes of text, more than a read answers (%d); these are its first %d. "+
		"Read it whole in the bank's folder or download it from the viewer.]\n", len(text), limit, cut), true
}

// bounded keeps a read's answer within the limit of a write (limit bytes),
// so a document placed in the bank by hand, larger than any write could
// store, costs a bounded answer: a text document's text is cut there (at a
// line where one is near) and ends with a note saying so; a JSON document,
// which cannot be cut and stay JSON, is a *LimitError naming both sizes.
func bounded(doc *memorybank.Document, limit int) (*memorybank.Document, error) {
	if len(doc.Content) <= limit {
		return doc, nil
	}
	if doc.Format == memorybank.FormatJSON {
		return nil, fmt.Errorf("%w; a read answers documents up to that size: read this one in the bank's folder or download it from the viewer",
			&memorybank.LimitError{Limit: "document size", Max: limit, Got: len(doc.Content), Path: doc.Path})
	}
	text, _ := Truncate(doc.Text(), limit)
	out := *doc
	out.Content, _ = json.Marshal(text)
	return &out, nil
}

type readContextArgs struct {
	Branch              string              `json:"branch,omitempty"`
	Language            memorybank.Language `json:"language,omitempty"`
	IncludeRules        *bool               `json:"includeRules,omitempty"`
	IncludeBranchMemory *bool               `json:"includeBranchMemory,omitempty"`
	IncludeGlobalMemory *bool               `json:"includeGlobalMemory,omitempty"`
	readContextBudget
}

func (a *readContextArgs) BranchRef() *string { return &a.Branch }
func (a *readContextArgs) NeedsBranch() bool {
	return a.IncludeBranchMemory == nil || *a.IncludeBranchMemory
}

func adjustLanguage(s *jsonschema.Schema) {
	SetEnum(s, "language", string(memorybank.English), string(memorybank.Japanese), string(memorybank.Chinese))
}

func adjustReadContext(s *jsonschema.Schema) {
	adjustLanguage(s)
	for _, name := range []string{"includeRules", "includeBranchMemory", "includeGlobalMemory"} {
		p := Property(s, name)
		p.Types, p.Type = nil, "boolean"
		SetDefault(s, name, true)
	}
	adjustReadContextBudget(s)
}

func runReadContext(ctx context.Context, b *memorybank.Bank, _ Env, a *readContextArgs) (*memorybank.ReadContextResult, error) {
	return b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: a.Branch, Language: a.Language,
		IncludeRules: a.IncludeRules, IncludeBranchMemory: a.IncludeBranchMemory, IncludeGlobalMemory: a.IncludeGlobalMemory,
		Query: a.Query, MaxTokens: a.MaxTokens})
}

type readRulesArgs struct {
	Language memorybank.Language `json:"language,omitempty"`
}

// rulesResult is the result of the read_rules tool.
type rulesResult struct {
	Language memorybank.Language `json:"language"`
	Content  string              `json:"content"`
}

func runReadRules(ctx context.Context, b *memorybank.Bank, _ Env, a *readRulesArgs) (*rulesResult, error) {
	if a.Language == "" {
		a.Language = b.Options().Language
	}
	text, err := b.Rules(ctx, a.Language)
	if err != nil {
		return nil, err
	}
	return &rulesResult{Language: a.Language, Content: text}, nil
}

type searchByTagsArgs struct {
	Tags   []string         `json:"tags"`
	Match  memorybank.Match `json:"match,omitempty"`
	Scope  memorybank.Scope `json:"scope,omitempty"`
	Branch string           `json:"branch,omitempty"`
	PageArgs
}

func (a *searchByTagsArgs) BranchRef() *string { return &a.Branch }
func (a *searchByTagsArgs) NeedsBranch() bool  { return a.Scope == memorybank.ScopeBranch }
func (a *searchByTagsArgs) wantsBranch() bool  { return a.Scope == memorybank.ScopeAll }

func adjustSearchByTags(s *jsonschema.Schema) {
	tags := Property(s, "tags")
	tags.Types, tags.Type = nil, "array"
	one := 1
	tags.MinItems = &one
	tags.Items.MinLength = &one
	SetEnum(s, "match", string(memorybank.MatchAny), string(memorybank.MatchAll))
	SetDefault(s, "match", memorybank.MatchAny)
	SetEnum(s, "scope", string(memorybank.ScopeBranch), string(memorybank.ScopeGlobal), string(memorybank.ScopeAll))
	SetDefault(s, "scope", memorybank.ScopeAll)
	AdjustPage(s, defaultListLimit)
}

// defaultListLimit is the default limit of list_documents and
// search_documents_by_tags, whose results are a line of metadata each.
const defaultListLimit = 20

// tagResults is the result of search_documents_by_tags.
type tagResults struct {
	Documents []memorybank.SearchHit `json:"documents"`
	PageResult
}

func runSearch(ctx context.Context, b *memorybank.Bank, _ Env, a *searchByTagsArgs) (*tagResults, error) {
	p, err := b.SearchByTagsPage(ctx, memorybank.SearchRequest{Tags: a.Tags, Match: a.Match, Scope: a.Scope, Branch: a.Branch,
		Offset: a.Offset, Limit: cmp.Or(a.Limit, defaultListLimit)})
	if err != nil {
		return nil, err
	}
	hits := Fit(NonNil(p.Items), a.MaxTokens)
	return &tagResults{hits, PageOf(a.Offset, len(hits), p.Total)}, nil
}

// scopedArgs are the scope and branch of a tool on one bank.
// scope may be left out when branch is given (inferScope): the bank a
// branch names is the branch's.
type scopedArgs struct {
	Scope  memorybank.Scope `json:"scope,omitempty" jsonschema:"branch if branch is given"`
	Branch string           `json:"branch,omitempty"`
}

func (a *scopedArgs) argProblems() []memorybank.Problem {
	if a.Scope == "" {
		return []memorybank.Problem{{Pointer: "/scope", Message: "scope is required without branch: give scope global, or branch (scope branch)"}}
	}
	return nil
}

// inferScope gives an omitted scope from the branch: a call naming a
// branch means the branch's bank. Without either, the call is refused
// (argProblems): "global" guessed for a delete would remove another
// bank's document.
func inferScope(args map[string]json.RawMessage) {
	if _, given := args["scope"]; given {
		return
	}
	var branch string
	if json.Unmarshal(args["branch"], &branch) == nil && branch != "" {
		args["scope"] = json.RawMessage(`"branch"`)
	}
}

func (a *scopedArgs) BranchRef() *string { return &a.Branch }
func (a *scopedArgs) NeedsBranch() bool  { return a.Scope == memorybank.ScopeBranch }

func adjustScoped(s *jsonschema.Schema) {
	SetEnum(s, "scope", string(memorybank.ScopeBranch), string(memorybank.ScopeGlobal))
}

type listArgs struct {
	scopedArgs
	Prefix string `json:"prefix,omitempty" jsonschema:"e.g. notes/"`
	PageArgs
}

func adjustList(s *jsonschema.Schema) {
	adjustScoped(s)
	AdjustPage(s, defaultListLimit)
}

// listResult is the result of list_documents.
type listResult struct {
	Scope     memorybank.Scope       `json:"scope"`
	Branch    string                 `json:"branch,omitempty"`
	Documents []memorybank.ListEntry `json:"documents"`
	PageResult
}

func runList(ctx context.Context, b *memorybank.Bank, _ Env, a *listArgs) (*listResult, error) {
	p, err := b.ListPage(ctx, memorybank.ListRequest{Scope: a.Scope, Branch: a.Branch, Prefix: a.Prefix,
		Offset: a.Offset, Limit: cmp.Or(a.Limit, defaultListLimit)})
	if err != nil {
		return nil, err
	}
	entries := Fit(NonNil(p.Items), a.MaxTokens)
	return &listResult{a.Scope, a.Branch, entries, PageOf(a.Offset, len(entries), p.Total)}, nil
}

type deleteArgs struct {
	scopedArgs
	Path      string `json:"path"`
	IfVersion int64  `json:"ifVersion,omitempty"`
}

func adjustDelete(s *jsonschema.Schema) {
	adjustScoped(s)
	SetBounds(s, "ifVersion", 0, 0)
}

// deleteResult is the result of delete_document.
type deleteResult struct {
	Deleted bool             `json:"deleted"`
	Scope   memorybank.Scope `json:"scope"`
	Branch  string           `json:"branch,omitempty"`
	Path    string           `json:"path"`
}

func runDelete(ctx context.Context, b *memorybank.Bank, env Env, a *deleteArgs) (*deleteResult, error) {
	req := memorybank.DeleteRequest{Scope: a.Scope, Branch: a.Branch, Path: a.Path, IfVersion: a.IfVersion, Actor: env.Actor}
	if err := b.Delete(ctx, req); err != nil {
		return nil, withAvailable(ctx, b, err, req.Scope, req.Branch)
	}
	return &deleteResult{true, req.Scope, req.Branch, req.Path}, nil
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
