package memorybank

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/jsonpatch"
)

// Document history.
//
// Every successful write and delete of a document records one entry under
// the reserved key ".history/<bank prefix><hash>/<version>.json", where
// <hash> is the SHA-256 of the document's path in hexadecimal (64 digits)
// and <version> the version in 20 digits: the version it produced, the time
// (Options.Clock), the Actor and Reason of the request, the change from the
// previous version as an RFC 6902 patch and its inverse. A delete consumes
// a version too, so a re-created document continues after it and versions
// of a path never repeat; the last version of a deleted document is kept in
// ".history/<bank prefix><hash>/deleted.json", which a write of an absent
// document reads (one Get). Entries are keys of the same Store, outside
// every bank's prefix, so List, ReadContext and search never see them, they
// work on every Store and they move with it.
//
// Keys. A history key is at most 9+len(bank prefix)+64+1+25 bytes whatever
// the path (374 with the longest branch directory), so every path a bank
// accepts has a history, and a path is refused (ErrInvalidPath) only when
// its own key would be over MaxKeyLen. No document key starts with
// ".history/" (paths have no segment starting with "."), and a history
// directory holds only entries, so on a store of files (fsstore) no
// document, entry or tombstone can be a file where another needs a
// directory, whatever paths were written and deleted before. Every write
// checks the keys of its history before the document is written. Paths
// that differ only in case have distinct histories, as they are distinct
// documents. Before this scheme (pre-release), entries lived under
// ".history/<document key>/"; they are no longer read and can be deleted.
//
// historyPrefix is the root of every document's history.
const historyPrefix = ".history/"

// pruneEvery: entries out of retention are deleted in batches this large.
const pruneEvery = 16

// HistoryEntry is one recorded change of a document.
type HistoryEntry struct {
	Version int64     `json:"version"`
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	// Deleted: this change deleted the document; Created: the document did
	// not exist before it.
	Deleted bool `json:"deleted,omitempty"`
	Created bool `json:"created,omitempty"`
	// Patch turns the previous version's canonical document (Read's
	// Content) into this one; Inverse turns this one back. Both are nil
	// when the entry was too large to keep them (Truncated), and Patch is
	// nil for a delete, Inverse for a creation.
	Patch     jsonpatch.Patch `json:"patch,omitempty"`
	Inverse   jsonpatch.Patch `json:"inverse,omitempty"`
	Truncated bool            `json:"truncated,omitempty"`
}

// HistoryRequest names a document whose history to list, newest first, at
// most Limit entries (0: all retained).
type HistoryRequest struct {
	Scope  Scope  `json:"scope"`
	Branch string `json:"branch,omitempty"`
	Path   string `json:"path"`
	Limit  int    `json:"limit,omitempty"`
}

// RevertRequest writes the content of an earlier version of a document as
// its next version (history is never rewritten); it also restores a
// deleted document. IfVersion, when non-zero, must be the current version.
type RevertRequest struct {
	Scope     Scope  `json:"scope"`
	Branch    string `json:"branch,omitempty"`
	Path      string `json:"path"`
	ToVersion int64  `json:"toVersion"`
	IfVersion int64  `json:"ifVersion,omitempty"`
	Actor     string `json:"actor,omitempty"`
	Reason    string `json:"reason,omitempty"` // default "revert to version N"
}

// historyDir is the directory of the history of the document at l: its
// bank's prefix and the hash of its path, so its length is bounded and it
// holds nothing but the entries and tombstone of that document.
func historyDir(l loc) string {
	sum := sha256.Sum256([]byte(l.path))
	return historyPrefix + l.prefix + hex.EncodeToString(sum[:]) + "/"
}

func historyKey(l loc, version int64) string {
	return fmt.Sprintf("%s%020d.json", historyDir(l), version)
}

func tombstoneKey(l loc) string { return historyDir(l) + "deleted.json" }

