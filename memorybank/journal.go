package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
	"github.com/mnemobank/mnemobank/memorybank/internal/jsondiff"
	"github.com/mnemobank/mnemobank/screen"
)

// Document history.
//
// The Bank records no history itself: it hands every change to the
// Journal in Options.History (memorybank/history provides one, which keeps
// the entries in the Bank's Store). What the Bank keeps in every case is
// the version a delete consumed, in a tombstone next to where a history
// would be, so a re-created document continues after it and versions of a
// path never repeat, with or without a journal.
//
// Keys. A history key is at most 9+len(bank prefix)+64+1+25 bytes whatever
// the path (374 with the longest branch directory), so every path a bank
// accepts has a history, and a path is refused (ErrInvalidPath) only when
// its own key would be over MaxKeyLen. No document key starts with
// ".history/" (paths have no segment starting with "."), and a history
// directory holds only entries, so on a store of files (fsstore) no
// document, entry or tombstone can be a file where another needs a
// directory, whatever paths were written and deleted before. Every write
// checks the keys of its history before the document is written.

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

// Journal records the changes a Bank makes to its documents: the history
// of each document (Options.History). memorybank/history provides the
// journal whose entries memorybank/history reads back; a host may give its
// own (an audit log, a feed of changes).
type Journal interface {
	// Record records one change. The Bank calls it after the change is in
	// the store and before it releases the document's lock, so that no
	// writer of this Bank changes the document until Record returns and a
	// reader that takes the lock (Bank.LockDocument) finds the record. ctx
	// is the write's, without its cancellation: the change has happened
	// and its record should not be lost to a caller that stopped waiting.
	//
	// store is the Bank's Store as a journal should write to it: through
	// its Lazy view when it is a LazyWriter, so a record rides on the
	// durability of the document's write (never a record of a write the
	// store lost; a crash in between leaves a gap), with every change
	// counted as the Bank's own so that its indexes do not take it for
	// another writer's. Record must not call the Bank's writing methods.
	// Recording is best effort: a failure is the journal's to log, the
	// write stands.
	Record(ctx context.Context, store Store, c *Change)
}

// Change is one change of a document, as a Journal receives it.
type Change struct {
	Location
	// Version is the version the change made; a delete consumes a version
	// too.
	Version int64
	// Time is the write's lastModified (Options.Clock), or the time of the
	// delete.
	Time time.Time
	// Actor, Reason and Via are the request's Actor, Reason and
	// Provenance.
	Actor, Reason string
	Via           *Provenance
	// Created: the document did not exist before; Deleted: this change
	// deleted it.
	Created, Deleted bool

	old, next *codec.Envelope // before (nil: created, or undecodable) and after (nil: deleted)
	patches   jsonpatch.Patch // the request's, for a patch write
	secrets   screen.Screen   // Options.Secrets
}

// Patches returns the change as an RFC 6902 patch from the previous
// version's canonical document (Read's Content, for a text document the
// envelope {"schema","metadata","content":"<text>"}) to this one, and the
// inverse patch back. A creation is an add of the whole document (no
// inverse); a delete is no patch, and as inverse an add of the whole
// document it deleted (none when that could not be decoded). A write
// whose document, before or after, is over limit bytes is not encoded: its
// error is a *LimitError ("history entry"), with both patches nil.
func (c *Change) Patches(limit int) (patch, inverse jsonpatch.Patch, err error) {
	if c.Deleted {
		if c.old != nil {
			if doc, err := c.old.Canonical(true); err == nil {
				inverse = jsonpatch.Patch{{Op: "add", Path: "", Value: doc}}
			}
		}
		return nil, inverse, nil
	}
	return changeOf(c.old, c.next, c.patches, limit, c.Path)
}

// Screen runs the Bank's secret screen (Options.Secrets) over a JSON
// record a journal is about to store that repeats the document (its
// patches): as the document's write was redacted, so is its record.
// Without a screen it returns record itself. An error means the screen
// refuses the record, or its redaction would not be JSON: keep the record
// without what repeats the document.
func (c *Change) Screen(record []byte) ([]byte, error) {
	if c.secrets == nil {
		return record, nil
	}
	where := strconv.Quote(c.Path) + " history"
	out, err := c.secrets.Screen(where, string(record))
	switch {
	case err != nil:
		return nil, err
	case out == string(record):
		return record, nil
	case !json.Valid([]byte(out)):
		return nil, &screen.SecretError{Where: where, Detail: "redacting the credentials would break the record's structure"}
	}
	return []byte(out), nil
}

