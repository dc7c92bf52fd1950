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

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// The index.
//
// Each Bank keeps, per bank (the global bank and each branch bank it has
// touched), an in-memory index: the document paths with the store version
// of each (enough for ReadContext), and for List and searches each
// document's title, documentType, tags, lastModified, version and size, plus
// tag → paths. The index is derived from the Store, keyed by store versions,
// and never decides anything on its own: delete it and nothing is lost.
//
// The Bank's own writes and deletes update it in place, so a write costs
// the same however large the bank is and never writes anything but the
// document. Whether anybody else changed the store is learnt from the
// store's change count (ChangeCounter): the Bank counts its own successful
// Puts and Deletes, and when the store's count has grown by exactly that
// much since the index was last reconciled, nobody else wrote and the index
// is current. Otherwise (another Bank or process wrote, or the store has no
// change count) the index is reconciled: one Store.List of the bank,
// compared by store version; documents are then read only when their entry
// is needed (List, search) and their store version changed. So a warm read
// costs one Changes call, whatever the size of the bank.
//
// Changes that bypass every Store (a person editing the folder, git pull)
// are not counted: they are seen when the last reconcile is older than
// Options.IndexMaxAge (by the Bank's Clock), which bounds how stale List,
// ReadContext and search can be about them. Read always reads the store.
//
// A fresh process does not read every document to build the entries: each
// bank holds a snapshot of its entries, the key ".tagindex.json", each with
// the store version it was derived from. A cold index loads it (one Get) and
// re-reads only documents whose store version differs from the snapshot's,
// so the snapshot is a cache checked by store versions. A corrupt or foreign
// snapshot is ignored as if absent. Writes never touch it; reading entries
// rewrites it, best effort, whenever at least snapshotRewriteMin (128)
// documents were re-read or dropped, so smaller banks get no snapshot.
//
// Indexes are kept only for banks that exist: an index that, after a
// reconcile, has no documents is dropped, so looking up many branch names
// without banks does not grow the Bank.

const (
	indexSnapshotKey = ".tagindex.json"
	// indexSnapshotFormat names the snapshot's layout; any other value
	// makes the snapshot ignored.
	indexSnapshotFormat = "mnemobank-tagindex-v1"
	snapshotRewriteMin  = 128
)

type indexEntry struct {
	storeVersion string
	ListEntry
}

type bankIndex struct {
	mu     sync.Mutex
	prefix string

	listed   bool        // paths is complete as of seen
	dirty    bool        // the Bank's own update could not be applied: reconcile
	seen     ChangeCount // store's change count at the last check
	counted  bool        // seen was read (the store is a ChangeCounter)
	own      uint64      // the Bank's own change count at the last check
	lastFull time.Time   // Bank clock at the last reconcile

	paths  map[string]string // document path -> store version
	sorted []string          // sorted paths; nil: rebuild

	entries       map[string]*indexEntry         // may lag paths: see stale
	stale         map[string]struct{}            // paths whose entry is missing or older
	byTag         map[string]map[string]struct{} // folded tag -> paths
	snapshotTried bool

	text *textIndex // nil until a full-text search needs it
}

// indexFor returns the index of a bank, creating it empty.
func (b *Bank) indexFor(prefix string) *bankIndex {
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := b.indexes[prefix]
	if idx == nil {
		idx = &bankIndex{prefix: prefix, paths: map[string]string{}, entries: map[string]*indexEntry{},
			stale: map[string]struct{}{}, byTag: map[string]map[string]struct{}{}}
		b.indexes[prefix] = idx
	}
	return idx
}

// pathIndex returns the index of a bank with its paths current, locked: the
// caller unlocks idx.mu.
func (b *Bank) pathIndex(ctx context.Context, prefix string) (*bankIndex, error) {
	idx := b.indexFor(prefix)
	idx.mu.Lock()
	own := b.own.Load() // before the store's count: see current
	cur, counted, err := b.changes(ctx)
	if err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	if idx.current(counted, cur, own) && !b.aged(idx) {
		idx.seen, idx.own = cur, own
		return idx, nil
	}
	if err := b.reconcile(ctx, idx); err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	idx.seen, idx.counted, idx.own = cur, counted, own
	if len(idx.paths) == 0 {
		// No bank here: do not keep an index for it.
		b.mu.Lock()
		if b.indexes[prefix] == idx {
			delete(b.indexes, prefix)
		}
		b.mu.Unlock()
	}
	return idx, nil
}

