// Package tools gives a memory bank's agent tools to a host, without
// choosing a transport: [For] returns, for a [memorybank.Bank], the tools
// of the memory-bank MCP server (write_branch_memory_bank, read_context,
// search_documents_by_tags, ...), each a name, a description, a JSON
// Schema for its arguments and a handler. The host registers them with its
// tool protocol (MCP's tools/list, a function-calling API, ...) and calls
// [Tool.Handle] with the arguments the model sent; examples/mcp-server
// serves them over MCP.
//
//	for _, t := range tools.For(bank) {
//		register(t.Name, t.Description, t.InputSchema, t.Handle)
//	}
//
// The package is also where every agent tool of the repository is
// declared alike: [Declare] derives a tool from its argument and result
// types, [Bind] binds it to what it works on, and each domain has its own
// package of tools built that way (memories/memtools,
// skillgraph/graphtools, memorybank/plan/plantools,
// consolidate/consolidatetools), so a host registers all of them in one
// loop. What a host knows about a call beyond its arguments (who makes it,
// the branch an omitted one is, how the user confirms a plan) is an [Env]
// passed to [Tool.Handle] with every call, never carried in the context.
//
// Arguments are validated against each tool's InputSchema before anything
// runs, unknown properties are refused and defaults applied. Every failure
// is an [*Error] whose Code (NOT_FOUND, INVALID_PATCH, CONFLICT, ...) is
// mapped from the Bank's errors with errors.Is and errors.As, never from
// messages; [AsError] does the same mapping for a host's own transport.
// Results are JSON values: documents are objects, not strings holding JSON.
//
// This package is the edge that reads what models write, so the leniency
// models need lives here and not in the Bank: in every tool, an argument
// whose schema takes a list or an object and no string may come as a
// string holding its JSON; in the write tools, content "" or null is
// absent, a string holding a JSON object is that object (also as an
// envelope's content), empty patches beside content are dropped, and a
// content string for a text path (any path not ending in .json) is the
// document's text. An argument given twice is refused, since JSON decoders
// disagree on which one counts. Arguments that are not UTF-8 text (a byte
// that is not UTF-8, or a \u escape of half a surrogate pair such as
// "\ud800") are refused as INVALID_ARGUMENT before anything is read:
// decoding would turn them into U+FFFD, so a path would name another
// document. This check is the tools' own, not a transport's: every way a
// tool is called (the MCP server over stdio or HTTP, an API adapter such
// as toolcall, a host calling Def.Handle) passes through Decode, so the
// MCP server's stdio transport leaves a tool call's arguments to it.
//
// Rules where the tool protocol leaves a choice:
//
//   - Each tool is declared once: its argument type, its result type and
//     its Effect. The input and output schemas are derived from those Go
//     types with jsonschema-go (descriptions from jsonschema struct tags,
//     required unless omitempty, enums and bounds added beside the type)
//     and exported on Tool with the Annotations, so a host registers them
//     as they are. Arguments are validated once, split in place and
//     decoded member by member into the argument type (a raw JSON member,
//     such as a write's content, is copied once and not rescanned), and
//     checked against the same schema. Every tool
//     refuses unknown top-level properties; patch operation objects accept
//     extra members, as RFC 6902 requires. The descriptions are short,
//     since a client sends them to the model on every turn: what every
//     tool shares (the branch, the documents, paging, unknown arguments,
//     the error codes) is said once, in [Guide], for the host's
//     instructions. Requirements that depend on another argument (branch
//     when scope is "branch" or branch memory is included) are stated in
//     the descriptions or the Guide and checked on the decoded
//     arguments, after the Env's BranchResolver had its chance to supply an
//     omitted branch (also for search_documents_by_tags with scope "all",
//     which takes a branch without needing one).
//   - Defaults in the schemas are applied before the call: mode "upsert",
//     returnContent false, include flags true, match "or", search scope
//     "all". language has no schema default: it is the Bank's
//     Options.Language.
//   - Every result is a JSON object: list_documents and
//     search_documents_by_tags wrap their entries in {"documents": [...]},
//     read_rules returns {"language", "content"}, delete_document
//     {"deleted": true, ...}. Members are camelCase; a member without a
//     value is left out, never null, and a list is [] when empty. Reads
//     return the document with its metadata once: a JSON document's
//     "content" is the envelope as a JSON value (metadata inside), a text
//     document's "metadata" stands beside its text; only "version" is
//     repeated at the top, for ifVersion.
//   - list_documents, delete_document, document_history and
//     revert_document take scope "branch" or "global", one tool for both
//     banks; scope may be left out when branch is given (the branch's
//     bank), and is refused when both are, rather than guessed.
//   - returnContent returns the document as this write stored it (not read
//     back, so never another writer's version).
//   - NOT_FOUND lists at most 50 of the bank's documents (and how many
//     there are), from one listing of the store's keys: no document is
//     read to build the hint. ErrExists (mode "create") is CONFLICT; a
//     corrupt stored document, a store failure or cancellation is INTERNAL.
package tools
