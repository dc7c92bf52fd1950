// Package history reads the history a memorybank.Bank records of each
// document: List its entries, ReadVersion a retained version as Read
// returned it then, Diff two versions, Revert to one (as a new write).
// They are functions over a Bank, as plans are (memorybank/plan).
//
// What is recorded, and where: every successful Write and Delete records
// one entry (memorybank.HistoryEntry: the version, time, actor, reason,
// the change as an RFC 6902 patch and its inverse) under the reserved key
// ".history/<bank prefix><SHA-256 of the path>/<version>.json" of the same
// Store, outside every bank's prefix, so List, ReadContext and searches
// never see them and they move with the Store. A delete consumes a
// version too (versions of a path never repeat) and leaves a tombstone.
// Options.HistoryVersions bounds how many versions are kept and
// Options.HistoryEntryBytes the size of one entry (a larger change is kept
// without its patches, and versions before it cannot be rebuilt).
//
// A version is rebuilt by undoing entries from the current document back
// to it. Writers store the document before its entry, so a reader can see
// a version whose entry is not there yet: a missing entry is waited for
// (this Bank's writers), looked for again for about 0.1 s (other
// processes), and the rebuild starts over when the document changed
// meanwhile, up to Options.MaxRetries times, then ErrConflict. A version
// that was not retained is memorybank.ErrVersionUnavailable.
//
// This package does not write entries (the Bank does, in Write and
// Delete) and does not prune them.
//
// Details the Bank keeps when it records: an Actor is one line of printable
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
