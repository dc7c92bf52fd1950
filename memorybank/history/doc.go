// Package history keeps the history of each document of a memorybank.Bank:
// a Journal records it, given to the Bank as memorybank.Options.History,
// and List its entries, ReadVersion a retained version as Read returned it
// then, Diff two versions, Revert to one (as a new write through Write
// with IfVersion). The readers are functions over a Bank, as plans are
// (memorybank/plan).
//
//	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
//	entries, err := history.List(ctx, bank, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md"})
//
// A Bank without a journal records no history; the readers still read
// what a journal recorded before (or another process records) in the
// store, since they read the store, not the journal.
//
// What is recorded, and where: with a Journal, every successful Write and
// Delete records one entry (memorybank.HistoryEntry: the version, time, actor, reason,
// the change as an RFC 6902 patch and its inverse) under the reserved key
// ".history/<bank prefix><SHA-256 of the path>/<version>.json" of the same
// Store, outside every bank's prefix, so List, ReadContext and searches
// never see them and they move with the Store. A delete consumes a
// version too (versions of a path never repeat) and leaves a tombstone.
// Options.Versions bounds how many versions are kept and Options.EntryBytes
// the size of one entry (a larger change is kept without its patches, and
// versions before it cannot be rebuilt).
//
// A version is rebuilt by undoing entries from the current document back
// to it. Writers store the document before its entry, so a reader can see
// a version whose entry is not there yet: a missing entry is waited for
// (this Bank's writers), looked for again for about 0.1 s (other
// processes), and the rebuild starts over when the document changed
// meanwhile, up to memorybank.Options.MaxRetries times, then ErrConflict.
// A version that was not retained is memorybank.ErrVersionUnavailable.
//
// The Journal writes an entry when the Bank calls it, under the
// document's lock, after the document's write, through the store's Lazy
// view (memorybank.LazyWriter) when it has one: a write is durable when
// its document is, and its entry rides on it. The Journal prunes the
// entries that fall out of retention; the readers never write but through
// the Bank.
//
// Details of what is recorded: an Actor is one line of printable
// UTF-8 of at most memorybank.MaxActorBytes (256) bytes, refused before any
// I/O otherwise (memorybank.ValidateActor). Entries are written after the
// document (one extra Put per write): history never shows a write that did
// not happen nor a version twice; a writer that stops between the two
// leaves a gap. A delete consumes a version, so a writer holding a version
// of the old document cannot overwrite a re-created one. History keys are
// at most 374 bytes whatever the path, in a namespace no document path can
// reach, so every path a bank accepts has a history on every Store; each
// write checks them before writing the document. Pre-release histories
// kept under ".history/<document key>/" are no longer read.
package history
