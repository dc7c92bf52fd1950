package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
	"github.com/mnemobank/mnemobank/memorybank/internal/jsondiff"
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

// pruneEvery: entries out of retention are deleted in batches this large.
const pruneEvery = 16

// HistoryEntry is one recorded change of a document.
type HistoryEntry struct {
	Version int64     `json:"version"`
	Time    time.Time `json:"time"`
	Actor   string    `json:"actor,omitempty"`
	Reason  string    `json:"reason,omitempty"`
	// Via is the write's Provenance (tool and source), when it gave one.
	Via *Provenance `json:"via,omitempty"`
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

// HistoryRequest names a document whose history to list, newest first,
// skipping the Offset newest entries, at most Limit entries (0: all
// retained).
type HistoryRequest struct {
	Scope  Scope  `json:"scope"`
	Branch string `json:"branch,omitempty"`
	Path   string `json:"path"`
	Limit  int    `json:"limit,omitempty"`
	Offset int    `json:"offset,omitempty"`
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

func historyKey(l loc, version int64) string { return histio.Key(l.prefix, l.path, version) }

func tombstoneKey(l loc) string { return histio.Tombstone(l.prefix, l.path) }

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
// happened, so a failure only leaves a gap, which is logged. The entry goes
// through the store's Lazy view when it has one (LazyWriter): the document's
// Put, made before, is the write's one durable step, and a crash before the
// entry reaches the disk leaves a gap, never an entry without its write.
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
	if err == nil {
		data = b.screenHistory(l, e, data)
	}
	key := historyKey(l, e.Version)
	if err == nil {
		_, err = b.hist.Put(ctx, key, data, Condition{IfAbsent: true})
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
			switch err := b.hist.Delete(ctx, historyKey(l, v), Condition{}); {
			case err == nil:
				b.own.Add(1)
			case !errors.Is(err, ErrNotFound):
				b.opts.Logger.WarnContext(ctx, "memorybank: cannot drop an old history entry", "key", historyKey(l, v), "err", err)
			}
		}
	}
}

// recordWrite records a write that stored next over old (nil: created).
func (b *Bank) recordWrite(ctx context.Context, l loc, req WriteRequest, old, next *codec.Envelope, now time.Time) {
	if b.opts.HistoryVersions < 0 {
		return
	}
	e := HistoryEntry{Version: next.Version(), Time: now, Actor: req.Actor, Reason: req.Reason, Created: old == nil, Via: req.Provenance}
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
func (b *Bank) recordDelete(ctx context.Context, l loc, req DeleteRequest, old *codec.Envelope, v int64) {
	if b.opts.HistoryVersions < 0 {
		return
	}
	e := HistoryEntry{Version: v, Time: b.now(), Actor: req.Actor, Reason: req.Reason, Deleted: true}
	if old != nil {
		if c, err := old.Canonical(true); err == nil {
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
func changeOf(old, next *codec.Envelope, patch jsonpatch.Patch, limit int) (fwd, inv jsonpatch.Patch, err error) {
	if old != nil && patch != nil && next.Format == codec.FormatJSON {
		fwd = append(slices.Clone(patch), jsonpatch.Operation{Op: "replace", Path: "/metadata", Value: next.CanonicalMeta()})
		for _, t := range touched(patch) {
			v, ok := old.ValueAt(t)
			if !ok {
				return nil, nil, fmt.Errorf("the old value at %q is missing", t)
			}
			inv = append(inv, jsonpatch.Operation{Op: "replace", Path: t, Value: codec.CompactRaw(v)})
		}
		return fwd, inv, nil
	}
	if len(next.Content) > limit || old != nil && len(old.Content) > limit {
		return nil, nil, errTooLarge
	}
	after, err := next.Canonical(true)
	if err != nil {
		return nil, nil, err
	}
	if old == nil {
		return jsonpatch.Patch{{Op: "add", Path: "", Value: after}}, nil, nil
	}
	before, err := old.Canonical(true)
	if err != nil {
		return nil, nil, err
	}
	return jsondiff.Diff(before, after)
}

var errTooLarge = errors.New("too large to keep")

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
