package memorybank

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// The text index snapshot.
//
// A fresh process's first search of a bank would read, parse and analyse
// every document of it. So each bank whose documents hold at least
// textSnapshotMinBytes keeps, beside its documents, the key
// ".textindex.bin": its full-text index (every term with its postings, the
// documents' field lengths) and the catalog entry of each document, each
// with the store version it was derived from. It is derived data, like the
// tag snapshot: never authoritative, never the only copy of anything, not
// listed as a document and not exported.
//
// Read: the first search of a bank in a process (a catalog without a
// full-text index) gets it once, when the bank's listing shows it, and
// takes from it only the documents whose store version is the one the
// listing gives now; the others are read from the store and indexed as
// without a snapshot, so the index describes exactly what the store holds. It is ignored, and the documents
// read instead, when it is larger than maxTextSnapshotBytes, its checksum
// (CRC-32C of all its bytes) does not match, its format line is not
// textSnapshotFormat, it describes another bank, or its index was written
// with other scoring parameters or another analysis (textsearch's
// fingerprint): a new version of the analyzer rebuilds, never misreads.
//
// Written: after a search or Warm brought the index up to date, when the
// documents indexed or removed since the snapshot was last read or written
// are at least a sixteenth of the bank (at least one; a document rewritten
// again and again counts once), so rewriting costs a bounded amount per
// changed document whatever the bank's size; never by a write, so writes
// cost what they did. The write is best effort and
// not durable on its own (the store's Lazy view when it has one): the
// checksum makes a torn snapshot an ignored one. A snapshot that would be
// larger than maxTextSnapshotBytes is not written.
//
// Opting out: a host that wants no such file gives the Bank a Store that
// reports the key absent and drops its writes; searches are then exactly
// as without it, only slower on a process's first.

const (
	textSnapshotKey = TextIndexName
	// textSnapshotFormat begins the snapshot; any other beginning makes it
	// ignored. Change it with the layout.
	textSnapshotFormat = "mnemobank-textindex-v1\n"
	// textSnapshotMinBytes: a bank whose documents hold fewer bytes is
	// indexed from them in about a millisecond; it gets no snapshot.
	textSnapshotMinBytes = 64 << 10
)

// maxTextSnapshotBytes bounds a snapshot read or written (it is about a
// third of the documents' size: 17 MB for 10,000 documents of 5 KB, 230 KB
// for 50 of 10 KB); a variable for tests.
var maxTextSnapshotBytes = 64 << 20

var crcTable = crc32.MakeTable(crc32.Castagnoli)

// errTextSnapshot: the snapshot cannot be used (the reason follows).
var errTextSnapshot = errors.New("memorybank: unusable text index snapshot")

// snapshotDoc is one document of a text snapshot.
type snapshotDoc struct {
	storeVersion string
	entry        ListEntry
}

// loadTextSnapshot gives a catalog without a full-text index the one its
// bank's snapshot holds, for the documents whose store version is the
// listed one, with their entries; it reports whether it did. idx.mu is
// held, idx.text is nil and the paths are current.
func (b *Bank) loadTextSnapshot(ctx context.Context, idx *catalog) bool {
	if idx.textTried || !idx.textListed || len(idx.paths) == 0 {
		return false
	}
	idx.textTried = true
	key := idx.prefix + textSnapshotKey
	obj, err := b.store.Get(ctx, key)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			b.opts.Logger.DebugContext(ctx, "memorybank: cannot read the text index snapshot; indexing every document", "key", key, "err", err)
		}
		return false
	}
	docs, ix, keep, err := decodeTextSnapshot(obj.Data, idx.prefix, idx.paths)
	if err != nil {
		b.opts.Logger.WarnContext(ctx, "memorybank: ignoring the text index snapshot; indexing every document", "key", key, "err", err)
		return false
	}
	idx.textChanged = nil
	for i, d := range docs {
		if !keep[i] {
			if _, ok := idx.paths[d.entry.Path]; !ok {
				idx.changedText(d.entry.Path) // gone since
			}
			continue
		}
		if e := idx.entries[d.entry.Path]; e == nil || e.storeVersion != d.storeVersion {
			idx.putEntry(d.entry.Path, d.storeVersion, d.entry)
		}
	}
	idx.text = &textIndex{ix: ix, pending: map[string]struct{}{}}
	for p := range idx.entries {
		if !ix.Has(p) {
			idx.text.pending[p] = struct{}{}
		}
	}
	b.opts.Logger.DebugContext(ctx, "memorybank: text index snapshot loaded", "bank", idx.prefix, "documents", ix.Len(), "of", len(docs), "listed", len(idx.paths))
	return true
}