// checkHistoryKeys reports, before a document at l is written or deleted,
// a history key that the store would refuse. By construction there is
// none; the check keeps a future change of the scheme from writing a
// document whose history cannot be.
func checkHistoryKeys(l loc) error {
	for _, k := range []string{historyKey(l, math.MaxInt64), tombstoneKey(l)} {
		if err := ValidateKey(k); err != nil {
			return fmt.Errorf("%w: %q in the %s: its history key is not valid: %w", ErrInvalidPath, l.path, l.describe(), err)
		}
	}
	return nil
}

type tombstone struct {
	Version int64 `json:"version"` // the version the delete consumed
}

// lastDeleted returns the version a delete of key consumed, or 0.
func (b *Bank) lastDeleted(ctx context.Context, l loc) (int64, error) {
	obj, err := b.store.Get(ctx, tombstoneKey(l))
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var t tombstone
	if json.Unmarshal(obj.Data, &t) != nil || t.Version < 0 {
		return 0, fmt.Errorf("%w: %s (the tombstone of %q) is not {\"version\": n}", ErrCorrupt, tombstoneKey(l), l.path)
	}
	return t.Version, nil
}

// putHistory stores one entry, best effort: the change it records has
// happened, so a failure only leaves a gap, which is logged.
func (b *Bank) putHistory(ctx context.Context, l loc, e HistoryEntry) {
	if b.opts.HistoryVersions < 0 {
		return
	}
	ctx = context.WithoutCancel(ctx)
	data, err := json.Marshal(e)
	if err == nil && len(data) > b.opts.HistoryEntryBytes {
		e.Patch, e.Inverse, e.Truncated = nil, nil, true
		data, err = json.Marshal(e)
	}
	key := historyKey(l, e.Version)
	if err == nil {
		_, err = b.store.Put(ctx, key, data, Condition{IfAbsent: true})
	}
	if err != nil {
		b.opts.Logger.WarnContext(ctx, "memorybank: cannot record the change in the document's history; the write stands, its entry is missing", "key", key, "err", err)
		return
	}
	b.own.Add(1)
	// Retention: every pruneEvery versions, drop the batch that fell out.
	keep := int64(b.opts.HistoryVersions)
	if e.Version > keep && e.Version%pruneEvery == 0 {
		for v := e.Version - keep - pruneEvery + 1; v <= e.Version-keep; v++ {
			if v < 1 {
				continue
			}
			switch err := b.store.Delete(ctx, historyKey(l, v), Condition{}); {
			case err == nil:
				b.own.Add(1)
			case !errors.Is(err, ErrNotFound):
				b.opts.Logger.WarnContext(ctx, "memorybank: cannot drop an old history entry", "key", historyKey(l, v), "err", err)
			}
		}
	}
}

// recordWrite records a write that stored next over old (nil: created).
func (b *Bank) recordWrite(ctx context.Context, l loc, req WriteRequest, old, next *envelope, now time.Time) {
	if b.opts.HistoryVersions < 0 {
		return
	}
	e := HistoryEntry{Version: next.version(), Time: now, Actor: req.Actor, Reason: req.Reason, Created: old == nil}
	var err error
	e.Patch, e.Inverse, err = changeOf(old, next, req.Patches, b.opts.HistoryEntryBytes)
	if err != nil {
		if !errors.Is(err, errTooLarge) {
			b.opts.Logger.WarnContext(ctx, "memorybank: cannot compute the change for the history; recorded without it", "key", l.key, "err", err)
		}
		e.Truncated = true
	}
	b.putHistory(ctx, l, e)
}

// recordDelete records the delete of old (nil when it could not be
// decoded), which consumed version v.
func (b *Bank) recordDelete(ctx context.Context, l loc, req DeleteRequest, old *envelope, v int64) {
	if b.opts.HistoryVersions < 0 {
		return
	}
	e := HistoryEntry{Version: v, Time: b.now(), Actor: req.Actor, Reason: req.Reason, Deleted: true}
	if old != nil {
		if c, err := old.canonical(true); err == nil {
			e.Inverse = jsonpatch.Patch{{Op: "add", Path: "", Value: c}}
		}
	}
	b.putHistory(ctx, l, e)
}