// current reports whether nobody but this Bank changed the store since the
// index was last checked: the store counted exactly the Bank's own changes.
// own is read before cur, so every own change in own is also in cur; an own
// change still in flight makes the counts differ, which only costs a
// reconcile.
func (idx *bankIndex) current(counted bool, cur ChangeCount, own uint64) bool {
	return idx.listed && !idx.dirty && counted && idx.counted &&
		cur.Epoch == idx.seen.Epoch && cur.N-idx.seen.N == own-idx.own
}

// changes reads the store's change count, if it keeps one.
func (b *Bank) changes(ctx context.Context) (ChangeCount, bool, error) {
	cc, ok := b.store.(ChangeCounter)
	if !ok {
		return ChangeCount{}, false, nil
	}
	c, err := cc.Changes(ctx)
	if err != nil {
		return ChangeCount{}, false, err
	}
	return c, true, nil
}

// aged reports whether the index's last reconcile is older than
// Options.IndexMaxAge.
func (b *Bank) aged(idx *bankIndex) bool {
	if b.opts.IndexMaxAge < 0 {
		return true
	}
	return b.opts.Clock().Sub(idx.lastFull) >= b.opts.IndexMaxAge
}

// reconcile brings the paths in line with the store with one List, marking
// entries whose store version changed as stale.
func (b *Bank) reconcile(ctx context.Context, idx *bankIndex) error {
	paths := make(map[string]string, len(idx.paths))
	for obj, err := range b.store.List(ctx, idx.prefix) {
		if err != nil {
			return err
		}
		p := strings.TrimPrefix(obj.Key, idx.prefix)
		if !reserved(p) {
			paths[p] = obj.Version
		}
	}
	idx.paths, idx.sorted = paths, nil
	for p, v := range paths {
		if e := idx.entries[p]; e == nil || e.storeVersion != v {
			idx.stale[p] = struct{}{}
		}
	}
	for p := range idx.stale {
		if _, ok := paths[p]; !ok {
			delete(idx.stale, p)
		}
	}
	dropped := 0
	for p := range idx.entries {
		if _, ok := paths[p]; !ok {
			idx.removeEntry(p)
			dropped++
		}
	}
	idx.listed, idx.dirty = true, false
	idx.lastFull = b.opts.Clock()
	b.opts.Logger.DebugContext(ctx, "memorybank: index reconciled", "bank", idx.prefix, "documents", len(paths), "stale", len(idx.stale), "dropped", dropped)
	if dropped >= snapshotRewriteMin {
		b.saveSnapshot(ctx, idx)
	}
	return nil
}

// entryIndex returns the index of a bank with its paths and entries
// current, locked: the caller unlocks idx.mu. It reads the documents whose
// entries are stale; a cold index first loads the bank's snapshot, so only
// documents changed since it are read.
func (b *Bank) entryIndex(ctx context.Context, prefix string) (*bankIndex, error) {
	idx, err := b.pathIndex(ctx, prefix)
	if err != nil {
		return nil, err
	}
	if !idx.snapshotTried && len(idx.entries) == 0 && len(idx.stale) >= snapshotRewriteMin {
		idx.snapshotTried = true
		b.loadSnapshot(ctx, idx)
	}
	read, err := b.readEntries(ctx, idx)
	if err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	if read >= snapshotRewriteMin {
		b.saveSnapshot(ctx, idx)
	}
	return idx, nil
}

// sortedPaths returns the index's paths in byte order (shared: do not
// modify).
func (idx *bankIndex) sortedPaths() []string {
	if idx.sorted == nil {
		idx.sorted = make([]string, 0, len(idx.paths))
		for p := range idx.paths {
			idx.sorted = append(idx.sorted, p)
		}
		slices.Sort(idx.sorted)
	}
	return idx.sorted
}

// indexSnapshot is the stored form of a bank's entries (".tagindex.json").
type indexSnapshot struct {
	Format  string          `json:"format"`
	Bank    string          `json:"bank"`
	Entries []snapshotEntry `json:"entries"`
}

type snapshotEntry struct {
	StoreVersion string `json:"storeVersion"`
	ListEntry
}

