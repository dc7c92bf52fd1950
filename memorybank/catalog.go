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

// The catalog.
//
// Everything a Bank derives from the store about one bank (the global bank
// or a branch bank) has one owner, the bank's catalog: the document paths
// with the store version of each (enough for ReadContext); for List and
// searches each document's title, documentType, tags, lastModified,
// version and size, and tag -> paths; the folded form of every path, which
// the check of a new path against its spellings reads; the full-text
// index; and what ReadContext made of each document. It is derived from
// the Store, keyed by store versions, and never decides anything on its
// own: drop it and nothing is lost. The directories of the branch banks, for searches of every
// branch, are kept beside the catalogs under the same rule.
//
// One freshness rule (freshness) says whether it is current. The Bank's
// own writes and deletes update it in place through one hook (wrote), so a
// write costs the same however large the bank is and never writes
// anything but the document. Whether anybody else changed the store is
// learnt from the store's change count (ChangeCounter): the Bank counts
// its own successful Puts and Deletes, and when the store's count has
// grown by exactly that much since the catalog was last reconciled, nobody
// else wrote and the catalog is current. Otherwise (another Bank or
// process wrote, or the store has no change count) the catalog is
// reconciled: one Store.List of the bank, compared by store version;
// documents are then read only when their entry is needed (List, search)
// and their store version changed, and the folded paths are derived again
// from the listing when a path is next created. So a warm read costs one
// Changes call, whatever the size of the bank.
//
// Changes that bypass every Store (a person editing the folder, git pull)
// are not counted: they are seen once the last reconcile is older than
// IndexMaxAge (by the Bank's Clock), which bounds how stale List,
// ReadContext, searches and the path check can be about them. Read always
// reads the store.
//
// A fresh process does not read every document to build the entries: each
// bank holds a snapshot of its entries, the key ".tagindex.json", each with
// the store version it was derived from. A cold catalog loads it (one Get)
// and re-reads only documents whose store version differs from the
// snapshot's, so the snapshot is a cache checked by store versions. A
// corrupt or foreign snapshot is ignored as if absent. Writes never touch
// it; reading entries rewrites it, best effort, whenever at least
// snapshotRewriteMin (128) documents were re-read or dropped, so smaller
// banks get no snapshot. The full-text index has a snapshot of its own,
// ".textindex.bin", which carries the entries too and is checked by store
// versions alike: a catalog without a full-text index reads it on its
// first search, and a search that changed a sixteenth of the bank's index
// since writes it.
//
// Catalogs are kept only for banks that exist: a catalog that, after a
// reconcile, has no documents is dropped, so looking up many branch names
// without banks does not grow the Bank.

// The names of the two catalog caches kept beside each bank (see the
// package doc): derived from the documents, rebuilt when absent or unusable,
// never listed as documents nor exported. A host keeping a bank in version
// control ignores them, as it does a build cache: they change with every
// few writes and describe one machine's store versions.
const (
	TagIndexName  = ".tagindex.json"
	TextIndexName = ".textindex.bin"
)

const (
	indexSnapshotKey = TagIndexName
	// indexSnapshotFormat names the snapshot's layout; any other value
	// makes the snapshot ignored.
	indexSnapshotFormat = "mnemobank-tagindex-v1"
	snapshotRewriteMin  = 128
)

type indexEntry struct {
	storeVersion string
	ListEntry
}

type catalog struct {
	mu     sync.Mutex
	prefix string
	fresh  freshness

	paths  map[string]string // document path -> store version
	sorted []string          // sorted paths; nil: rebuild

	entries       map[string]*indexEntry         // may lag paths: see stale
	stale         map[string]struct{}            // paths whose entry is missing or older
	byTag         map[string]map[string]struct{} // folded tag -> paths
	snapshotTried bool

	folds *foldIndex // nil until a path is created: derived from paths
	text  *textIndex // nil until a full-text search needs it
	// textListed: the last listing showed a text snapshot; textTried: it
	// was looked for; textChanged: the documents indexed or removed since
	// the full-text index last matched it (a document rewritten a hundred
	// times is one).
	textListed, textTried bool
	textChanged           map[string]struct{}
	ctx                   ctxCache // has its own lock: read without holding mu
}

