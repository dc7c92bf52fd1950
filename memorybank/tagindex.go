package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"time"
)

// The tag index.
//
// Each Bank keeps, per bank (the global bank and each branch bank it has
// touched), an in-memory index of its documents: path → title, documentType,
// tags, lastModified, version, size and the store version it was read at,
// plus tag → paths. It is built lazily, by one List and one Get per
// document, the first time a search or List needs it; afterwards the Bank's
// own writes and deletes update it in place, so writes cost the same however
// large the bank is.
//
// Writes by other Banks and processes sharing the Store are detected with a
// generation marker, the key ".generation" in each bank's directory, which
// every write and delete rewrites after changing a document. A search reads
// only that marker (one small Get); when its store version differs from the
// one seen at the last refresh, the index lists the bank and re-reads only
// the documents whose store version changed. A Bank that rewrites the marker
// with a compare-and-swap from the version it last saw knows nobody else
// wrote in between, and keeps its index without a refresh; when the swap
// fails it writes the marker anyway and refreshes on the next search. The
// marker is written even when the writer's context is cancelled after its
// document was stored (context.WithoutCancel), so a caller giving up at that
// instant does not leave other Banks stale.
//
// Changes that bypass every Bank (a person editing the folder, git pull,
// another tool) do not touch the marker. List and ReadContext therefore
// always reconcile: one Store.List, compared by store version, re-reading
// only changed documents and dropping vanished ones. SearchByTags keeps the
// marker fast path and reconciles the same way when its last reconcile is
// older than Options.IndexMaxAge (by the Bank's Clock), which bounds how
// stale a search can be about such changes.
//
// A writer that dies between its document write and its marker write leaves
// other processes' searches stale until the next write to that bank or
// IndexMaxAge, whichever comes first; the document itself is always read
// fresh by Read, List and ReadContext.
//
// Indexes are kept only for banks that exist: an index that, after a
// refresh, has no documents and no marker is dropped, so searching many
// branch names without banks does not grow the Bank.
//
// A fresh process does not read every document to build an index: each bank
// holds a snapshot of its index, the key ".tagindex.json", with each
// document's index entry and the store version it was derived from. A cold
// index loads it (one Get) and then reconciles as above (one Store.List),
// re-reading only documents whose store version differs from the
// snapshot's and dropping vanished ones, so the snapshot is a cache checked
// by store versions and never decides a result on its own. A corrupt or
// foreign snapshot is ignored as if absent. Writes never touch it (write
// cost must not grow with the bank); a reconcile rewrites it instead, best
// effort (failures are only logged), whenever a reconcile re-read or
// dropped at least snapshotRewriteMin (128) documents, which includes
// building the index of a bank of 128 or more documents without a usable
// snapshot. Smaller banks get no snapshot: reading them costs a few
// milliseconds. So a cold index re-reads fewer than 128 documents plus those
// changed since the snapshot, and the rewrite (proportional to the bank) is
// paid at most once per 128 documents re-read.

const (
	generationMarker = ".generation"
	indexSnapshotKey = ".tagindex.json"
	// indexSnapshotFormat names the snapshot's layout; any other value
	// makes the snapshot ignored.
	indexSnapshotFormat = "agentmemory-tagindex-v1"
	snapshotRewriteMin  = 128
)

type indexEntry struct {
	storeVersion string
	ListEntry
}

type scopeIndex struct {
	mu       sync.Mutex
	prefix   string
	built    bool
	dirty    bool   // the Bank's own update could not be applied: refresh
	genSeen  string // store version of the marker at the last refresh ("" = absent)
	genKnown bool
	lastFull time.Time // Bank clock at the last refresh
	entries  map[string]*indexEntry
	byTag    map[string]map[string]struct{}
}

// indexFor returns the index of a bank, creating it empty.
func (b *Bank) indexFor(prefix string) *scopeIndex {
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := b.indexes[prefix]
	if idx == nil {
		idx = &scopeIndex{prefix: prefix}
		b.indexes[prefix] = idx
	}
	return idx
}

