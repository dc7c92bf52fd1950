package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"os"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Policy says what Import does with a document that exists in both the
// archive and the bank with different bytes.
type Policy string

const (
	// KeepOurs leaves the bank's document as it is (the default).
	KeepOurs Policy = "ours"
	// KeepTheirs writes the archive's document over ours, through the
	// Bank: it becomes the next version of ours, so ours stays in the
	// history and IfVersion of ours fails.
	KeepTheirs Policy = "theirs"
	// KeepBoth keeps ours and writes theirs beside it, at
	// "<name>.imported<ext>" ("<name>.imported-2<ext>", ... when taken).
	KeepBoth Policy = "both"
)

// ParsePolicy returns the Policy named s ("" is KeepOurs).
func ParsePolicy(s string) (Policy, error) {
	switch p := Policy(s); p {
	case "":
		return KeepOurs, nil
	case KeepOurs, KeepTheirs, KeepBoth:
		return p, nil
	}
	return "", fmt.Errorf("%w: conflict policy %q; use theirs, ours or both", ErrInvalidOptions, s)
}

// Action is what an import does with one item.
type Action string

const (
	Create   Action = "create"   // absent from the bank: written as archived
	Skip     Action = "skip"     // the bank holds the same bytes
	Conflict Action = "conflict" // the bank holds something else: OnConflict decides
)

// Item kinds.
const (
	KindDocument = "document"
	KindKey      = "key"    // a branch marker or a key outside the banks
	KindMemory   = "memory" // a learned memory (Key is its id)
	KindTrash    = "trash"  // a memory in the trash (Key is its id)
)

// Item is one line of an import's plan or report.
type Item struct {
	Kind   string `json:"kind"`
	Key    string `json:"key"` // the store key, or the memory's id
	Action Action `json:"action"`
	// Resolution, on an applied conflict, says what was done: "kept ours",
	// "theirs written as version N", "theirs written to <key>", or why
	// nothing could be.
	Resolution string `json:"resolution,omitempty"`
	// Detail says what differs.
	Detail string `json:"detail,omitempty"`
}

// Result sums up an import.
type Result struct {
	Manifest  *Manifest `json:"manifest"`
	Applied   bool      `json:"applied"`
	Created   int       `json:"created"`
	Skipped   int       `json:"skipped"`
	Conflicts int       `json:"conflicts"`
	// HistoryWritten and HistorySkipped count history entries (of created
	// documents; those of conflicting documents are not imported).
	HistoryWritten int `json:"historyWritten"`
	HistorySkipped int `json:"historySkipped"`
}

func (r *Result) count(a Action) {
	switch a {
	case Create:
		r.Created++
	case Skip:
		r.Skipped++
	case Conflict:
		r.Conflicts++
	}
}

// ImportOptions configure Import. A nil *ImportOptions means the zero
// value: a dry run keeping ours.
type ImportOptions struct {
	// Apply writes; without it Import only plans (a dry run).
	Apply bool
	// OnConflict is the conflict policy; "" is KeepOurs.
	OnConflict Policy
	// Actor is recorded in the history of documents written by a conflict
	// policy. Default "mnemobank-import".
	Actor string
	// MaxEntryBytes, MaxEntries and MaxArchiveBytes bound one entry, the
	// number of entries, and the size of a stream spooled to a temporary
	// file (an archive that is a file is read in place). Defaults
	// DefaultMaxEntryBytes, DefaultMaxEntries, DefaultMaxArchiveBytes.
	MaxEntryBytes   int64
	MaxEntries      int
	MaxArchiveBytes int64
	// TempDir holds the spooled copy of a stream (os.TempDir when "").
	TempDir string
	// Report, when set, receives each item of the plan (dry run) or of the
	// import as it is applied: documents, keys and memories (history
	// entries are only counted).
	Report func(Item)
	// Progress, when set, is called during the writes with the entries
	// handled and the entries in all.
	Progress func(done, total int)
}