// changeOf returns the patch from old to next and its inverse. A creation
// is an add of the whole document; a patch write of a JSON document is the
// request's operations and, backwards, the old values of the containers
// they touched (found by scanning, not decoding, the old document); other
// writes are a diff. A document larger than limit is not encoded for it:
// its entry would be dropped as too large anyway.
func changeOf(old, next *envelope, patch jsonpatch.Patch, limit int) (fwd, inv jsonpatch.Patch, err error) {
	if old != nil && patch != nil && next.format == FormatJSON {
		fwd = append(slices.Clone(patch), jsonpatch.Operation{Op: "replace", Path: "/metadata", Value: next.canonicalMeta()})
		for _, t := range touched(patch) {
			v, ok := old.valueAt(t)
			if !ok {
				return nil, nil, fmt.Errorf("the old value at %q is missing", t)
			}
			inv = append(inv, jsonpatch.Operation{Op: "replace", Path: t, Value: compactRaw(v)})
		}
		return fwd, inv, nil
	}
	if len(next.content) > limit || old != nil && len(old.content) > limit {
		return nil, nil, errTooLarge
	}
	after, err := next.canonical(true)
	if err != nil {
		return nil, nil, err
	}
	if old == nil {
		return jsonpatch.Patch{{Op: "add", Path: "", Value: after}}, nil, nil
	}
	before, err := old.canonical(true)
	if err != nil {
		return nil, nil, err
	}
	return diffRaw(before, after)
}

var errTooLarge = errors.New("too large to keep")

// valueAt returns the value at JSON Pointer ptr in the canonical form of
// the envelope, looking only at the member it names.
func (e *envelope) valueAt(ptr string) (json.RawMessage, bool) {
	if ptr == "" {
		c, err := e.canonical(true)
		return c, err == nil
	}
	first, rest, _ := strings.Cut(ptr[1:], "/")
	first, _ = jsontext.UnescapeToken(first)
	var member json.RawMessage
	switch first {
	case "schema":
		member = e.schema
	case "metadata":
		member = e.canonicalMeta()
	case "content":
		member = e.content
	default:
		member = e.extra[first]
	}
	if member == nil {
		return nil, false
	}
	if rest == "" && !strings.HasSuffix(ptr, "/") {
		return member, true
	}
	return jsontext.At(member, "/"+rest)
}

// touched returns the pointers whose old values undo patch: /metadata (the
// Bank rewrites it on every write) and, per operation, the container it
// changes (the parent of an add, remove, copy or move, the target of a
// replace), without those inside another.
func touched(patch jsonpatch.Patch) []string {
	set := []string{"/metadata"}
	for _, op := range patch {
		switch op.Op {
		case "test":
		case "replace":
			set = append(set, op.Path)
		case "move":
			set = append(set, parentPtr(op.Path), parentPtr(op.From))
		default:
			set = append(set, parentPtr(op.Path))
		}
	}
	slices.SortFunc(set, func(a, b string) int { return len(a) - len(b) })
	var out []string
	for _, p := range set {
		if !slices.ContainsFunc(out, func(q string) bool { return within(p, q) }) {
			out = append(out, p)
		}
	}
	return out
}

func parentPtr(p string) string {
	if i := strings.LastIndexByte(p, '/'); i >= 0 {
		return p[:i]
	}
	return ""
}

// diffRaw decodes two JSON texts and returns the patch between them and its
// inverse.
func diffRaw(before, after []byte) (fwd, inv jsonpatch.Patch, err error) {
	a, err := decodeAny(before)
	if err != nil {
		return nil, nil, err
	}
	c, err := decodeAny(after)
	if err != nil {
		return nil, nil, err
	}
	fwd, err = diff(nil, "", a, c)
	if err != nil {
		return nil, nil, err
	}
	inv, err = diff(nil, "", c, a)
	return fwd, inv, err
}

func decodeAny(data []byte) (any, error) {
	v, _, err := parseIndented(data, 0, nil)
	return v, err
}

