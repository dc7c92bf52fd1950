// Package memorybank is a memory bank for AI coding agents: a branch bank
// per git branch and a global bank of documents, kept in any [Store]
// ([MemStore] in memory, fsstore on disk, pgstore in PostgreSQL, or one of
// the host's), with validated writes, RFC 6902 partial updates, a one-call
// [Bank.ReadContext] and tag search. It reads the banks of the memory-bank
// MCP server (its memory_document_v2 format, JSON and Markdown) unchanged.
//
//	bank := memorybank.New(&memorybank.MemStore{}, nil)
//	rc, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "feature/login"})
//	res, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login",
//		Path: "activeContext.json", Patches: jsonpatch.Patch{{Op: "add", Path: "/content/nextSteps/-", Value: json.RawMessage(`"write tests"`)}}})
//
// The package does no I/O of its own: every read and write goes through the
// Store, with compare-and-swap. It picks no transport and does not detect
// the current git branch: callers pass it. Its Go API takes typed input
// (content as a JSON object, text as text). Around it, each in its own
// package: memorybank/tools, the agent tools (definitions, the lenient
// decoding model-written arguments need, error codes) for a host to serve;
// memorybank/plan, the file selection and confirmed write plans of a
// Markdown memory bank, as functions over a Bank; memorybank/memorymd, the
// MEMORY.md format.
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
// segments starting with "." are reserved for such records.
//
// # Documents
//
// A path ending in ".json" holds a memory_document_v2 envelope
// {"schema", "metadata", "content"}; reading also accepts documentType at
// the top level (moved into metadata), missing metadata fields (filled:
// title from the file name, documentType from it for the four core names,
// else "generic", tags [], version 1) and plain JSON objects (taken as
// content). Writes store the canonical form: indented by two spaces,
// metadata keys in a fixed order, unknown fields kept, member order and
// number spellings of the content as given. Every other path is a text
// document: its text after a YAML front matter block holding the same
// metadata, read with a YAML parser (any YAML a person writes: block
// scalars, nested maps, comments; title, id and dates are read as text, so
// "title: 2024" is "2024"); front matter that does not parse, or holds a key
// twice, is [ErrCorrupt], never guessed at.
//
// A text file without front matter (a MEMORY.md, notes another tool wrote)
// stays without: its metadata is what its text says, derived on every read
// and stored nowhere: title from the first "# " heading (else the file
// name), tags from a "tags: #a #b" line among the first lines, documentType
// from the file name, no id or createdAt, lastModified from the store, and
// a version derived from the text (a number from 1 to 2^52 that changes
// whenever the text does, so IfVersion guards it like any version, though
// it does not count writes, and such a file keeps no history). A write to
// such a file changes only the text it asks to change, and its tags line
// when tags change; only metadata the text cannot carry (another title,
// tags without a tags line, extra fields) gives it front matter, and its
// versions then count on from the derived one. New text documents get
// front matter.
//
// # Writes
//
// [Bank.Write] takes content (a JSON object), text (text documents) or
// patches, exactly one (else [ErrInvalidRequest]); patches on a missing
// document are [ErrNotFound]; patches apply to the whole canonical
// envelope, atomically. The Bank owns schema, id (kept; generated when
// absent), path, createdAt (kept), version (+1 per write) and lastModified
// (from Options.Clock); patch operations that write them, move them away,
// or replace an ancestor with different values are [*ForbiddenPatchError].
// Decisions: /metadata/path is maintained too (move a document by writing
// the new path and deleting the old one); tags are deduplicated;
// WriteRequest.Tags, when given, win over tags in content or patches; a
// full write without tags keeps the stored tags; a full write of bare
// content keeps the stored title and documentType; a patch that removes
// /metadata/tags, /metadata/title or /metadata/documentType removes them
// (tags become [], title and documentType the defaults a read fills in),
// never restoring the stored value; a patch that puts documentType at the
// top level is a [*ValidationError] pointing to /metadata/documentType; a
// version stored as a numeric string ("3") counts as that number; versions
// are int64, read exactly however large, and a stored version of 2^63-1 (or
// beyond) cannot be incremented, so a write of it is a [*ValidationError] on
// /metadata/version; a corrupt stored document can be replaced by a full
// write but not patched ([ErrCorrupt]). An object holds each member name
// once: content or a patch result repeating a name, at any depth, is a
// [*ValidationError] naming it, and a stored document repeating one
// (written by another tool) is never handed to the patch engine: patching
// it is refused the same way, and a full write repairs it. Tags are
// non-empty single-line strings (no control characters, no U+2028 or
// U+2029), so a tag cannot add lines to a text. A path that differs from a
// document of the same bank only by letter case or Unicode normalisation,
// or that is a folder of a document or a document inside one, is
// [ErrPathConflict] naming the existing path (they would be one file on
// macOS or Windows); branch directories likewise are [ErrBranchCollision].
// A stored document that already breaks its schema stays writable: a write
// may keep the problems it had ([WriteResult.Problems] lists them) but not
// add one. [Bank.CheckWrite] runs every check of a write without storing
// anything. A Bank without a Store (nil, zero, or New(nil, nil)) returns
// [ErrNotInitialised] from every method.
//
// Every write validates the result against the embedded draft-07 schemas
// ([Schema]): the envelope, then the content by documentType
// (branch_context, active_context, progress, system_patterns, else generic:
// any non-empty object); extra fields are allowed. Failures list every
// problem by JSON Pointer in a [*ValidationError].
//
// A write does each piece of work once: one Store.Get, the stored bytes
// split into their members without decoding the content, the patch or
// content applied, the content decoded once (for validation, and in the
// same pass written in its stored form), one Store.Put. A first write to a
// branch bank also writes its marker. [WriteResult.Document] gives the
// stored document without reading it back.
//
// Concurrency: each write is a read, a recomputation and a compare-and-swap
// on the store version. With IfVersion, a stale metadata.version is a
// [*ConflictError] carrying the current version. Without it, a lost swap
// recomputes the write on the latest version (patches re-applied, full
// content re-stamped), so concurrent agents never lose updates and versions
// increase by exactly one per write. Goroutines of one Bank writing the
// same document queue on a per-key lock (striped, so memory stays bounded)
// instead of racing; writers in other Banks or processes race through the
// store, and the loser retries after a jittered pause growing from 1 ms to
// 50 ms, up to Options.MaxRetries (default 32, about a second of
// contention) before giving up with [ErrConflict]. A first write to a
// branch that fails in the store after validation may leave the branch's
// marker behind (it names that branch, so it is harmless).
//
// # ReadContext
//
// Rules, branch memory and global memory in one call, each section
// included unless its flag is false. Decisions: the language also selects
// the templates of a new branch bank and accepts "zh"; a branch bank with
// no documents is initialised from templates (the global bank is never
// initialised); core files match by name or by the other of .json/.md, so
// Markdown banks keep their core files; the paths of the other documents
// are listed (otherBranchFiles, otherGlobalFiles) so the agent knows what
// it can Read; the budget counts tokens of the JSON of memory files (not
// the rules), core files first in configured order, then paths, with
// truncated set when anything was left out: the JSON encoding/json writes
// for each included memory file entry ("path":{...}) and each listed path;
// section names, rules and punctuation
// around them are not counted. Rules come from the global document
// "rules/<lang>.md" ([RulesPath]) if it exists, else Options.DefaultRules,
// else the built-in text ([BuiltinRules]). ReadContext keeps to a token
// budget (ReadContextRequest.MaxTokens, else Options.ContextTokens, default
// 16,000, counted by Options.TokenCounter, else [EstimateTokens]): core
// files first, then, given a Query or MaxTokens, whole documents, the most
// relevant to the Query (else the most recent) first; what was left out is
// listed by path with its token count, within a tenth of the budget, then
// counted. Without a Query it reads only the documents it returns: the
// other paths come from the index.
//
// # Index, change signal, List and search
//
// [Bank.Search] ranks documents by BM25F over title and path, tags and text
// (Markdown text, or every string and member name of a JSON document's
// content), with English words stemmed lightly and Chinese and Japanese cut
// into character bigrams, after NFKC and case folding (golang.org/x/text);
// its scope "all" searches the global bank and every branch bank (or the
// one given). Tag search ignores case and width.
//
// [Bank.List], [Bank.SearchByTags], Search and ReadContext's listing are served by
// an in-memory index per bank, derived from the Store and keyed by store
// versions, updated in place by the Bank's own writes (so a write costs the
// same at any bank size and writes nothing but its document). Whether
// anybody else wrote is learnt from the store's change count
// ([ChangeCounter], which MemStore, fsstore and pgstore offer): a warm call
// costs one Changes call, whatever the size of the bank. When the count
// shows changes by others, or the store offers no count (the fallback), the
// index reconciles with one Store.List and re-reads
// only the documents whose store version changed, and only when their
// metadata is needed. Changes that bypass every Store (a person editing the
// folder, git pull) are not counted: List, ReadContext and search see them
// once the last reconcile is older than Options.IndexMaxAge (default 2 s,
// by the Bank's Clock; negative: every call reconciles); Read always reads
// the store. A fresh process does not read every document for its first
// search or List: each bank of 128 or more documents holds a snapshot of
// the index (".tagindex.json"), a cache checked against store versions,
// never trusted on its own, rewritten (best effort) only by reads that
// re-read 128 or more documents. Indexes are kept only for banks that
// exist. For SearchByTags, ScopeAll searches the global bank and, when
// Branch is set, that branch.
//
// # History
//
// Every write and delete records an entry in the document's history
// (history.List): the version it produced, the time, the request's Actor
// and Reason, and the change as an RFC 6902 patch with its inverse. An
// Actor is one line of printable UTF-8 of at most MaxActorBytes (256)
// bytes: one with a control character or line separator, or that is not
// UTF-8, is refused before any I/O (ErrInvalidRequest; see ValidateActor).
// history.ReadVersion rebuilds a retained version, history.Diff gives the
// patch between two, history.Revert writes an old version as the next one
// (also restoring a deleted document). A delete consumes a version, so a
// re-created document continues after it and a writer holding a version of
// the old document cannot overwrite the new one. Entries live in the same
// Store under ".history/", outside every bank, written after the document
// (one extra Put per write): history never shows a write that did not
// happen nor a version twice; a writer that stops between the two leaves a
// gap, and versions before a gap cannot be rebuilt (ErrVersionUnavailable).
// A reader that meets an entry not yet recorded by a concurrent writer
// waits for it (about 0.1 s for another process) or retries on the new
// state, so a retained version is never reported unavailable; a document
// that keeps changing meanwhile makes the read fail with ErrConflict.
// Retention: Options.HistoryVersions (default 100) versions per document,
// each entry at most Options.HistoryEntryBytes (default 256 KiB; a larger
// change is listed without its patches).
//
// History keys are ".history/<bank prefix><SHA-256 of the path>/" plus
// "<version>.json" or "deleted.json": at most 374 bytes whatever the path,
// in a namespace no document path can reach, so every path a bank accepts
// has a history, on every Store, whatever was written and deleted before
// it; each write checks them before writing the document. A path is
// accepted when it passes [ValidatePath] and its key (bank prefix plus
// path) is at most [MaxKeyLen] bytes: 1005 bytes in the global bank, less
// in a branch bank by the length of its directory; a longer one is
// [ErrInvalidPath]. Pre-release histories kept under ".history/<document
// key>/" are no longer read.
//
// # Testing
//
// The tests run every behaviour over MemStore and over fsstore in a
// temporary directory, plus a copy of an existing bank under
// testdata/legacy-bank. To check a Bank over your own Store, run the
// storetest suite on it (it also checks a ChangeCounter when the store
// offers one); the Bank needs nothing beyond the Store contract.
package memorybank