// index returns the up-to-date index of a bank, locked: the caller unlocks
// idx.mu. With full, it always reconciles with a Store.List (List,
// ReadContext); without, it trusts the generation marker unless the last
// reconcile is older than Options.IndexMaxAge (SearchByTags).
func (b *Bank) index(ctx context.Context, prefix string, full bool) (*scopeIndex, error) {
	idx := b.indexFor(prefix)
	idx.mu.Lock()
	gen, err := b.generation(ctx, prefix)
	if err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	if !full && idx.built && !idx.dirty && idx.genKnown && gen == idx.genSeen && !b.aged(idx) {
		return idx, nil
	}
	if !idx.built && len(idx.entries) == 0 {
		b.loadSnapshot(ctx, idx)
	}
	changed, err := b.refresh(ctx, idx)
	if err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	// Without a usable snapshot, every document was read: changed == n.
	if len(idx.entries) > 0 && changed >= snapshotRewriteMin {
		b.saveSnapshot(ctx, idx)
	}
	idx.genSeen, idx.genKnown, idx.built, idx.dirty = gen, true, true, false
	idx.lastFull = b.opts.Clock()
	if gen == "" && len(idx.entries) == 0 {
		// No bank here: do not keep an index for it.
		b.mu.Lock()
		if b.indexes[prefix] == idx {
			delete(b.indexes, prefix)
		}
		b.mu.Unlock()
	}
	return idx, nil
}

// aged reports whether the index's last reconcile is older than
// Options.IndexMaxAge.
func (b *Bank) aged(idx *scopeIndex) bool {
	if b.opts.IndexMaxAge < 0 {
		return true
	}
	return b.opts.Clock().Sub(idx.lastFull) >= b.opts.IndexMaxAge
}

func (b *Bank) generation(ctx context.Context, prefix string) (string, error) {
	obj, err := b.store.Get(ctx, prefix+generationMarker)
	if errors.Is(err, ErrNotFound) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return obj.Version, nil
}

// refresh brings the index in line with the store: one List, and one Get
// per document whose store version changed. It returns how many documents
// it re-read or dropped.
func (b *Bank) refresh(ctx context.Context, idx *scopeIndex) (int, error) {
	if idx.entries == nil {
		idx.entries = map[string]*indexEntry{}
		idx.byTag = map[string]map[string]struct{}{}
	}
	seen := make(map[string]bool, len(idx.entries))
	read := 0
	for obj, err := range b.store.List(ctx, idx.prefix) {
		if err != nil {
			return 0, err
		}
		p := strings.TrimPrefix(obj.Key, idx.prefix)
		if reserved(p) {
			continue
		}
		seen[p] = true
		if e := idx.entries[p]; e != nil && e.storeVersion == obj.Version {
			continue
		}
		full, err := b.store.Get(ctx, obj.Key)
		if errors.Is(err, ErrNotFound) {
			delete(seen, p)
			continue
		}
		if err != nil {
			return 0, err
		}
		read++
		idx.put(p, full.Version, b.entryFromStored(p, full))
	}
	dropped := 0
	for p := range idx.entries {
		if !seen[p] {
			idx.remove(p)
			dropped++
		}
	}
	b.opts.Logger.DebugContext(ctx, "memorybank: index refreshed", "bank", idx.prefix, "documents", len(idx.entries), "read", read, "dropped", dropped)
	return read + dropped, nil
}

// indexSnapshot is the stored form of a bank's index (".tagindex.json").
type indexSnapshot struct {
	Format  string          `json:"format"`
	Bank    string          `json:"bank"`
	Entries []snapshotEntry `json:"entries"`
}

type snapshotEntry struct {
	StoreVersion string `json:"storeVersion"`
	ListEntry
}

