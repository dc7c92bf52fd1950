package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/backoff"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
	"github.com/mnemobank/mnemobank/memorybank/internal/jsondiff"
)

type loc = memorybank.Location

func invalidRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", memorybank.ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// History lists the retained entries of a document's history, newest
// first, also for a deleted document.
func List(ctx context.Context, b *memorybank.Bank, req memorybank.HistoryRequest) ([]memorybank.HistoryEntry, error) {
	p, err := Page(ctx, b, req)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// Page is List with the number of retained entries. It lists the keys of
// the history and reads only the entries of the page.
func Page(ctx context.Context, b *memorybank.Bank, req memorybank.HistoryRequest) (*memorybank.Page[memorybank.HistoryEntry], error) {
	if req.Limit < 0 {
		return nil, invalidRequest("history %q: limit %d must be positive, or 0 for all", req.Path, req.Limit)
	}
	if req.Offset < 0 {
		return nil, invalidRequest("history %q: offset %d must not be negative", req.Path, req.Offset)
	}
	l, err := b.Locate(ctx, memorybank.ReadRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path})
	if err != nil {
		return nil, err
	}
	keys, err := entryKeys(ctx, b, l)
	if err != nil {
		return nil, err
	}
	slices.Reverse(keys)
	total := len(keys)
	keys = keys[min(req.Offset, len(keys)):]
	if req.Limit > 0 && len(keys) > req.Limit {
		keys = keys[:req.Limit]
	}
	out := []memorybank.HistoryEntry{}
	for _, k := range keys {
		e, ok, err := readEntry(ctx, b, k)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, e)
		}
	}
	return &memorybank.Page[memorybank.HistoryEntry]{Items: out, Total: total}, nil
}

// entryKeys lists the keys of the retained entries of a document, oldest
// first, without reading them: the zero-padded version in each key's name
// sorts them.
func entryKeys(ctx context.Context, b *memorybank.Bank, l loc) ([]string, error) {
	var keys []string
	dir := histio.Dir(l.Prefix, l.Path)
	for obj, err := range b.Store().List(ctx, dir) {
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(obj.Key, dir)
		if strings.Contains(name, "/") || name == histio.TombstoneName {
			continue
		}
		keys = append(keys, obj.Key)
	}
	slices.Sort(keys)
	return keys, nil
}

// readEntry reads one history entry; ok is false when it was pruned
// meanwhile or cannot be read (logged).
func readEntry(ctx context.Context, b *memorybank.Bank, key string) (e memorybank.HistoryEntry, ok bool, err error) {
	got, err := b.Store().Get(ctx, key)
	if errors.Is(err, memorybank.ErrNotFound) {
		return e, false, nil
	}
	if err != nil {
		return e, false, err
	}
	if err := json.Unmarshal(got.Data, &e); err != nil || e.Version < 1 {
		b.Options().Logger.WarnContext(ctx, "memorybank: skipping an unreadable history entry", "key", key)
		return e, false, nil
	}
	return e, true, nil
}

// history reads the retained entries of a document, oldest first.
func entries(ctx context.Context, b *memorybank.Bank, l loc) ([]memorybank.HistoryEntry, error) {
	var out []memorybank.HistoryEntry
	dir := histio.Dir(l.Prefix, l.Path)
	store := b.Store()
	for obj, err := range store.List(ctx, dir) {
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(obj.Key, dir)
		if strings.Contains(name, "/") || name == histio.TombstoneName {
			continue
		}
		got, err := store.Get(ctx, obj.Key)
		if errors.Is(err, memorybank.ErrNotFound) {
			continue // pruned meanwhile
		}
		if err != nil {
			return nil, err
		}
		var e memorybank.HistoryEntry
		if err := json.Unmarshal(got.Data, &e); err != nil || e.Version < 1 {
			b.Options().Logger.WarnContext(ctx, "memorybank: skipping an unreadable history entry", "key", obj.Key)
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b memorybank.HistoryEntry) int {
		switch {
		case a.Version < b.Version:
			return -1
		case a.Version > b.Version:
			return 1
		}
		return 0
	})
	return out, nil
}

// ReadVersion rebuilds a retained version of a document (the one named by
// req), as Read returned it then. A version that was not retained, never
// existed, or lies before a gap is ErrVersionUnavailable. Concurrent writes
// never make a retained version look unavailable: an entry not yet
// recorded by a writer of this Bank is waited for, one not yet recorded by
// another process for about 0.1 s, and when the document keeps changing
// meanwhile the read gives up with ErrConflict (retry it).
func ReadVersion(ctx context.Context, b *memorybank.Bank, req memorybank.ReadRequest, version int64) (*memorybank.Document, error) {
	l, err := b.Locate(ctx, memorybank.ReadRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path})
	if err != nil {
		return nil, err
	}
	docs, err := rebuild(ctx, b, l, version)
	if err != nil {
		return nil, err
	}
	return l.Document(docs[0])
}

