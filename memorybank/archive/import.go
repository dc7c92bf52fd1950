package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
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
	// Refuse: not imported, whatever the policy: a document over the
	// bank's size limit for a write, or history without its document.
	Refuse Action = "refuse"
)

// Item kinds.
const (
	KindDocument = "document"
	KindKey      = "key"    // a branch marker or a key outside the banks
	KindMemory   = "memory" // a learned memory (Key is its id)
	KindTrash    = "trash"  // a memory in the trash (Key is its id)
	// KindHistory is the history of a document the archive does not hold
	// (Key is its history directory): a deleted document's, with its
	// tombstone, or entries without either, which are refused.
	KindHistory = "history"
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
	Refused   int       `json:"refused"`
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
	case Refuse:
		r.Refused++
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
	// number of entries, and the size of a stream copied to the Spool (an
	// archive that can be read at offsets is read in place). Defaults
	// DefaultMaxEntryBytes, DefaultMaxEntries, DefaultMaxArchiveBytes.
	MaxEntryBytes   int64
	MaxEntries      int
	MaxArchiveBytes int64
	// Spool holds the copy of an archive that is a stream (standard
	// input), which Import reads three times. nil: memory; a host
	// importing large streams passes a temporary file.
	Spool Spool
	// Report, when set, receives each item of the plan (dry run) or of the
	// import as it is applied: documents, keys, memories, and the history
	// directories of documents the archive does not hold (a deleted
	// document's, or refused ones); a document's own history entries are
	// counted, in its item's Detail and in the Result.
	Report func(Item)
	// Progress, when set, is called during the writes with the entries
	// handled and the entries in all.
	Progress func(done, total int)
}