// loadSnapshot fills an empty index from the bank's snapshot. A missing,
// unreadable, corrupt or foreign snapshot leaves the index empty: the
// reconcile that follows then reads every document.
func (b *Bank) loadSnapshot(ctx context.Context, idx *scopeIndex) {
	key := idx.prefix + indexSnapshotKey
	obj, err := b.store.Get(ctx, key)
	if err != nil {
		if !errors.Is(err, ErrNotFound) {
			b.opts.Logger.DebugContext(ctx, "memorybank: cannot read the index snapshot; reading every document", "key", key, "err", err)
		}
		return
	}
	snap, reason := decodeSnapshot(obj.Data, idx.prefix)
	if reason != "" {
		b.opts.Logger.WarnContext(ctx, "memorybank: ignoring the index snapshot; reading every document", "key", key, "reason", reason)
		return
	}
	idx.entries = make(map[string]*indexEntry, len(snap.Entries))
	idx.byTag = map[string]map[string]struct{}{}
	for _, e := range snap.Entries {
		idx.put(e.Path, e.StoreVersion, e.ListEntry)
	}
}

// decodeSnapshot parses a snapshot of the bank at prefix, or says why it
// cannot be used.
func decodeSnapshot(data []byte, prefix string) (indexSnapshot, string) {
	var snap indexSnapshot
	if err := json.Unmarshal(data, &snap); err != nil {
		return snap, "not valid JSON: " + err.Error()
	}
	if snap.Format != indexSnapshotFormat {
		return snap, fmt.Sprintf("format is %q, want %q", snap.Format, indexSnapshotFormat)
	}
	if snap.Bank != prefix {
		return snap, fmt.Sprintf("it describes bank %q, not %q", snap.Bank, prefix)
	}
	for i := range snap.Entries {
		e := &snap.Entries[i]
		if e.Path == "" || reserved(e.Path) || e.StoreVersion == "" {
			return snap, "an entry has no path, a reserved path or no store version"
		}
		if e.Tags == nil {
			e.Tags = []string{}
		}
	}
	return snap, ""
}

// saveSnapshot stores the index as the bank's snapshot, unconditionally and
// best effort: the snapshot is only a cache, so a failure is logged.
func (b *Bank) saveSnapshot(ctx context.Context, idx *scopeIndex) {
	ctx = context.WithoutCancel(ctx)
	key := idx.prefix + indexSnapshotKey
	snap := indexSnapshot{Format: indexSnapshotFormat, Bank: idx.prefix, Entries: make([]snapshotEntry, 0, len(idx.entries))}
	for _, e := range idx.entries {
		snap.Entries = append(snap.Entries, snapshotEntry{StoreVersion: e.storeVersion, ListEntry: e.ListEntry})
	}
	slices.SortFunc(snap.Entries, func(a, b snapshotEntry) int { return strings.Compare(a.Path, b.Path) })
	data, err := json.Marshal(snap)
	if err == nil {
		_, err = b.store.Put(ctx, key, data, Condition{})
	}
	if err != nil {
		b.opts.Logger.WarnContext(ctx, "memorybank: cannot store the index snapshot; the next process will read more documents", "key", key, "err", err)
	}
}

// reserved reports whether a path inside a bank is one of the Bank's own
// records (a segment starting with ".").
func reserved(p string) bool {
	return strings.HasPrefix(p, ".") || strings.Contains(p, "/.")
}

func (b *Bank) entryFromStored(p string, obj Object) ListEntry {
	format := formatOf(p)
	e, err := decodeStored(format, p, obj.Data)
	if err != nil {
		// Undecodable documents are listed (so they can be found and
		// repaired) but carry no tags.
		return ListEntry{Path: p, Title: defaultTitle(p), DocumentType: inferDocumentType(p), Tags: []string{}, LastModified: obj.ModTime.UTC(), Version: 1, Size: len(obj.Data)}
	}
	return entryOf(e.document(format, "", "", p, obj.ModTime, nil), len(obj.Data))
}

