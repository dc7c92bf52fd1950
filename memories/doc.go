// Package memories keeps what an agent has learned in a memories.md file:
// add, search, list, show and delete memories, render
// them into every prompt, and share one file between git worktrees.
//
// # The file
//
// The format is the plain memories.md format agent tools share, read
// unchanged and written so that their parsers still read it:
//
//	# Memories
//
//	## Always use try-catch
//	- ID: mem-1769385600-9f8e7d6c
//	- Tags: pattern, error-handling
//	- Date: 2026-01-26
//	- Content: Always use try-catch
//	  around adapter calls; continuation lines are indented two spaces.
//
// Parse and Format are pure and lossless: Format(Parse(b)) == b for every b,
// so hand-written notes, other headings and anything else the parser does
// not understand survive every rewrite. ralph-orchestrator's format
// ("## Patterns" sections, "### mem-…" entries, "> " lines, "<!-- tags: … |
// created: … -->") is read too, also mixed with plain entries; the section
// becomes the first tag. A file in ralph's format (its first telling line
// is a ralph section heading or entry; see Document.RalphDialect) stays in
// it: Add writes new memories there as ralph-orchestrator does, into the
// section of their type, with ids of ralph's shape (mem-<unix>-<4 hex>), so
// ralph keeps reading every memory. Its format cannot hold blank lines in
// content or a title, so such a memory is stored (and returned by Add)
// without blank lines, its title being the start of its content; a tag
// with "|" is refused there.
//
// # What this package fixes in the reference tools
//
//   - Ids are stable strings, not heading line numbers: Add writes an
//     "- ID: mem-<unix>-<8 hex>" line; entries without one get an id derived
//     from their text (the same on every run, one hash per entry). An entry
//     that repeats another word for word is a copy of the same memory:
//     listed once, deleted together. Deleting one memory never changes
//     another's id, and never writes ids into the file (except in the rare
//     case where two derived ids collide and one would move).
//   - Writes never truncate in place: Add appends (O(1) through Appender),
//     Delete is a compare-and-swap rewrite (Store.Save) retried on conflict,
//     and a Delete never makes the file bigger.
//   - Titles are cut at 50 runes, never inside a character; content may span
//     lines; dates come from an injectable clock in local time (the reference tool used
//     UTC, so a memory written in Tokyo at 08:00 was dated yesterday).
//   - Injection can be capped in characters (Options.InjectBudget) and in
//     tokens (Options.InjectTokens, counted by Options.Tokens, by default an
//     estimate of the o200k_base tokenizer within 15%).
//   - Search is relevance search (internal/textsearch, the engine meant
//     for the bank too): text is folded with golang.org/x/text (NFKC:
//     composed and decomposed "café", full-width ASCII, half-width
//     katakana, "ﬁ", "①"; full case folding), English words are stemmed,
//     function words of English, Japanese and Chinese questions are dropped
//     and CJK text is cut into bigrams. Any query term may match. The
//     memories holding every word of the query as a substring (what a
//     substring search finds) come first, all of them; then every other
//     memory sharing a term, each group ranked by BM25F (rarer terms count
//     more, short fields more than long ones, and more so when the
//     memories' lengths vary widely; a memory tagged "user" counts double
//     and one tagged "assistant" 0.7, as a chat kept a message a memory
//     is best searched). Manager.Find takes a limit
//     (default 10, at most 100) and returns each hit's score and a snippet
//     of its content, and the number of matches. A Manager keeps the
//     indexed file of its last search: while the file's version is
//     unchanged a search reads it (not even that with a Store that is a
//     Versioner) but does not parse or index it again. A memory the
//     Manager's own Add appends to the file it indexed (checked by a Store
//     that is a CondAppender) is taken into the index, so the next search
//     costs what a search of an unchanged file does; any other change (a
//     Delete, another writer) has the file indexed again. The index keeps the
//     folded text and its distinct tokens with the memories holding each,
//     so a search looks for its words in the tokens, then in the text of
//     the memories that may hold them only, never through the whole file;
//     the tokens cost about 4.4 MB for 40,000 memories (beside 9.7 MB of
//     folded text): 4 bytes a memory for each distinct token it holds.
//   - Near-duplicates: Manager.AddWith reports the existing memories that
//     say nearly the same thing as the new one (Similar: id and score),
//     and with AddOptions.IfNoSimilar refuses to add it (ErrSimilar, a
//     *SimilarError naming them); Manager.Similar only asks.
//   - Manager.InjectionFor (and Inject, which uses it) chooses for the
//     prompt: the memories sharing its words first, by the same ranking,
//     then the newest, whole entries only, then "(N more memories not
//     shown)".
//   - A file that exists but cannot be read (a Store error wrapping
//     ErrUnreadable: a directory, no permission) reads as no memories, with
//     a warning logged, as the reference tool does; Add and Delete report the error.
//
// # Decisions where the format is silent
//
//   - A "## " heading is a memory only if a field line ("- ID:", "- Tags:",
//     "- Date:", "- Content:") follows it before the next heading; otherwise
//     it is text (ralph's section headings, a hand-written "## Notes").
//   - Delete removes exactly the lines the parser read as the entry (and
//     the blank lines after them); hand-written lines after it stay, also
//     ones that look like fields of the other format. If they would then
//     read as fields of the entry before, the heading line stays to keep
//     them apart (see Document.Delete).
//   - List is in file order; Search ranks (see above), with ties newest
//     first (by "- Date:", then later in the file first), and InjectionContent
//     is newest first. An empty query matches all, newest first.
//   - With a budget, the injection holds the newest whole entries that fit
//     and a line "(N older memories not shown: …)"; if not even that fits,
//     it is empty. Without a budget every entry is injected, newest first.
//   - Disabled (Config.Enabled false): List, Search and InjectionContent
//     return nothing, Get returns ErrNotFound, Add and Delete ErrDisabled;
//     the file is never read or written.
//   - The 10 MB warning is logged after an Add whose resulting file is over
//     Options.WarnBytes, using the size Append returns (no extra stat).
//     Options.MaxBytes is a hard limit: the Add that would cross it fails
//     with ErrTooLarge. With Appender it is checked through the optional
//     Sizer before appending (concurrent adders may overshoot by their own
//     entries); stores without Sizer use the exact Load + Save path.
//   - Every input has a limit, checked before any other work and counted
//     in bytes of UTF-8 (not characters): content MaxContentBytes (64 KiB),
//     at most MaxTags (20) tags of MaxTagBytes (64) each, a query of
//     MaxQueryBytes (1 KiB), an id of MaxIDBytes (1 KiB). Past one, the
//     call fails with a *LimitError (ErrLimit, also ErrInvalid) and reads
//     and writes nothing. Error messages quote at most QuotePrefixBytes
//     (100) of an input.
//   - Tags are trimmed, empty and repeated tags dropped; a tag with a comma
//     or line break is rejected (ErrInvalid), since tags are stored
//     comma-separated. Content is trimmed and line endings normalised.
//
// # I/O
//
// The package does no I/O of its own. A Store holds the bytes of one file
// with a version for compare-and-swap; Appender is its optional O(1) append,
// CondAppender the same append made only at a given version.
// Peeker is its optional read of the file's start, used by Add to tell
// the file's format without loading it. MemStore is the in-memory default
// (zero value ready); the file-backed store, with atomic writes,
// cross-process locking, links confined to the store's directory and the
// primary worktree, and LinkWorktree, is in memories/filestore.
//
// # Testing a Store
//
// Run memories/storetest.TestStore against a constructor of empty stores;
// it checks load, create, replace and conflict, that every write changes the
// version, that slices are copied, the Append header and newline rules,
// Size, Peek, and that concurrent Saves and Appends lose nothing. Each
// optional interface's checks run under a subtest named after it (Appender,
// Sizer, Peeker), skipped when the store does not implement it.
//
// The package writes no YAML (the file is Markdown; the CLI prints a table
// or JSON), so no tag needs YAML quoting.
package memories