// Import reads the archive r and, with opts.Apply, writes it into bank and
// mem. It verifies the whole archive before it writes anything: a corrupt,
// truncated or over-limit archive returns an *EntryError naming the entry,
// and the bank is as it was. r is read in place when it is an *os.File or
// another io.ReaderAt and io.Seeker, else copied to a temporary file first
// (at most MaxArchiveBytes). See the package documentation for the rules.
func Import(ctx context.Context, bank *memorybank.Bank, mem Memories, r io.Reader, opts *ImportOptions) (*Result, error) {
	var o ImportOptions
	if opts != nil {
		o = *opts
	}
	policy, err := ParsePolicy(string(o.OnConflict))
	if err != nil {
		return nil, err
	}
	o.OnConflict = policy
	if o.Actor == "" {
		o.Actor = "mnemobank-import"
	}
	if o.MaxEntryBytes <= 0 {
		o.MaxEntryBytes = DefaultMaxEntryBytes
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxArchiveBytes <= 0 {
		o.MaxArchiveBytes = DefaultMaxArchiveBytes
	}
	if bank.Store() == nil {
		return nil, memorybank.ErrNotInitialised
	}
	src, cleanup, err := openSource(r, o.MaxArchiveBytes, o.TempDir)
	if err != nil {
		return nil, err
	}
	defer cleanup()
	im := &importer{bank: bank, store: bank.Store(), mem: mem, o: o, lim: limits{entryBytes: o.MaxEntryBytes, entries: o.MaxEntries},
		branches: map[string]string{}, conflicted: map[string]bool{}, res: &Result{}}

	// 1. Verify everything before the first write.
	m, err := walk(ctx, src, im.lim, im.screened(func(e entry) error {
		if dir, ok := markerDir(e.key); ok {
			var rec struct {
				Branch string `json:"branch"`
			}
			if json.Unmarshal(e.data, &rec) == nil && rec.Branch != "" {
				im.branches[dir] = rec.Branch
			}
		}
		return nil
	}))
	if err != nil {
		return nil, err
	}
	im.res.Manifest = m
	// 2. Plan against the bank.
	if err := im.plan(ctx, src); err != nil {
		return nil, err
	}
	if !o.Apply {
		return im.res, nil
	}
	// 3. Apply.
	im.res = &Result{Manifest: m, Applied: true}
	if err := im.apply(ctx, src); err != nil {
		return im.res, err
	}
	return im.res, nil
}

// openSource returns the archive as a SectionReader: in place when r can
// be read at offsets, else spooled to a temporary file.
func openSource(r io.Reader, max int64, tempDir string) (*io.SectionReader, func(), error) {
	if ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok {
		if size, err := ra.Seek(0, io.SeekEnd); err == nil {
			return io.NewSectionReader(ra, 0, size), func() {}, nil
		}
	}
	f, err := os.CreateTemp(tempDir, "mnemobank-import-*.tar")
	if err != nil {
		return nil, nil, fmt.Errorf("archive: import: a temporary copy of the archive: %w", err)
	}
	cleanup := func() {
		f.Close()
		os.Remove(f.Name())
	}
	n, err := io.Copy(f, io.LimitReader(r, max+1))
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("archive: import: reading the archive: %w", err)
	}
	if n > max {
		cleanup()
		return nil, nil, &EntryError{Reason: fmt.Sprintf("the archive is over %d bytes, the limit for a stream (pass a file, or raise MaxArchiveBytes)", max), Err: ErrLimit}
	}
	return io.NewSectionReader(f, 0, n), cleanup, nil
}

func markerDir(key string) (string, bool) {
	rest, ok := strings.CutPrefix(key, memorybank.BranchPrefix)
	if !ok {
		return "", false
	}
	dir, name, ok := strings.Cut(rest, "/")
	return dir, ok && name == ".branch.json"
}

type importer struct {
	bank     *memorybank.Bank
	store    memorybank.Store
	mem      Memories
	o        ImportOptions
	lim      limits
	branches map[string]string // branch dir -> branch name, from the archive's markers
	// conflicted holds the history directories (and branch directories,
	// as "branch-memory-bank/<dir>/") whose archived keys are not written
	// because ours differs.
	conflicted map[string]bool
	res        *Result
}

func (im *importer) report(it Item) {
	im.res.count(it.Action)
	if im.o.Report != nil && im.res.Applied == im.o.Apply {
		im.o.Report(it)
	}
}