func entryOf(d *Document, size int) ListEntry {
	return ListEntry{Path: d.Path, Title: d.Title, DocumentType: d.DocumentType, Tags: d.Tags,
		LastModified: d.LastModified, Version: d.Version, Size: size}
}

func (idx *scopeIndex) put(p, storeVersion string, le ListEntry) {
	idx.remove(p)
	idx.entries[p] = &indexEntry{storeVersion: storeVersion, ListEntry: le}
	for _, t := range le.Tags {
		set := idx.byTag[t]
		if set == nil {
			set = map[string]struct{}{}
			idx.byTag[t] = set
		}
		set[p] = struct{}{}
	}
}

func (idx *scopeIndex) remove(p string) {
	e := idx.entries[p]
	if e == nil {
		return
	}
	for _, t := range e.Tags {
		if set := idx.byTag[t]; set != nil {
			delete(set, p)
			if len(set) == 0 {
				delete(idx.byTag, t)
			}
		}
	}
	delete(idx.entries, p)
}

func (idx *scopeIndex) list(prefix string) []ListEntry {
	out := make([]ListEntry, 0, len(idx.entries))
	for p, e := range idx.entries {
		if strings.HasPrefix(p, prefix) {
			le := e.ListEntry
			le.Tags = slices.Clone(le.Tags)
			out = append(out, le)
		}
	}
	slices.SortFunc(out, func(a, b ListEntry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// indexed records the Bank's own write of a document, whose store version
// went from prev ("" for a new document) to cur, then bumps the marker.
func (b *Bank) indexed(ctx context.Context, l loc, prev, cur string, le ListEntry) {
	idx := b.indexFor(l.prefix)
	idx.mu.Lock()
	if idx.built {
		e := idx.entries[l.path]
		if (e == nil && prev == "") || (e != nil && e.storeVersion == prev) {
			idx.put(l.path, cur, le)
		} else {
			idx.dirty = true
		}
	}
	idx.mu.Unlock()
	b.bumpGeneration(ctx, idx)
}

// unindexed records the Bank's own delete of a document at store version prev.
func (b *Bank) unindexed(ctx context.Context, l loc, prev string) {
	idx := b.indexFor(l.prefix)
	idx.mu.Lock()
	if idx.built {
		if e := idx.entries[l.path]; e != nil {
			if e.storeVersion == prev {
				idx.remove(l.path)
			} else {
				idx.dirty = true
			}
		}
	}
	idx.mu.Unlock()
	b.bumpGeneration(ctx, idx)
}

func (b *Bank) bumpGeneration(ctx context.Context, idx *scopeIndex) {
	// The document is stored: signal it even if the caller has given up.
	ctx = context.WithoutCancel(ctx)
	idx.mu.Lock()
	seen, known := idx.genSeen, idx.genKnown
	idx.mu.Unlock()
	key := idx.prefix + generationMarker
	// The content is irrelevant: the store version is the signal.
	data := []byte(`{"generation":"changed on every write; see memorybank tag index"}` + "\n")
	var cond Condition
	if known {
		cond = Condition{IfVersion: seen, IfAbsent: seen == ""}
		if seen == "" {
			cond.IfVersion = ""
		}
	}
	obj, err := b.store.Put(ctx, key, data, cond)
	if errors.Is(err, ErrConflict) {
		// Someone else wrote since our last refresh: refresh next time.
		_, err = b.store.Put(ctx, key, data, Condition{})
		known = false
	}
	if err != nil {
		// The document is written; only other processes' indexes lag.
		b.opts.Logger.WarnContext(ctx, "memorybank: cannot update the generation marker; other processes may not see this write in searches", "key", key, "err", err)
		return
	}
	if known {
		idx.mu.Lock()
		if idx.genKnown && idx.genSeen == seen {
			idx.genSeen = obj.Version
		}
		idx.mu.Unlock()
	}
}
