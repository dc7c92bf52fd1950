// Package memories keeps what an agent has learned in a memories.md file
// (design seed 003): add, search, list, show and delete memories, render
// them into every prompt, and share one file between git worktrees.
//
// # The file
//
// The format is the seed's, read unchanged and written so that the seed's own
// parser still reads it:
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
// created: … -->") is read too, also mixed with the seed's, so its users can
// import their memories; the section becomes the first tag.
//
// # What this package fixes in the seed
//
//   - Ids are stable strings, not heading line numbers: Add writes an
//     "- ID: mem-<unix>-<8 hex>" line; entries without one get an id derived
//     from their text (the same on every run); a rewrite pins such ids into
//     the file so deleting one memory never changes another's id.
//   - Writes never truncate in place: Add appends (O(1) through Appender),
//     Delete is a compare-and-swap rewrite (Store.Save) retried on conflict.
//   - Titles are cut at 50 runes, never inside a character; content may span
//     lines; dates come from an injectable clock in local time (the seed used
//     UTC, so a memory written in Tokyo at 08:00 was dated yesterday).
//   - Injection can be capped (Options.InjectBudget, in characters).
//   - Search folds case and width (full-width ASCII, ideographic space,
//     half-width katakana) and ranks title and tag matches first.
//
// # Decisions where the seed is silent
//
//   - A "## " heading is a memory only if a field line ("- ID:", "- Tags:",
//     "- Date:", "- Content:") follows it before the next heading; otherwise
//     it is text (ralph's section headings, a hand-written "## Notes").
//   - Delete removes the entry's heading, its fields, any line either format
//     would read as a field, and the blank and indented lines after them;
//     text after that stays (see Document.Delete).
//   - List is in file order; Search and the injection are newest first (by
//     "- Date:", then later in the file first). An empty query matches all.
//     A query is split at white space and every term must match.
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
//   - Tags are trimmed, empty and repeated tags dropped; a tag with a comma
//     or line break is rejected (ErrInvalid), since tags are stored
//     comma-separated. Content is trimmed and line endings normalised.
//
// # I/O
//
// The package does no I/O of its own. A Store holds the bytes of one file
// with a version for compare-and-swap; Appender is its optional O(1) append.
// MemStore is the in-memory default (zero value ready); the file-backed
// store, with atomic writes, cross-process locking through symlinks and
// LinkWorktree, is in memories/filestore.
//
// # Testing a Store
//
// Run memories/storetest.TestStore against a constructor of empty stores;
// it checks load, create, replace and conflict, the Append header and
// newline rules, and that concurrent Saves and Appends lose nothing.
package memories