// Import reads the archive r and, with opts.Apply, writes it into bank and
// mem. It verifies the whole archive before it writes anything: a corrupt,
// truncated or over-limit archive returns an *EntryError naming the entry,
// and the bank is as it was. r is read in place when it is an *os.File or
// another io.ReaderAt and io.Seeker, else copied to opts.Spool first (at
// most MaxArchiveBytes). See the package documentation for the rules.
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
	src, err := openSource(r, o.MaxArchiveBytes, o.Spool)
	if err != nil {
		return nil, err
	}
	im := &importer{bank: bank, store: bank.Store(), hstore: bank.Store(), mem: mem, o: o, lim: limits{entryBytes: o.MaxEntryBytes, entries: o.MaxEntries},
		maxDoc:   bank.Options().MaxDocumentBytes,
		branches: map[string]string{}, conflicted: map[string]bool{}, res: &Result{},
		files: map[string]struct{}{}, fileOurs: map[string]bool{}, docDirs: map[string]bool{}, tombs: map[string]ref{}, hist: map[string][]ref{}, refused: map[string]string{}, dirItems: map[string]Item{}}
	if lw, ok := im.store.(memorybank.LazyWriter); ok {
		// As the Bank records a write's entry: after the document's
		// durable Put; a crash may leave a gap the next run fills.
		im.hstore = lw.Lazy()
	}

	// 1. Verify everything before the first write, every key by the
	// target store's rules too.
	m, err := walk(ctx, src, im.lim, im.screened(func(e entry) error {
		if e.key == "" {
			return nil
		}
		if err := im.checkKey(e); err != nil {
			return err
		}
		switch e.kind {
		case kindDoc, kindSkill:
			dir, _ := historyDirOf(e.key)
			im.docDirs[dir] = true
		case kindHistory:
			if strings.HasSuffix(e.key, "/"+histio.TombstoneName) {
				im.tombs[dirOfHistoryKey(e.key)] = refOf(e)
			}
		}
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
	im.files = nil
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
// be read at offsets, else copied to spool (nil: memory).
func openSource(r io.Reader, max int64, spool Spool) (*io.SectionReader, error) {
	if ra, ok := r.(interface {
		io.ReaderAt
		io.Seeker
	}); ok {
		if size, err := ra.Seek(0, io.SeekEnd); err == nil {
			return io.NewSectionReader(ra, 0, size), nil
		}
	}
	if spool == nil {
		spool = &memSpool{}
	}
	n, err := io.Copy(spool, io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("archive: import: copying the archive to the spool: %w", err)
	}
	if n > max {
		return nil, &EntryError{Reason: fmt.Sprintf("the archive is over %d bytes, the limit for a stream (pass a file, or raise MaxArchiveBytes)", max), Err: ErrLimit}
	}
	return io.NewSectionReader(spool, 0, n), nil
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
	bank   *memorybank.Bank
	store  memorybank.Store
	hstore memorybank.Store // history entries: store, or its Lazy view
	mem    Memories
	o      ImportOptions
	lim    limits
	maxDoc int // the bank's MaxDocumentBytes, which a write obeys
	// files holds the archive's keys while they are verified, to find one
	// that is a file where another needs a folder.
	files map[string]struct{}
	// fileOurs caches, per folder an archived key needs, whether ours
	// holds a file there.
	fileOurs map[string]bool
	// docDirs and tombs are the history directories whose document, or
	// whose tombstone, the archive holds: only their entries are imported.
	docDirs map[string]bool
	tombs   map[string]ref
	// hist holds where the entries of each document's history lie, written
	// with the document.
	hist map[string][]ref
	// refused holds the keys not imported whatever the policy, and why.
	refused map[string]string
	// dirItems are the items of history directories without a document:
	// a deleted document's (by its tombstone) or refused.
	dirItems map[string]Item
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
	bp, _ := im.store.(memorybank.BatchPutter)
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
	lastDir := ""
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
			dir := dirOfHistoryKey(e.key)
			tomb, deleted := im.tombs[dir]
			switch {
			case im.docDirs[dir]:
				return nil // written with its document
			case !deleted:
				if dir != lastDir {
					im.report(im.dirItems[dir]) // refused
				}
				lastDir = dir
				return nil
			case im.conflicted[dir]:
				if e.key == tomb.key {
					im.report(im.dirItems[dir])
				}
				return nil
			}
			if dir != lastDir {
				// The tombstone first: a writer that creates this path
				// meanwhile then continues after the archive's versions.
				lastDir = dir
				data, err := im.readRef(tomb, src)
				if err != nil {
					return err
				}
				if err := put(entry{key: tomb.key, kind: kindHistory, data: data}); err != nil {
					return err
				}
			}
			if e.key == tomb.key {
				im.report(im.dirItems[dir])
				return nil // written first
			}
			return put(e)
		case e.kind == kindDoc || e.kind == kindSkill:
			if err := flush(); err != nil {
				return err
			}
			if _, ok := im.refused[e.key]; ok {
				im.finish(ctx, e, Refuse)
				return nil
			}
			dir, _ := historyDirOf(e.key)
			prefix, _, _ := splitBankKey(e.key)
			a := Conflict
			if !im.conflicted[dir] && !im.conflicted[prefix] {
				var err error
				if a, err = im.writeUnit(ctx, src, e); err != nil {
					return err
				}
			}
			im.finish(ctx, e, a)
			return nil
		default:
			if err := flush(); err != nil {
				return err
			}
			if _, ok := im.refused[e.key]; ok {
				im.finish(ctx, e, Refuse)
				return nil
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
		if a == Refuse {
			im.report(Item{Kind: KindDocument, Key: e.key, Action: a, Detail: im.refused[e.key]})
			return
		}
		if a != Conflict {
			im.report(Item{Kind: KindDocument, Key: e.key, Action: a})
			return
		}
		it := Item{Kind: KindDocument, Key: e.key, Action: Conflict, Detail: "ours differs"}
		it.Resolution = im.resolve(ctx, e)
		im.report(it)
	default:
		it := Item{Kind: KindKey, Key: e.key, Action: a, Detail: im.refused[e.key]}
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
