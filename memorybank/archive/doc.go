// Package archive exports everything a memory bank holds to one portable
// file and imports it into another bank, on any Store: every key of the
// Store as stored (the documents of every scope, their history entries and
// tombstones, branch markers, skill graphs, which are documents
// skills/<id>.json of the global bank), and the learned memories file with
// its trash.
//
// # Format (version 1)
//
// An archive is a POSIX tar (PAX) file, so standard tools can list and
// unpack it (tar tf bank.tar). Its entries, in this order:
//
//	mnemobank/format.json     {"format":"mnemobank-archive","formatVersion":1}
//	store/<key>               one per Store key, in byte order of the key
//	memories/memories.md      the learned memories file, when present
//	memories/trash.md         its trash, when present
//	mnemobank/manifest.jsonl  the manifest, last
//
// Every entry is a regular file with mode 0644 and modification time 0
// (times live inside the documents; a store's own write times are not
// portable), and carries the SHA-256 of its bytes in the PAX record
// SCHILY.xattr.user.mnemobank.sha256: an extended attribute record, which
// GNU tar and bsdtar list and unpack without a warning (and restore as the
// attribute user.mnemobank.sha256 with --xattrs); archives written before
// carry MNEMOBANK.sha256, which is still read. The manifest is JSON Lines,
// a first line
//
//	{"format":"mnemobank-archive","formatVersion":1,"source":"...","createdAt":"...","counts":{...},"entries":N}
//
// (source says what the archive was made from, such as "directory docs" or
// "postgres namespace team", never an absolute path: an archive is shared,
// and need not say where a person keeps files) then one line
// {"name":...,"size":...,"sha256":...} per entry before it,
// in archive order. It comes last because an export streams: the counts and
// checksums are known only at the end. Store versions are not exported:
// they are opaque and differ between stores; a document's version is its
// metadata.version, inside its bytes, so a bank's versions and histories
// move with it and IfVersion keeps meaning what it meant. The caches of
// each bank (the tag index ".tagindex.json" and the full-text index
// ".textindex.bin") are not exported: they are derived and keyed by store
// versions.
//
// Why tar and not JSON Lines: the bytes of every key are kept as they are
// (no escaping or base64 of documents up to a megabyte), the layout is the
// store's own (store/<key> is the fsstore file), and any tar tool inspects
// it.
//
// # Import
//
// [Import] reads the archive three times (from a file, or from a copy of a
// stream in the caller's [Spool], bounded by ImportOptions.MaxArchiveBytes): first it
// verifies all of it (entry names, types, sizes and counts against the
// limits, every checksum, the manifest against the entries) and every key
// by the target store's rules (a name the store keeps for itself, such as
// fsstore's lock file, or a key that is a file where another key of the
// archive needs a folder: "a.md" beside "a.md/b.md"), and refuses such an
// archive, naming the entry, before anything is written; then it plans,
// per document, create, skip (the same bytes are there), conflict, or
// refuse; then, with Apply, it writes. The plan refuses, whatever the
// policy, a document over the bank's MaxDocumentBytes (the limit of a
// write) and a key that collides with ours (ours holds a file where it
// needs a folder, or the reverse); the apply skips those and writes the
// rest, so it does not fail half-way on them.
//
// A document and its history are one unit: a history entry arrives only
// with its document, or with the tombstone of a deleted one. Entries of a
// history directory that has neither are refused and never written (they
// would become the past of a document created later); the dry run names
// every such directory, and every deleted document's history it would
// write, as items of kind "history". A document's unit is written under
// the lock the Bank's writers of that document take, the document first
// (create-only) and then its history entries, so a writer that creates
// the document meanwhile keeps it and its own history, and one that
// updates it after continues after the archive's versions. A deleted
// document's history is written tombstone first, for the same reason. An
// import that is killed leaves each document whole; running it again skips
// what was written and finishes, its missing history entries included.
// Entries go through the store's Lazy view when it has one, as the Bank
// records a write's entry; runs of a deleted document's entries go in one
// PutBatch on a Store that offers it (fsstore does).
// Conflicts follow ImportOptions.OnConflict: keep ours (the default), keep
// theirs (written through the Bank as the next version of ours, so our
// version stays in the history and can be reverted to), or keep both (theirs
// is written beside ours, at "<name>.imported<ext>").
//
// # I/O
//
// The package reads and writes only what it is given: the Bank's Store,
// the memories' Stores, the archive's io.Reader or io.Writer, and a
// [Spool] for what it must read back (the manifest of an export, a stream
// to import). It opens no file of its own; a host passes a temporary file
// as the Spool, or nil for memory.
package archive