// plan merges the archive's keys with the store's listing (both sorted by
// key), so memory holds only the directories in conflict.
func (im *importer) plan(ctx context.Context, src *io.SectionReader) error {
	next, stop := iter.Pull2(im.store.List(ctx, ""))
	defer stop()
	var dest *memorybank.Object
	advance := func() error {
		obj, err, ok := next()
		if !ok {
			dest = nil
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive: import: listing the bank: %w", err)
		}
		dest = &obj
		return nil
	}
	if err := advance(); err != nil {
		return err
	}
	prevDir := ""
	_, err := walk(ctx, src, im.lim, im.screened(func(e entry) error {
		if e.key == "" {
			return im.planMemories(ctx, e)
		}
		curDir := ""
		if e.kind == kindHistory {
			curDir = dirOfHistoryKey(e.key)
		}
		for dest != nil && dest.Key < e.key {
			if strings.HasPrefix(dest.Key, historyDir) {
				if d := dirOfHistoryKey(dest.Key); d == curDir || d == prevDir {
					im.conflicted[d] = true // ours has entries the archive has not
				}
			}
			if err := advance(); err != nil {
				return err
			}
		}
		exists := dest != nil && dest.Key == e.key
		same := false
		if exists {
			obj, err := im.store.Get(ctx, e.key)
			switch {
			case errors.Is(err, memorybank.ErrNotFound):
				exists = false
			case err != nil:
				return fmt.Errorf("archive: import: reading %q: %w", e.key, err)
			default:
				same = bytes.Equal(obj.Data, e.data)
			}
			if err := advance(); err != nil {
				return err
			}
		}
		switch e.kind {
		case kindHistory:
			prevDir = curDir
			if exists && !same {
				im.conflicted[curDir] = true
			}
			if !exists {
				im.res.HistoryWritten++
			} else {
				im.res.HistorySkipped++
			}
		case kindDoc, kindSkill:
			it := Item{Kind: KindDocument, Key: e.key}
			dir, _ := historyDirOf(e.key)
			prefix, _, _ := splitBankKey(e.key)
			switch {
			case exists && !same:
				it.Action, it.Detail = Conflict, "ours holds other bytes"
			case im.conflicted[prefix]:
				it.Action, it.Detail = Conflict, "ours holds this branch directory for another branch"
			case im.conflicted[dir]:
				it.Action, it.Detail = Conflict, "ours has another history for this path"
			case same:
				it.Action = Skip
			default:
				it.Action = Create
			}
			if it.Action == Conflict {
				im.conflicted[dir] = true
			}
			im.report(it)
		default:
			it := Item{Kind: KindKey, Key: e.key, Action: Create}
			if same {
				it.Action = Skip
			} else if exists {
				it.Action, it.Detail = Conflict, "ours holds other bytes; ours is kept"
				if dir, ok := markerDir(e.key); ok {
					im.conflicted[memorybank.BranchPrefix+dir+"/"] = true
					it.Detail = "ours holds this branch directory for another branch; its documents are conflicts"
				}
			}
			im.report(it)
		}
		return nil
	}))
	// Documents of a history directory found conflicting after them cannot
	// occur: every history key sorts before every document key.
	return err
}

// batchPutter is the optional interface of a Store that writes many keys
// at once as durably as one by one, with fewer syncs (fsstore.PutBatch):
// per object nil, an error matching ErrConflict when cond does not hold,
// or the key's own error; an error that stops the batch.
type batchPutter interface {
	PutBatch(ctx context.Context, objs []memorybank.Object, cond memorybank.Condition) ([]error, error)
}

// Bounds of one batch of writes.
const (
	batchEntries = 512
	batchBytes   = 8 << 20
)