// checkHistoryKeys reports, before a document at l is written or deleted,
// a history key that the store would refuse. By construction there is
// none; the check keeps a future change of the scheme from writing a
// document whose history cannot be.
func checkHistoryKeys(l loc) error {
	for _, k := range []string{histio.Key(l.prefix, l.path, math.MaxInt64), histio.Tombstone(l.prefix, l.path)} {
		if err := ValidateKey(k); err != nil {
			return fmt.Errorf("%w: %q in the %s: its history key is not valid: %w", ErrInvalidPath, l.path, l.describe(), err)
		}
	}
	return nil
}

// lastDeleted returns the version a delete of the document at l consumed,
// or 0.
func (b *Bank) lastDeleted(ctx context.Context, l loc) (int64, error) {
	key := histio.Tombstone(l.prefix, l.path)
	obj, err := b.store.Get(ctx, key)
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	v, ok := histio.DecodeTombstone(obj.Data)
	if !ok {
		return 0, fmt.Errorf("%w: %s (the tombstone of %q) is not {\"version\": n}", ErrCorrupt, key, l.path)
	}
	return v, nil
}

// recordWrite hands the journal a write that stored next over old (nil:
// created).
func (b *Bank) recordWrite(ctx context.Context, l loc, req WriteRequest, old, next *codec.Envelope, now time.Time) {
	if b.opts.History == nil {
		return
	}
	b.opts.History.Record(context.WithoutCancel(ctx), b.journalStore, &Change{
		Location: l.public(), Version: next.Version(), Time: now, Actor: req.Actor, Reason: req.Reason, Via: req.Provenance,
		Created: old == nil, old: old, next: next, patches: req.Patches, secrets: b.opts.Secrets,
	})
}

// recordDelete hands the journal the delete of old (nil when it could not
// be decoded), which consumed version v.
func (b *Bank) recordDelete(ctx context.Context, l loc, req DeleteRequest, old *codec.Envelope, v int64) {
	if b.opts.History == nil {
		return
	}
	b.opts.History.Record(context.WithoutCancel(ctx), b.journalStore, &Change{
		Location: l.public(), Version: v, Time: b.now(), Actor: req.Actor, Reason: req.Reason,
		Deleted: true, old: old, secrets: b.opts.Secrets,
	})
}

// ownStore is the Bank's Store as its journal writes to it: every change
// that succeeds is counted as the Bank's own, as the catalogs' freshness
// rule needs.
type ownStore struct {
	Store
	own *atomic.Uint64
}

func (s ownStore) Put(ctx context.Context, key string, data []byte, cond Condition) (Object, error) {
	obj, err := s.Store.Put(ctx, key, data, cond)
	if err == nil {
		s.own.Add(1)
	}
	return obj, err
}

func (s ownStore) Delete(ctx context.Context, key string, cond Condition) error {
	err := s.Store.Delete(ctx, key, cond)
	if err == nil {
		s.own.Add(1)
	}
	return err
}

// changeOf returns the patch from old to next and its inverse. A creation
// is an add of the whole document; a patch write of a JSON document is the
// request's operations and, backwards, the old values of the containers
// they touched (found by scanning, not decoding, the old document); other
// writes are a diff. A document larger than limit is not encoded for it:
// its entry would be dropped as too large anyway.
func changeOf(old, next *codec.Envelope, patch jsonpatch.Patch, limit int, p string) (fwd, inv jsonpatch.Patch, err error) {
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
	if n := max(len(next.Content), oldLen(old)); n > limit {
		return nil, nil, &LimitError{Limit: "history entry", Max: limit, Got: n, Path: p}
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

func oldLen(old *codec.Envelope) int {
	if old == nil {
		return 0
	}
	return len(old.Content)
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
