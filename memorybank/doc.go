// Package memorybank is a memory bank for AI coding agents: a branch bank
// per git branch and a global bank of documents, kept in any [Store]
// ([MemStore] in memory, fsstore on disk, pgstore in PostgreSQL, or one of
// the host's), with validated writes, RFC 6902 partial updates, a one-call
// [Bank.ReadContext] and search. It reads the banks of the memory-bank
// MCP server (its memory_document_v2 format, JSON and Markdown) unchanged.
//
//	bank := memorybank.New(&memorybank.MemStore{}, nil)
//	rc, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "feature/login"})
//	res, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login",
//		Path: "activeContext.json", Patches: jsonpatch.Patch{{Op: "add", Path: "/content/nextSteps/-", Value: json.RawMessage(`"write tests"`)}}})
//
// This package holds the [Bank] and its operations (Read, Write, Delete,
// List, ReadContext, search), the [Store] contract with [MemStore], the
// request and result types and the errors. It does no I/O of its own:
// every read and write goes through the Store, with compare-and-swap. It
// picks no transport and does not detect the current git branch: callers
// pass it. Its Go API takes typed input (content as a JSON object, text as
// text). Around it, each in its own package: memorybank/history, the
// [Journal] that records each document's history when given as
// Options.History (a Bank without one records none), and the functions
// over a Bank that list, rebuild, diff and revert it; memorybank/plan, the file selection and confirmed write plans of
// a Markdown memory bank; memorybank/tools, the agent tools for a host to
// serve; memorybank/memorymd, the MEMORY.md format; fsstore and pgstore,
// Stores; storetest, the suite a Store must pass.
//
// # Layout
//
// Keys are "global-memory-bank/<path>" and
// "branch-memory-bank/<branch-dir>/<path>", where <branch-dir> is the
// branch name with "/" replaced by "-" ([BranchDir]). Branch names follow
// git check-ref-format ("main" included). The first write to a branch
// directory records the branch name in ".branch.json" inside it; a
// different branch mapping to the same directory ("feature/foo" and
// "feature-foo") gets a [*BranchError] wrapping [ErrBranchCollision]
// instead of sharing memory. Directories of existing banks without a marker
// are claimed by the first branch that writes to them. Document path
// segments starting with "." are reserved for such records. A path is
// accepted when it passes [ValidatePath] and its key is at most [MaxKeyLen]
// bytes.
//
// # Documents and writes
//
// A path ending in ".json" holds a memory_document_v2 envelope
// {"schema", "metadata", "content"}; every other path is a text document,
// its metadata in a YAML front matter block or, for a file without one,
// derived from its text ([Format] says how). [Bank.Write] takes content,
// text or patches; the Bank maintains schema, id, path, createdAt, version
// and lastModified, validates every result against the embedded draft-07
// schemas ([Schema]) and lists every problem by JSON Pointer in a
// [*ValidationError]; [Bank.Write] lists the decisions. [Bank.CheckWrite]
// runs every check of a write without storing anything. A Bank without a
// Store (nil, zero, or New(nil, nil)) returns [ErrNotInitialised] from
// every method.
//
// A write does each piece of work once: one Store.Get, the stored bytes
// split into their members without decoding the content, the patch or
// content applied, the content decoded once (for validation, and in the
// same pass written in its stored form), one Store.Put, and one Put of its
// history entry. [WriteResult.Document] gives the stored document without
// reading it back.
//
// Concurrency: each write is a read, a recomputation and a compare-and-swap
// on the store version. With IfVersion, a stale metadata.version is a
// [*ConflictError] carrying the current version. Without it, a lost swap
// recomputes the write on the latest version, so concurrent agents never
// lose updates and versions increase by exactly one per write. Goroutines
// of one Bank writing the same document queue on a per-key lock; writers in
// other Banks or processes race through the store, and the loser retries
// after a jittered pause, up to Options.MaxRetries, before giving up with
// [ErrConflict].
//
// # ReadContext
//
// Rules, branch memory and global memory in one call, within a token
// budget (ReadContextRequest.MaxTokens, else Options.ContextTokens, counted
// by Options.TokenCounter): core files first, then, given a Query or
// MaxTokens, whole documents, the most relevant first; what was left out
// is listed. A branch bank with no documents is initialised from templates
// in the request's language. Rules come from the global document
// "rules/<lang>.md" if it exists, else Options.DefaultRules,
// else the built-in text ([BuiltinRules]).
//
// # Index and search
//
// [Bank.Search] ranks documents by BM25F over title and path, tags and
// text, weighing a document tagged with its author's role ("user",
// "assistant"); [Bank.SearchByTags] matches tags ignoring case and width.
// What the Bank derives from a bank has one owner per bank, its catalog:
// the paths and their entries (List, ReadContext's listing, tags), the
// folded paths a new path is checked against, the full-text index and what
// ReadContext made of each document. A catalog is keyed by store versions,
// updated in place by the Bank's own writes, and trusted by one rule:
// listed again when the store's change count ([ChangeCounter]) shows
// changes by others, or once it is [IndexMaxAge] old for changes no Store
// counted (a person editing the folder). Read always reads the store.
//
// Two catalog caches are kept beside each bank, as keys List never shows
// and archives never export, so a new process need not read every
// document: ".tagindex.json" (the entries, for banks of 128 documents or
// more) and ".textindex.bin" (the full-text index with the entries, for
// banks of 64 KB of documents or more). Each records the store version of
// every document it describes; a process takes from it only documents
// whose version the store still lists and reads the rest, and ignores one
// that is damaged, too large (64 MB), of another format or analysis. The
// text snapshot is written by a search or [Bank.Warm] once a sixteenth of
// the bank changed since it was last read or written, never by a write. A
// host that wants neither file passes a Store that hides their keys;
// results are the same, only a process's first search or listing is
// slower.
//
// # Testing
//
// The tests run every behaviour over MemStore and over fsstore in a
// temporary directory, plus a copy of an existing bank under
// testdata/legacy-bank. To check a Bank over your own Store, run the
// storetest suite on it (it also checks a ChangeCounter when the store
// offers one); the Bank needs nothing beyond the Store contract.
package memorybank