// diff appends to out the operations that turn a into b at pointer at:
// objects member by member, arrays of equal length element by element,
// anything else replaced whole.
func diff(out jsonpatch.Patch, at string, a, b any) (jsonpatch.Patch, error) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			for _, k := range sortedAnyKeys(av) {
				p := at + "/" + escapePointer(k)
				if nb, ok := bv[k]; ok {
					var err error
					if out, err = diff(out, p, av[k], nb); err != nil {
						return nil, err
					}
				} else {
					out = append(out, jsonpatch.Operation{Op: "remove", Path: p})
				}
			}
			for _, k := range sortedAnyKeys(bv) {
				if _, ok := av[k]; !ok {
					v, err := json.Marshal(bv[k])
					if err != nil {
						return nil, err
					}
					out = append(out, jsonpatch.Operation{Op: "add", Path: at + "/" + escapePointer(k), Value: v})
				}
			}
			return out, nil
		}
	case []any:
		if bv, ok := b.([]any); ok && len(av) == len(bv) {
			for i := range av {
				var err error
				if out, err = diff(out, at+"/"+strconv.Itoa(i), av[i], bv[i]); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	}
	ja, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	jb, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(ja, jb) {
		return out, nil
	}
	return append(out, jsonpatch.Operation{Op: "replace", Path: at, Value: jb}), nil
}

func sortedAnyKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// History lists the retained entries of a document's history, newest
// first, also for a deleted document.
func (b *Bank) History(ctx context.Context, req HistoryRequest) ([]HistoryEntry, error) {
	if req.Limit < 0 {
		return nil, invalidRequest("history %q: limit %d must be positive, or 0 for all", req.Path, req.Limit)
	}
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	entries, err := b.history(ctx, l)
	if err != nil {
		return nil, err
	}
	slices.Reverse(entries)
	if req.Limit > 0 && len(entries) > req.Limit {
		entries = entries[:req.Limit]
	}
	return entries, nil
}

