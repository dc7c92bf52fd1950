package history

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
)

// Defaults of Options.
const (
	DefaultVersions   = 100
	DefaultEntryBytes = 256 << 10
)

// pruneEvery: entries out of retention are deleted in batches this large.
const pruneEvery = 16

// Options configure a Journal. The zero value, and a nil *Options, give the
// defaults. Options are copied by New.
type Options struct {
	// Versions is how many versions of each document the history keeps.
	// Zero or negative means DefaultVersions (100).
	Versions int
	// EntryBytes bounds one entry; a larger change is recorded without its
	// patches (Truncated), and versions before it cannot be rebuilt. Zero
	// or negative means DefaultEntryBytes (256 KiB).
	EntryBytes int
	// Logger receives a warning when an entry cannot be recorded or
	// pruned. Default: discard.
	Logger *slog.Logger
}

// Journal records the history of a Bank's documents in the Bank's Store,
// where List, ReadVersion, Diff and Revert read it: give it to the Bank as
// memorybank.Options.History. It is safe for concurrent use and holds no
// state but its options, so one Journal may serve several Banks.
type Journal struct {
	opts Options
}

var _ memorybank.Journal = (*Journal)(nil)

// New returns a Journal. opts may be nil.
func New(opts *Options) *Journal {
	j := &Journal{}
	if opts != nil {
		j.opts = *opts
	}
	if j.opts.Versions <= 0 {
		j.opts.Versions = DefaultVersions
	}
	if j.opts.EntryBytes <= 0 {
		j.opts.EntryBytes = DefaultEntryBytes
	}
	if j.opts.Logger == nil {
		j.opts.Logger = slog.New(slog.DiscardHandler)
	}
	return j
}

// Options returns the Journal's options, defaults filled in.
func (j *Journal) Options() Options { return j.opts }

// Record stores the entry of one change (a memorybank.HistoryEntry) under
// the document's history directory, and every pruneEvery versions drops
// the entries that fell out of retention. It is best effort: the change it
// records has happened, so a failure only leaves a gap, which is logged.
// The Bank gives it the store's Lazy view when there is one: the
// document's write, made before, is the one durable step, and a crash
// before the entry reaches the disk leaves a gap, never an entry without
// its write.
func (j *Journal) Record(ctx context.Context, store memorybank.Store, c *memorybank.Change) {
	e := memorybank.HistoryEntry{Version: c.Version, Time: c.Time, Actor: c.Actor, Reason: c.Reason, Via: c.Via, Created: c.Created, Deleted: c.Deleted}
	var err error
	e.Patch, e.Inverse, err = c.Patches(j.opts.EntryBytes)
	if err != nil {
		var le *memorybank.LimitError
		if !errors.As(err, &le) {
			j.opts.Logger.WarnContext(ctx, "memorybank: cannot compute the change for the history; recorded without it", "key", c.Key, "err", err)
		}
		e.Truncated = true
	}
	key := histio.Key(c.Prefix, c.Path, c.Version)
	data, err := j.encode(c, e)
	if err == nil {
		_, err = store.Put(ctx, key, data, memorybank.Condition{IfAbsent: true})
	}
	if err != nil {
		j.opts.Logger.WarnContext(ctx, "memorybank: cannot record the change in the document's history; the write stands, its entry is missing", "key", key, "err", err)
		return
	}
	// Retention: every pruneEvery versions, drop the batch that fell out.
	keep := int64(j.opts.Versions)
	if c.Version > keep && c.Version%pruneEvery == 0 {
		for v := c.Version - keep - pruneEvery + 1; v <= c.Version-keep; v++ {
			if v < 1 {
				continue
			}
			old := histio.Key(c.Prefix, c.Path, v)
			if err := store.Delete(ctx, old, memorybank.Condition{}); err != nil && !errors.Is(err, memorybank.ErrNotFound) {
				j.opts.Logger.WarnContext(ctx, "memorybank: cannot drop an old history entry", "key", old, "err", err)
			}
		}
	}
}

// encode encodes an entry: without its patches when it is over
// EntryBytes, and through the Bank's secret screen. A write's patches
// repeat what it sent, which the document's own screen redacted, so the
// entry is redacted the same way; an entry the screen refuses (the inverse
// of a version stored before screening) is kept without its patches, as a
// too-large one is, so the history never holds a credential.
func (j *Journal) encode(c *memorybank.Change, e memorybank.HistoryEntry) ([]byte, error) {
	data, err := json.Marshal(e)
	if err == nil && len(data) > j.opts.EntryBytes {
		e.Patch, e.Inverse, e.Truncated = nil, nil, true
		data, err = json.Marshal(e)
	}
	if err != nil {
		return nil, err
	}
	if out, err := c.Screen(data); err == nil {
		return out, nil
	}
	e.Patch, e.Inverse, e.Truncated = nil, nil, true
	if d, err := json.Marshal(e); err == nil {
		return d, nil
	}
	return data, nil
}