// freshness is the rule by which the Bank trusts what it derived from the
// store: it is current when it was listed, no own update failed to apply
// (dirty), the store counted exactly the Bank's own changes since it was
// last checked, and its last listing is younger than IndexMaxAge.
type freshness struct {
	listed   bool        // complete as of seen
	dirty    bool        // an own update could not be applied: list again
	counted  bool        // seen was read (the store is a ChangeCounter)
	seen     ChangeCount // the store's change count at the last check
	own      uint64      // the Bank's own change count then
	lastFull time.Time   // Bank clock at the last listing
}

// observation is what a check of freshness reads: the Bank's own count,
// then the store's.
type observation struct {
	own     uint64
	cur     ChangeCount
	counted bool
}

// observe reads the Bank's own change count, then the store's. own is read
// before cur, so every own change in own is also in cur; an own change
// still in flight makes the counts differ, which only costs a listing.
func (b *Bank) observe(ctx context.Context) (observation, error) {
	o := observation{own: b.own.Load()}
	cc, ok := b.store.(ChangeCounter)
	if !ok {
		return o, nil
	}
	c, err := cc.Changes(ctx)
	if err != nil {
		return o, err
	}
	o.cur, o.counted = c, true
	return o, nil
}

// current reports whether f is current as of o, by clock, which is read
// only when the counts say so (a Clock may tick per call).
func (f *freshness) current(o observation, clock func() time.Time) bool {
	return f.listed && !f.dirty && o.counted && f.counted &&
		o.cur.Epoch == f.seen.Epoch && o.cur.N-f.seen.N == o.own-f.own &&
		clock().Sub(f.lastFull) < IndexMaxAge
}

// checked records that f was found current, or made so, as of o.
func (f *freshness) checked(o observation) { f.seen, f.counted, f.own = o.cur, o.counted, o.own }

// listedAt records a complete listing made at now.
func (f *freshness) listedAt(now time.Time) { f.listed, f.dirty, f.lastFull = true, false, now }

// catalogFor returns the catalog of a bank, creating it empty.
func (b *Bank) catalogFor(prefix string) *catalog {
	b.mu.Lock()
	defer b.mu.Unlock()
	idx := b.catalogs[prefix]
	if idx == nil {
		idx = &catalog{prefix: prefix, paths: map[string]string{}, entries: map[string]*indexEntry{},
			stale: map[string]struct{}{}, byTag: map[string]map[string]struct{}{}}
		b.catalogs[prefix] = idx
	}
	return idx
}

// pathIndex returns the catalog of a bank with its paths current, locked:
// the caller unlocks idx.mu.
func (b *Bank) pathIndex(ctx context.Context, prefix string) (*catalog, error) {
	return b.pathIndexBy(ctx, prefix, b.opts.Clock)
}

// pathIndexBy is pathIndex by clock: a write passes the clock of its own
// time, so that it reads the Bank's Clock once.
func (b *Bank) pathIndexBy(ctx context.Context, prefix string, clock func() time.Time) (*catalog, error) {
	idx := b.catalogFor(prefix)
	idx.mu.Lock()
	o, err := b.observe(ctx)
	if err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	if idx.fresh.current(o, clock) {
		idx.fresh.checked(o)
		return idx, nil
	}
	if err := b.reconcile(ctx, idx, clock); err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	idx.fresh.checked(o)
	if len(idx.paths) == 0 {
		// No bank here: do not keep a catalog for it.
		b.mu.Lock()
		if b.catalogs[prefix] == idx {
			delete(b.catalogs, prefix)
		}
		b.mu.Unlock()
	}
	return idx, nil
}