// decodeTextSnapshot reads a snapshot of the bank at prefix, marking the
// documents whose store version is the one paths gives (keep), whose
// index it reads.
func decodeTextSnapshot(data []byte, prefix string, paths map[string]string) ([]snapshotDoc, *textsearch.Index[string], []bool, error) {
	if len(data) > maxTextSnapshotBytes {
		return nil, nil, nil, fmt.Errorf("%w: it is %d bytes, more than the %d allowed", errTextSnapshot, len(data), maxTextSnapshotBytes)
	}
	if len(data) < len(textSnapshotFormat)+4 || string(data[:len(textSnapshotFormat)]) != textSnapshotFormat {
		return nil, nil, nil, fmt.Errorf("%w: it does not begin with the format line %q", errTextSnapshot, textSnapshotFormat[:len(textSnapshotFormat)-1])
	}
	body, sum := data[:len(data)-4], binary.LittleEndian.Uint32(data[len(data)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return nil, nil, nil, fmt.Errorf("%w: its checksum does not match (damaged or cut short)", errTextSnapshot)
	}
	r := snapReader{data: body[len(textSnapshotFormat):]}
	if bank := r.str(); r.err == nil && bank != prefix {
		return nil, nil, nil, fmt.Errorf("%w: it describes bank %q, not %q", errTextSnapshot, bank, prefix)
	}
	n := r.uint(uint64(len(r.data) / 8))
	docs := make([]snapshotDoc, 0, n)
	keys := make([]string, 0, n)
	keep := make([]bool, 0, n)
	for range n {
		if r.err != nil {
			break
		}
		var d snapshotDoc
		d.entry.Path, d.storeVersion = r.str(), r.str()
		d.entry.Title, d.entry.DocumentType = r.str(), r.str()
		nt := r.uint(uint64(len(r.data)))
		d.entry.Tags = make([]string, 0, min(nt, 64))
		for range nt {
			if r.err != nil {
				break
			}
			d.entry.Tags = append(d.entry.Tags, r.str())
		}
		if err := d.entry.LastModified.UnmarshalBinary(r.bytes(int(r.uint(64)))); err != nil && r.err == nil {
			r.err = fmt.Errorf("%w: a document's time: %v", errTextSnapshot, err)
		}
		d.entry.Version = r.int()
		d.entry.Size = int(r.int())
		if r.err == nil && (d.entry.Path == "" || reserved(d.entry.Path) || d.storeVersion == "") {
			r.err = fmt.Errorf("%w: a document has no path, a reserved path or no store version", errTextSnapshot)
		}
		docs = append(docs, d)
		keys = append(keys, d.entry.Path)
		v, ok := paths[d.entry.Path]
		keep = append(keep, ok && v == d.storeVersion)
	}
	ixData := r.bytes(int(r.uint(uint64(len(r.data)))))
	if r.err == nil && len(r.data) != 0 {
		r.err = fmt.Errorf("%w: %d bytes left over", errTextSnapshot, len(r.data))
	}
	if r.err != nil {
		return nil, nil, nil, r.err
	}
	ix, err := textsearch.DecodeIndex(ixData, textsearch.DocumentParams, textsearch.Analyzer{}, keys, keep)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%w: %w", errTextSnapshot, err)
	}
	return docs, ix, keep, nil
}