// history reads the retained entries of a document, oldest first.
func (b *Bank) history(ctx context.Context, l loc) ([]HistoryEntry, error) {
	var out []HistoryEntry
	dir := historyDir(l)
	for obj, err := range b.store.List(ctx, dir) {
		if err != nil {
			return nil, err
		}
		name := strings.TrimPrefix(obj.Key, dir)
		if strings.Contains(name, "/") || name == "deleted.json" {
			continue
		}
		got, err := b.store.Get(ctx, obj.Key)
		if errors.Is(err, ErrNotFound) {
			continue // pruned meanwhile
		}
		if err != nil {
			return nil, err
		}
		var e HistoryEntry
		if err := json.Unmarshal(got.Data, &e); err != nil || e.Version < 1 {
			b.opts.Logger.WarnContext(ctx, "memorybank: skipping an unreadable history entry", "key", obj.Key)
			continue
		}
		out = append(out, e)
	}
	slices.SortFunc(out, func(a, b HistoryEntry) int {
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
func (b *Bank) ReadVersion(ctx context.Context, req ReadRequest, version int64) (*Document, error) {
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	docs, err := b.rebuild(ctx, l, version)
	if err != nil {
		return nil, err
	}
	data := docs[0]
	e, ok := splitEnvelope(formatOf(l.path), l.path, data)
	if !ok {
		return nil, corrupt(l.path, errors.New("a rebuilt version is not a JSON object"))
	}
	return e.document(l.scope, l.branch, time.Time{})
}

// Diff returns the JSON Patch that turns version from of a document into
// version to (both retained).
func (b *Bank) Diff(ctx context.Context, req ReadRequest, from, to int64) (jsonpatch.Patch, error) {
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	docs, err := b.rebuild(ctx, l, from, to)
	if err != nil {
		return nil, err
	}
	fwd, _, err := diffRaw(docs[0], docs[1])
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
func (b *Bank) rebuild(ctx context.Context, l loc, versions ...int64) ([][]byte, error) {
	for _, v := range versions {
		if v < 1 {
			return nil, invalidRequest("version %d of %q: versions start at 1", v, l.path)
		}
	}
	gaps := 0
	for attempt := 0; ; attempt++ {
		out, err := b.rebuildOnce(ctx, l, versions, gaps < gapChecks)
		var m *movedError
		if !errors.As(err, &m) {
			return out, err
		}
		if m.gap {
			gaps++
		}
		if attempt >= b.opts.MaxRetries {
			return nil, fmt.Errorf("%w: %q: gave up rebuilding version %d after %d attempts because other writers kept changing the document; retry later",
				ErrConflict, l.path, slices.Max(versions), attempt+1)
		}
		if err := backoff(ctx, attempt); err != nil {
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

// current reads the state of the document at l: its canonical form (nil
// when absent), its version, and its store version ("" when absent).
func (b *Bank) current(ctx context.Context, l loc) (state []byte, cur int64, storeVersion string, err error) {
	obj, err := b.store.Get(ctx, l.key)
	switch {
	case err == nil:
		e, err := decodeStored(formatOf(l.path), l.path, obj.Data)
		if err != nil {
			return nil, 0, "", err
		}
		if state, err = e.canonical(true); err != nil {
			return nil, 0, "", corrupt(l.path, err)
		}
		return state, e.version(), obj.Version, nil
	case errors.Is(err, ErrNotFound):
		if cur, err = b.lastDeleted(ctx, l); err != nil {
			return nil, 0, "", err
		}
		if cur == 0 {
			return nil, 0, "", fmt.Errorf("%w: %q in the %s has no history", ErrNotFound, l.path, l.describe())
		}
		return nil, cur, "", nil
	}
	return nil, 0, "", err
}

// entryAt reads the entry of version v directly, or returns nil.
func (b *Bank) entryAt(ctx context.Context, l loc, v int64) (*HistoryEntry, error) {
	obj, err := b.store.Get(ctx, historyKey(l, v))
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var e HistoryEntry
	if json.Unmarshal(obj.Data, &e) != nil || e.Version != v {
		return nil, nil // unreadable: as good as missing
	}
	return &e, nil
}

// rebuildOnce is one attempt of rebuild, from the document as it is now; a
// *movedError asks for another. waitGap: a missing entry behind an
// unchanged document may still be coming.
func (b *Bank) rebuildOnce(ctx context.Context, l loc, versions []int64, waitGap bool) ([][]byte, error) {
	// The document first, then the entries: every entry up to its
	// version is then either listed or missing for a reason found below.
	state, cur, storeVersion, err := b.current(ctx, l)
	if err != nil {
		return nil, err
	}
	latest := cur
	entries, err := b.history(ctx, l)
	if err != nil {
		return nil, err
	}
	byVersion := make(map[int64]*HistoryEntry, len(entries))
	for i := range entries {
		byVersion[entries[i].Version] = &entries[i]
	}
	// missing decides about the absent entry of version v: the entry
	// itself once this Bank's writers of the document are done, a
	// *movedError when the document changed (or may still be recorded),
	// or nil for a gap.
	missing := func(v int64) (*HistoryEntry, error) {
		unlock, err := b.locks.lock(ctx, foldKey(l.key))
		if err != nil {
			return nil, err
		}
		unlock() // this Bank's writers record their entry before unlocking
		if e, err := b.entryAt(ctx, l, v); e != nil || err != nil {
			return e, err
		}
		_, now, nowStore, err := b.current(ctx, l)
		if err != nil && !errors.Is(err, ErrNotFound) {
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
		return fmt.Errorf("%w: version %d of %q: %s", ErrVersionUnavailable, v, l.path, why)
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
			return nil, unavailable(fmt.Sprintf("the record of version %d is not retained (history keeps the last %d versions; a writer that stopped between a write and its record leaves a gap)", cur, b.opts.HistoryVersions))
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
			if state, err = b.opts.Patcher.Apply(state, e.Inverse); err != nil {
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
func (b *Bank) Revert(ctx context.Context, req RevertRequest) (*WriteResult, error) {
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	docs, err := b.rebuild(ctx, l, req.ToVersion)
	if err != nil {
		return nil, err
	}
	reason := req.Reason
	if reason == "" {
		reason = fmt.Sprintf("revert to version %d", req.ToVersion)
	}
	// The canonical envelope as Content, for text documents too: the text
	// is kept exactly, never parsed for front matter.
	return b.Write(ctx, WriteRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path, Content: docs[0],
		IfVersion: req.IfVersion, Actor: req.Actor, Reason: reason})
}