// reconcile brings the paths in line with the store with one List, marking
// entries whose store version changed as stale; the folded paths are
// derived again when next needed.
func (b *Bank) reconcile(ctx context.Context, idx *catalog, clock func() time.Time) error {
	paths := make(map[string]string, len(idx.paths))
	textListed := false
	for obj, err := range b.store.List(ctx, idx.prefix) {
		if err != nil {
			return err
		}
		p := strings.TrimPrefix(obj.Key, idx.prefix)
		if !reserved(p) {
			paths[p] = obj.Version
		} else if p == textSnapshotKey {
			textListed = true
		}
	}
	idx.paths, idx.sorted, idx.folds, idx.textListed = paths, nil, nil, textListed
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
	idx.fresh.listedAt(clock())
	b.opts.Logger.DebugContext(ctx, "memorybank: catalog reconciled", "bank", idx.prefix, "documents", len(paths), "stale", len(idx.stale), "dropped", dropped)
	if dropped >= snapshotRewriteMin {
		b.saveSnapshot(ctx, idx)
	}
	return nil
}

// entryIndex returns the index of a bank with its paths and entries
// current, locked: the caller unlocks idx.mu. It reads the documents whose
// entries are stale; a cold index first loads the bank's snapshot, so only
// documents changed since it are read.
func (b *Bank) entryIndex(ctx context.Context, prefix string) (*catalog, error) {
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
func (idx *catalog) sortedPaths() []string {
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
func (b *Bank) loadSnapshot(ctx context.Context, idx *catalog) {
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
func (b *Bank) saveSnapshot(ctx context.Context, idx *catalog) {
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
func (idx *catalog) putEntry(p, storeVersion string, le ListEntry) {
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
func (idx *catalog) removeEntry(p string) {
	if idx.entries[p] != nil && idx.text != nil {
		idx.text.forget(p)
		delete(idx.text.pending, p)
		idx.changedText(p)
	}
	idx.dropEntry(p)
}

// changedText records that document p's terms changed since the text
// snapshot.
func (idx *catalog) changedText(p string) {
	if idx.textChanged == nil {
		idx.textChanged = map[string]struct{}{}
	}
	idx.textChanged[p] = struct{}{}
}

// dropEntry removes a document's entry and tags.
func (idx *catalog) dropEntry(p string) {
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
func (idx *catalog) list(prefix string, offset, limit int) (out []ListEntry, total int) {
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

// wrote is the one hook of the Bank's own changes: the catalog of the bank
// at l learns that the document's store version went from prev ("" for a
// new document) to cur, with its entry le, or (le nil) that it was deleted
// at prev; then the change is counted as the Bank's own. A catalog that
// does not hold prev for the path is marked dirty: its next check lists
// the bank.
func (b *Bank) wrote(l loc, prev, cur string, le *ListEntry) {
	idx := b.catalogFor(l.prefix)
	idx.mu.Lock()
	if idx.fresh.listed {
		v, ok := idx.paths[l.path]
		switch {
		case le == nil && ok && v == prev:
			delete(idx.paths, l.path)
			delete(idx.stale, l.path)
			idx.removeEntry(l.path)
			if i, found := slices.BinarySearch(idx.sorted, l.path); found {
				idx.sorted = slices.Delete(idx.sorted, i, i+1)
			}
			if idx.folds != nil {
				idx.folds.remove(l.path)
			}
		case le != nil && v == prev && ok == (prev != ""):
			if !ok {
				if idx.sorted != nil {
					i, _ := slices.BinarySearch(idx.sorted, l.path)
					idx.sorted = slices.Insert(idx.sorted, i, l.path)
				}
				if idx.folds != nil {
					idx.folds.add(l.path)
				}
			}
			idx.paths[l.path] = cur
			idx.putEntry(l.path, cur, *le)
		default:
			idx.fresh.dirty = true
		}
	}
	idx.mu.Unlock()
	b.own.Add(1)
}

// foldTag is the form tags are compared in: the search fold
// (textsearch.Fold), so a tag matches as its word does.
func foldTag(t string) string { return textsearch.Fold(t) }