// loadSnapshot fills an empty index's entries from the bank's snapshot, for
// the paths it has (entries whose store version differs stay stale). A
// missing, unreadable, corrupt or foreign snapshot leaves them empty: every
// document is then read when entries are needed.
func (b *Bank) loadSnapshot(ctx context.Context, idx *bankIndex) {
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
	for _, e := range snap.Entries {
		if _, ok := idx.paths[e.Path]; ok {
			idx.putEntry(e.Path, e.StoreVersion, e.ListEntry)
		}
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

// saveSnapshot stores the index's entries as the bank's snapshot,
// unconditionally and best effort: the snapshot is only a cache, so a
// failure is logged.
func (b *Bank) saveSnapshot(ctx context.Context, idx *bankIndex) {
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
		return
	}
	b.own.Add(1)
}

// reserved reports whether a path inside a bank is one of the Bank's own
// records (a segment starting with ".").
func reserved(p string) bool {
	return strings.HasPrefix(p, ".") || strings.Contains(p, "/.")
}

// putEntry records a document's entry; its text, when the bank has a
// full-text index, is marked pending (what the index holds of it stays
// until the next search reads it again).
func (idx *bankIndex) putEntry(p, storeVersion string, le ListEntry) {
	idx.dropEntry(p)
	idx.entries[p] = &indexEntry{storeVersion: storeVersion, ListEntry: le}
	if idx.paths[p] == storeVersion {
		delete(idx.stale, p)
	}
	if idx.text != nil {
		idx.text.pending[p] = struct{}{} // its terms come from the next read
	}
	for _, t := range le.Tags {
		t = foldTag(t)
		set := idx.byTag[t]
		if set == nil {
			set = map[string]struct{}{}
			idx.byTag[t] = set
		}
		set[p] = struct{}{}
	}
}

// removeEntry removes a document from the index.
func (idx *bankIndex) removeEntry(p string) {
	if idx.entries[p] != nil && idx.text != nil {
		idx.text.forget(p)
		delete(idx.text.pending, p)
	}
	idx.dropEntry(p)
}

// dropEntry removes a document's entry and tags.
func (idx *bankIndex) dropEntry(p string) {
	e := idx.entries[p]
	if e == nil {
		return
	}
	for _, t := range e.Tags {
		t = foldTag(t)
		if set := idx.byTag[t]; set != nil {
			delete(set, p)
			if len(set) == 0 {
				delete(idx.byTag, t)
			}
		}
	}
	delete(idx.entries, p)
}

// list returns the entries whose path starts with prefix, sorted by path,
// skipping offset of them and keeping at most limit (0: all), and how many
// there are in all.
func (idx *bankIndex) list(prefix string, offset, limit int) (out []ListEntry, total int) {
	out = []ListEntry{}
	sorted := idx.sortedPaths()
	i, _ := slices.BinarySearch(sorted, prefix)
	for _, p := range sorted[i:] {
		if !strings.HasPrefix(p, prefix) {
			break
		}
		e := idx.entries[p]
		if e == nil {
			continue
		}
		total++
		if total <= offset || limit > 0 && len(out) >= limit {
			continue
		}
		le := e.ListEntry
		le.Tags = slices.Clone(le.Tags)
		out = append(out, le)
	}
	return out, total
}

// indexed records the Bank's own write of a document, whose store version
// went from prev ("" for a new document) to cur, then counts the change.
func (b *Bank) indexed(l loc, prev, cur string, le ListEntry) {
	idx := b.indexFor(l.prefix)
	idx.mu.Lock()
	if idx.listed {
		if v, ok := idx.paths[l.path]; v == prev && (ok == (prev != "")) {
			if !ok && idx.sorted != nil {
				i, _ := slices.BinarySearch(idx.sorted, l.path)
				idx.sorted = slices.Insert(idx.sorted, i, l.path)
			}
			idx.paths[l.path] = cur
			idx.putEntry(l.path, cur, le)
		} else {
			idx.dirty = true
		}
	}
	idx.mu.Unlock()
	b.own.Add(1)
}

// unindexed records the Bank's own delete of a document at store version
// prev, then counts the change.
func (b *Bank) unindexed(l loc, prev string) {
	idx := b.indexFor(l.prefix)
	idx.mu.Lock()
	if idx.listed {
		if v, ok := idx.paths[l.path]; ok && v == prev {
			delete(idx.paths, l.path)
			delete(idx.stale, l.path)
			idx.removeEntry(l.path)
			if i, found := slices.BinarySearch(idx.sorted, l.path); found {
				idx.sorted = slices.Delete(idx.sorted, i, i+1)
			}
		} else {
			idx.dirty = true
		}
	}
	idx.mu.Unlock()
	b.own.Add(1)
}

// foldTag is the form tags are compared in: the search fold
// (textsearch.Fold), so a tag matches as its word does.
func foldTag(t string) string { return textsearch.Fold(t) }