// Diff returns the JSON Patch that turns version from of a document into
// version to (both retained).
func Diff(ctx context.Context, b *memorybank.Bank, req memorybank.ReadRequest, from, to int64) (jsonpatch.Patch, error) {
	l, err := b.Locate(ctx, memorybank.ReadRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path})
	if err != nil {
		return nil, err
	}
	docs, err := rebuild(ctx, b, l, from, to)
	if err != nil {
		return nil, err
	}
	fwd, _, err := jsondiff.Diff(docs[0], docs[1])
	if fwd == nil && err == nil {
		fwd = jsonpatch.Patch{}
	}
	return fwd, err
}

// rebuild returns the canonical documents of the given versions, in that
// order, walking inverses back once from the current state (the history is
// read once, however many versions are asked for).
//
// Writers change the document and then record its entry, so a reader can
// see a version whose entry is not there yet. A missing entry is looked up
// again after this Bank's writers of the document are done; if it is
// still missing while the document changed, the whole rebuild starts over
// on the new state (at most Options.MaxRetries times, then ErrConflict);
// if the document did not change, the entry may still be on its way from
// another process, so it is looked for again a few times (gapChecks, about
// 0.1 s in all) before the version is reported unavailable.
func rebuild(ctx context.Context, b *memorybank.Bank, l loc, versions ...int64) ([][]byte, error) {
	for _, v := range versions {
		if v < 1 {
			return nil, invalidRequest("version %d of %q: versions start at 1", v, l.Path)
		}
	}
	gaps := 0
	for attempt := 0; ; attempt++ {
		out, err := rebuildOnce(ctx, b, l, versions, gaps < gapChecks)
		var m *movedError
		if !errors.As(err, &m) {
			return out, err
		}
		if m.gap {
			gaps++
		}
		if attempt >= b.Options().MaxRetries {
			return nil, fmt.Errorf("%w: %q: gave up rebuilding version %d after %d attempts because other writers kept changing the document; retry later",
				memorybank.ErrConflict, l.Path, slices.Max(versions), attempt+1)
		}
		if err := backoff.Wait(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// gapChecks bounds how often rebuild looks again for an entry missing
// behind an unchanged document before calling it a gap: with backoff's
// pauses, about 0.1 s, much longer than a writer takes between its two Puts.
const gapChecks = 7

// movedError: the document changed while its history was read, or (gap) an
// entry was missing behind an unchanged document; rebuild again.
type movedError struct{ gap bool }

func (*movedError) Error() string {
	return "memorybank: the document changed while its history was read"
}

// entryAt reads the entry of version v directly, or returns nil.
func entryAt(ctx context.Context, b *memorybank.Bank, l loc, v int64) (*memorybank.HistoryEntry, error) {
	obj, err := b.Store().Get(ctx, histio.Key(l.Prefix, l.Path, v))
	if errors.Is(err, memorybank.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e memorybank.HistoryEntry
	if json.Unmarshal(obj.Data, &e) != nil || e.Version != v {
		return nil, nil // unreadable: as good as missing
	}
	return &e, nil
}

// rebuildOnce is one attempt of rebuild, from the document as it is now; a
// *movedError asks for another. waitGap: a missing entry behind an
// unchanged document may still be coming.
func rebuildOnce(ctx context.Context, b *memorybank.Bank, l loc, versions []int64, waitGap bool) ([][]byte, error) {
	// The document first, then the entries: every entry up to its
	// version is then either listed or missing for a reason found below.
	opts := b.Options()
	kept := "the history keeps the retained versions"
	if j, ok := opts.History.(*Journal); ok {
		kept = fmt.Sprintf("history keeps the last %d versions", j.opts.Versions)
	}
	state, cur, storeVersion, err := current(ctx, b.Store(), l)
	if err != nil {
		return nil, err
	}
	latest := cur
	entries, err := entries(ctx, b, l)
	if err != nil {
		return nil, err
	}
	byVersion := make(map[int64]*memorybank.HistoryEntry, len(entries))
	for i := range entries {
		byVersion[entries[i].Version] = &entries[i]
	}
	// missing decides about the absent entry of version v: the entry
	// itself once this Bank's writers of the document are done, a
	// *movedError when the document changed (or may still be recorded),
	// or nil for a gap.
	missing := func(v int64) (*memorybank.HistoryEntry, error) {
		if err := awaitWriters(ctx, b, l); err != nil {
			return nil, err
		}
		if e, err := entryAt(ctx, b, l, v); e != nil || err != nil {
			return e, err
		}
		_, now, nowStore, err := current(ctx, b.Store(), l)
		if err != nil && !errors.Is(err, memorybank.ErrNotFound) {
			return nil, err
		}
		if now != latest || nowStore != storeVersion {
			return nil, &movedError{}
		}
		if waitGap {
			return nil, &movedError{gap: true}
		}
		return nil, nil
	}
	// v is the highest version still to capture; each is captured when the
	// walk reaches it.
	out := make([][]byte, len(versions))
	pending := slices.Clone(versions)
	slices.Sort(pending)
	v := pending[len(pending)-1]
	unavailable := func(why string) error {
		return fmt.Errorf("%w: version %d of %q: %s", memorybank.ErrVersionUnavailable, v, l.Path, why)
	}
	if v > cur {
		return nil, unavailable(fmt.Sprintf("the latest version is %d", cur))
	}
	capture := func() error {
		for len(pending) > 0 && pending[len(pending)-1] == cur {
			if state == nil {
				return unavailable("the document did not exist at that version (it was deleted, or created later)")
			}
			for k, want := range versions {
				if want == cur {
					out[k] = bytes.Clone(state)
				}
			}
			pending = pending[:len(pending)-1]
			if len(pending) > 0 {
				v = pending[len(pending)-1]
			}
		}
		return nil
	}
	for {
		if err := capture(); err != nil || len(pending) == 0 {
			return out, err
		}
		e := byVersion[cur]
		if e == nil {
			if e, err = missing(cur); err != nil {
				return nil, err
			}
		}
		if e == nil {
			return nil, unavailable(fmt.Sprintf("the record of version %d is not retained (%s; a writer that stopped between a write and its record leaves a gap)", cur, kept))
		}
		switch {
		case e.Truncated:
			return nil, unavailable(fmt.Sprintf("the change that made version %d was too large to keep", cur))
		case e.Created:
			state = nil
		case e.Deleted:
			if len(e.Inverse) != 1 || e.Inverse[0].Path != "" {
				return nil, unavailable(fmt.Sprintf("the record of the delete at version %d holds no document", cur))
			}
			state = bytes.Clone(e.Inverse[0].Value)
		default:
			if state == nil {
				return nil, unavailable(fmt.Sprintf("version %d has no document to undo", cur))
			}
			if state, err = opts.Patcher.Apply(state, e.Inverse); err != nil {
				return nil, unavailable(fmt.Sprintf("undoing version %d failed: %v", cur, err))
			}
		}
		cur--
	}
}

// Revert writes version ToVersion of a document as its next version, with
// a Reason saying so; a deleted document is restored the same way. Under
// concurrent writes it succeeds, or fails with ErrConflict (a
// *ConflictError when IfVersion is no longer current), never with
// ErrVersionUnavailable for a retained version (see ReadVersion).
func Revert(ctx context.Context, b *memorybank.Bank, req memorybank.RevertRequest) (*memorybank.WriteResult, error) {
	l, err := b.Locate(ctx, memorybank.ReadRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path})
	if err != nil {
		return nil, err
	}
	docs, err := rebuild(ctx, b, l, req.ToVersion)
	if err != nil {
		return nil, err
	}
	reason := req.Reason
	if reason == "" {
		reason = fmt.Sprintf("revert to version %d", req.ToVersion)
	}
	// The canonical envelope as Content, for text documents too: the text
	// is kept exactly, never parsed for front matter.
	return b.Write(ctx, memorybank.WriteRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path, Content: docs[0],
		IfVersion: req.IfVersion, Actor: req.Actor, Reason: reason})
}

// current reads the state of the document at l: its canonical form (nil
// when absent), its version (for an absent one, the version its delete
// consumed), and its store version ("" when absent); ErrNotFound when it
// has no history at all.
func current(ctx context.Context, store memorybank.Store, l loc) (state []byte, version int64, storeVersion string, err error) {
	obj, err := store.Get(ctx, l.Key)
	switch {
	case err == nil:
		e, err := codec.DecodeStored(codec.FormatOf(l.Path), l.Path, obj.Data)
		if err != nil {
			return nil, 0, "", fmt.Errorf("%w: %w", memorybank.ErrCorrupt, err)
		}
		if state, err = e.Canonical(true); err != nil {
			return nil, 0, "", fmt.Errorf("%w: %q: %v; overwrite it with a full content write", memorybank.ErrCorrupt, l.Path, err)
		}
		return state, e.Version(), obj.Version, nil
	case !errors.Is(err, memorybank.ErrNotFound):
		return nil, 0, "", err
	}
	key := histio.Tombstone(l.Prefix, l.Path)
	obj, err = store.Get(ctx, key)
	if errors.Is(err, memorybank.ErrNotFound) {
		return nil, 0, "", fmt.Errorf("%w: %q in the %s has no history", memorybank.ErrNotFound, l.Path, l.Where())
	}
	if err != nil {
		return nil, 0, "", err
	}
	v, ok := histio.DecodeTombstone(obj.Data)
	if !ok {
		return nil, 0, "", fmt.Errorf("%w: %s (the tombstone of %q) is not {\"version\": n}", memorybank.ErrCorrupt, key, l.Path)
	}
	if v == 0 {
		return nil, 0, "", fmt.Errorf("%w: %q in the %s has no history", memorybank.ErrNotFound, l.Path, l.Where())
	}
	return nil, v, "", nil
}

// awaitWriters returns once the Bank's writers of the document that
// started before the call are done: they record their entry before they
// release the document's lock.
func awaitWriters(ctx context.Context, b *memorybank.Bank, l loc) error {
	unlock, err := b.LockDocument(ctx, l.Key)
	if err != nil {
		return err
	}
	unlock()
	return nil
}