// snapReader reads the snapshot's fields, recording its first error.
type snapReader struct {
	data []byte
	err  error
}

func (r *snapReader) uint(limit uint64) uint64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Uvarint(r.data)
	if n <= 0 || v > limit {
		r.err = fmt.Errorf("%w: it ends early or holds a bad number", errTextSnapshot)
		return 0
	}
	r.data = r.data[n:]
	return v
}

func (r *snapReader) int() int64 {
	if r.err != nil {
		return 0
	}
	v, n := binary.Varint(r.data)
	if n <= 0 {
		r.err = fmt.Errorf("%w: it ends early or holds a bad number", errTextSnapshot)
		return 0
	}
	r.data = r.data[n:]
	return v
}

func (r *snapReader) bytes(n int) []byte {
	if r.err != nil || n > len(r.data) {
		if r.err == nil {
			r.err = fmt.Errorf("%w: it ends early", errTextSnapshot)
		}
		return nil
	}
	b := r.data[:n]
	r.data = r.data[n:]
	return b
}

func (r *snapReader) str() string { return string(r.bytes(int(r.uint(uint64(len(r.data)))))) }

// maybeSaveTextSnapshot writes the bank's snapshot when enough changed
// since it was last read or written (see the section comment). idx.mu is
// held and the index is current.
func (b *Bank) maybeSaveTextSnapshot(ctx context.Context, idx *catalog) {
	if idx.text == nil || len(idx.textChanged) == 0 || len(idx.textChanged)*16 < len(idx.entries) {
		return
	}
	total := 0
	for _, e := range idx.entries {
		total += e.Size
	}
	if total < textSnapshotMinBytes {
		return
	}
	data := encodeTextSnapshot(idx)
	var err error
	if len(data) > maxTextSnapshotBytes {
		err = fmt.Errorf("it would be %d bytes, more than the %d allowed", len(data), maxTextSnapshotBytes)
	}
	key := idx.prefix + textSnapshotKey
	if err == nil {
		// Not durable on its own: a torn snapshot fails its checksum.
		_, err = b.journalStore.Put(context.WithoutCancel(ctx), key, data, Condition{})
	}
	if err != nil {
		b.opts.Logger.WarnContext(ctx, "memorybank: cannot store the text index snapshot; the next process indexes more documents", "key", key, "err", err)
		return
	}
	idx.textChanged, idx.textListed = nil, true
}

// encodeTextSnapshot is the snapshot of idx's documents whose terms in the
// index come from their entry's store version (not pending). A document
// whose time has no binary form (an offset in seconds) is left out: the
// next process reads it.
func encodeTextSnapshot(idx *catalog) []byte {
	times := make(map[string][]byte, len(idx.entries))
	ixData, keys := idx.text.ix.AppendBinary(nil, func(p string) bool {
		e := idx.entries[p]
		if _, pending := idx.text.pending[p]; pending || e == nil {
			return false
		}
		tb, err := e.LastModified.MarshalBinary()
		times[p] = tb
		return err == nil
	})
	b := make([]byte, 0, 64*len(keys)+len(ixData)+64)
	b = append(b, textSnapshotFormat...)
	str := func(s string) { b = append(binary.AppendUvarint(b, uint64(len(s))), s...) }
	str(idx.prefix)
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for _, p := range keys {
		e := idx.entries[p]
		str(p)
		str(e.storeVersion)
		str(e.Title)
		str(e.DocumentType)
		b = binary.AppendUvarint(b, uint64(len(e.Tags)))
		for _, t := range e.Tags {
			str(t)
		}
		b = binary.AppendUvarint(b, uint64(len(times[p])))
		b = append(b, times[p]...)
		b = binary.AppendVarint(b, e.Version)
		b = binary.AppendVarint(b, int64(e.Size))
	}
	b = binary.AppendUvarint(b, uint64(len(ixData)))
	b = append(b, ixData...)
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, crcTable))
}