// apply writes the archive: history entries of directories not in
// conflict, documents, keys and memories. On a Store with PutBatch, runs
// of history entries and of documents are written in batches, each
// durable before the next begins; since every history key sorts before
// every document key, history is still on disk before its document.
func (im *importer) apply(ctx context.Context, src *io.SectionReader) error {
	total := im.res.Manifest.Entries
	bp, _ := im.store.(batchPutter)
	var pend []entry
	pendBytes := 0
	flush := func() error {
		if len(pend) == 0 {
			return nil
		}
		objs := make([]memorybank.Object, len(pend))
		for i, e := range pend {
			objs[i] = memorybank.Object{Key: e.key, Data: e.data}
		}
		errs, err := bp.PutBatch(ctx, objs, memorybank.Condition{IfAbsent: true})
		if err != nil {
			return fmt.Errorf("archive: import: writing %d keys from %q: %w", len(pend), pend[0].key, err)
		}
		for i, e := range pend {
			a, err := im.afterPut(ctx, e, errs[i])
			if err != nil {
				return err
			}
			im.finish(ctx, e, a)
		}
		pend, pendBytes = pend[:0], 0
		return nil
	}
	put := func(e entry) error {
		if bp == nil {
			a, err := im.putIfAbsent(ctx, e)
			if err != nil {
				return err
			}
			im.finish(ctx, e, a)
			return nil
		}
		pend = append(pend, e)
		pendBytes += len(e.data)
		if len(pend) >= batchEntries || pendBytes >= batchBytes {
			return flush()
		}
		return nil
	}
	_, err := walk(ctx, src, im.lim, im.screened(func(e entry) error {
		if im.o.Progress != nil {
			im.o.Progress(e.index, total)
		}
		switch {
		case e.key == "":
			if err := flush(); err != nil {
				return err
			}
			return im.applyMemories(ctx, e)
		case e.kind == kindHistory:
			if im.conflicted[dirOfHistoryKey(e.key)] {
				return nil
			}
			return put(e)
		case e.kind == kindDoc || e.kind == kindSkill:
			dir, _ := historyDirOf(e.key)
			prefix, _, _ := splitBankKey(e.key)
			if !im.conflicted[dir] && !im.conflicted[prefix] {
				return put(e)
			}
			if err := flush(); err != nil {
				return err
			}
			im.finish(ctx, e, Conflict)
			return nil
		default:
			if err := flush(); err != nil {
				return err
			}
			a, err := im.putIfAbsent(ctx, e)
			if err != nil {
				return err
			}
			im.finish(ctx, e, a)
			return nil
		}
	}))
	if err == nil {
		err = flush()
	}
	if err == nil && im.o.Progress != nil {
		im.o.Progress(total, total)
	}
	return err
}

// finish counts and reports the entry e once its write did a.
func (im *importer) finish(ctx context.Context, e entry, a Action) {
	switch e.kind {
	case kindHistory:
		if a == Create {
			im.res.HistoryWritten++
		} else {
			im.res.HistorySkipped++
		}
	case kindDoc, kindSkill:
		if a != Conflict {
			im.report(Item{Kind: KindDocument, Key: e.key, Action: a})
			return
		}
		it := Item{Kind: KindDocument, Key: e.key, Action: Conflict, Detail: "ours differs"}
		it.Resolution = im.resolve(ctx, e)
		im.report(it)
	default:
		it := Item{Kind: KindKey, Key: e.key, Action: a}
		if a == Conflict {
			it.Detail, it.Resolution = "ours holds other bytes", "kept ours"
		}
		im.report(it)
	}
}

// putIfAbsent writes e's key if absent: Create when written, Skip when the
// same bytes are there, Conflict when others are.
func (im *importer) putIfAbsent(ctx context.Context, e entry) (Action, error) {
	_, err := im.store.Put(ctx, e.key, e.data, memorybank.Condition{IfAbsent: true})
	return im.afterPut(ctx, e, err)
}

// afterPut is the Action of a create-only write of e that returned err.
func (im *importer) afterPut(ctx context.Context, e entry, err error) (Action, error) {
	if err == nil {
		return Create, nil
	}
	if !errors.Is(err, memorybank.ErrConflict) {
		return "", fmt.Errorf("archive: import: writing %q: %w", e.key, err)
	}
	obj, err := im.store.Get(ctx, e.key)
	if err != nil {
		return "", fmt.Errorf("archive: import: reading %q: %w", e.key, err)
	}
	if bytes.Equal(obj.Data, e.data) {
		return Skip, nil
	}
	return Conflict, nil
}
