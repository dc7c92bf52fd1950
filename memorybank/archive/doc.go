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
// MNEMOBANK.sha256. The manifest is JSON Lines: a first line
//
//	{"format":"mnemobank-archive","formatVersion":1,"source":"...","createdAt":"...","counts":{...},"entries":N}
//
// then one line {"name":...,"size":...,"sha256":...} per entry before it,
// in archive order. It comes last because an export streams: the counts and
// checksums are known only at the end. Store versions are not exported:
// they are opaque and differ between stores; a document's version is its
// metadata.version, inside its bytes, so a bank's versions and histories
// move with it and IfVersion keeps meaning what it meant. The tag index
// cache (".tagindex.json" of each bank) is not exported: it is derived and
// keyed by store versions.
//
// Why tar and not JSON Lines: the bytes of every key are kept as they are
// (no escaping or base64 of documents up to a megabyte), the layout is the
// store's own (store/<key> is the fsstore file), and any tar tool inspects
// it.
//
// # Import
//
// [Import] reads the archive three times (from a file, or from a temporary
// copy of a stream, bounded by ImportOptions.MaxArchiveBytes): first it
// verifies all of it (entry names, types, sizes and counts against the
// limits, every checksum, the manifest against the entries) and refuses a
// corrupt or truncated archive, naming the entry, before anything is
// written; then it plans, per document, create, skip (the same bytes are
// there) or conflict; then, with Apply, it writes. A document and its
// history are one unit: a history entry is written only with its document.
// Writes are compare-and-swap Puts (IfAbsent), history first and the
// document last, so an import that is killed leaves no half-written
// document, and running it again skips what was written and finishes. On
// a Store that offers PutBatch (fsstore does), runs of up to 512 keys go
// in one batch, made durable with one sync before the next batch begins,
// instead of two syncs per key.
// Conflicts follow ImportOptions.OnConflict: keep ours (the default), keep
// theirs (written through the Bank as the next version of ours, so our
// version stays in the history and can be reverted to), or keep both (theirs
// is written beside ours, at "<name>.imported<ext>").
package archive
