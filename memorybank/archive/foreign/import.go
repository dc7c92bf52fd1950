package foreign

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// Options configure Import. A nil *Options is a dry run keeping ours.
type Options struct {
	// Apply writes; without it Import only plans.
	Apply bool
	// OnConflict decides what happens to a document the bank holds with
	// other text, as in an archive import: archive.KeepOurs (the default),
	// archive.KeepTheirs (written as the next version of ours, which stays
	// in the history), archive.KeepBoth (written beside ours at
	// "<name>.imported<ext>").
	OnConflict archive.Policy
	// Actor and Reason are recorded in the history of what is written.
	// Defaults "mnemobank-import" and "import from <Source>".
	Actor, Reason string
	// Source names the source in reasons ("claude-code ./proj").
	Source string
	// Report, when set, receives each item of the plan or of the import.
	Report func(archive.Item)
}

// Result sums up an import.
type Result struct {
	Applied   bool `json:"applied"`
	Created   int  `json:"created"`
	Skipped   int  `json:"skipped"`
	Conflicts int  `json:"conflicts"`
	// Failed counts documents the bank refused (a name that collides with
	// another's up to letter case): each is reported with the reason, and
	// the rest is still imported.
	Failed int `json:"failed"`
	// NotRead counts the files a reader left out (Doc.NotRead), each
	// reported with why.
	NotRead int `json:"notRead"`
}

// NotRead is the Action of a file a reader left out: it is reported, with
// why in the Item's Detail, and nothing is written.
const NotRead archive.Action = "not-read"

// Import writes docs into bank's global bank (a dry run without
// opts.Apply): a document the bank does not hold is created, one it holds
// with the same text, title and tags is skipped, one it holds otherwise is
// a conflict, settled by opts.OnConflict. Claude memory tool files
// (Doc.MemoryFile) are written through claudememory.BankFiles, so the tool
// reads them back byte for byte. A text whose front matter the bank cannot
// read is written with that block kept as text, and the item says so.
// Errors of the bank other than refusals of one document stop the import
// and are returned.
func Import(ctx context.Context, bank *memorybank.Bank, docs []Doc, opts *Options) (*Result, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	policy, err := archive.ParsePolicy(string(o.OnConflict))
	if err != nil {
		return nil, err
	}
	o.OnConflict = policy
	if o.Actor == "" {
		o.Actor = "mnemobank-import"
	}
	if o.Reason == "" {
		o.Reason = "import from " + o.Source
	}
	if bank.Store() == nil {
		return nil, memorybank.ErrNotInitialised
	}
	im := &foreignImporter{bank: bank, o: o, res: &Result{Applied: o.Apply}}
	for _, d := range docs {
		if err := ctx.Err(); err != nil {
			return im.res, err
		}
		var it archive.Item
		var err error
		if d.NotRead != "" {
			im.res.NotRead++
			if o.Report != nil {
				o.Report(archive.Item{Kind: "file", Key: d.Source, Action: NotRead, Detail: d.NotRead})
			}
			continue
		}
		if d.MemoryFile {
			it, err = im.memoryFile(ctx, d)
		} else {
			it, err = im.document(ctx, d)
		}
		if err != nil {
			return im.res, err
		}
		switch it.Action {
		case archive.Create:
			im.res.Created++
		case archive.Skip:
			im.res.Skipped++
		case archive.Conflict:
			im.res.Conflicts++
		}
		if strings.HasPrefix(it.Resolution, "not written") {
			im.res.Failed++
		}
		if o.Report != nil {
			o.Report(it)
		}
	}
	return im.res, nil
}

type foreignImporter struct {
	bank *memorybank.Bank
	o    Options
	res  *Result
}

// refused reports whether err is the bank refusing this one document
// (its name or content), as opposed to the store failing.
func refused(err error) bool {
	return errors.Is(err, memorybank.ErrPathConflict) || errors.Is(err, memorybank.ErrInvalidKey) ||
		errors.Is(err, memorybank.ErrLimitExceeded) || errors.Is(err, memorybank.ErrInvalidRequest) || errors.Is(err, memorybank.ErrInvalidPath) || errors.Is(err, memorybank.ErrValidation) || errors.Is(err, memorybank.ErrCorrupt) || errors.Is(err, claudememory.ErrInvalidPath) ||
		errors.Is(err, claudememory.ErrExists) || errors.Is(err, claudememory.ErrNotFile)
}

// theirs is the write of d: its text with front matter read, or, when the
// bank cannot read that front matter, the text kept whole.
func (im *foreignImporter) theirs(ctx context.Context, d Doc) (memorybank.WriteRequest, *memorybank.Document, string, error) {
	req := memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: d.Path, Text: d.Text, Actor: im.o.Actor,
		Reason: im.o.Reason + ": " + d.Source, Provenance: &memorybank.Provenance{Tool: "import", Source: d.Source}}
	scratch := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{MaxDocumentBytes: max(2*len(d.Text)+4096, memorybank.DefaultMaxDocumentBytes)})
	note := ""
	if _, err := scratch.Write(ctx, req); err != nil {
		env, jerr := json.Marshal(map[string]any{"metadata": map[string]any{}, "content": d.Text})
		if jerr != nil {
			return req, nil, "", jerr
		}
		req.Text, req.Content = "", env
		if _, err2 := scratch.Write(ctx, req); err2 != nil {
			return req, nil, "", err2
		}
		note = "its front matter is not metadata the bank reads (" + err.Error() + "): kept as text"
	}
	doc, err := scratch.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: d.Path})
	return req, doc, note, err
}

func same(a, b *memorybank.Document) bool {
	return a.Text() == b.Text() && a.Title == b.Title && a.DocumentType == b.DocumentType && slices.Equal(a.Tags, b.Tags)
}

func (im *foreignImporter) document(ctx context.Context, d Doc) (archive.Item, error) {
	it := archive.Item{Kind: archive.KindDocument, Key: d.Path}
	req, theirs, note, err := im.theirs(ctx, d)
	if err != nil {
		if refused(err) {
			it.Action, it.Resolution = archive.Conflict, "not written: "+err.Error()
			return it, nil
		}
		return it, err
	}
	it.Detail = note
	rr := memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: d.Path}
	ours, err := im.bank.Read(ctx, rr)
	switch {
	case errors.Is(err, memorybank.ErrNotFound):
		it.Action = archive.Create
	case err != nil && refused(err):
		it.Action, it.Resolution = archive.Conflict, "not written: "+err.Error()
		return it, nil
	case err != nil:
		return it, err
	case same(ours, theirs):
		it.Action = archive.Skip
	default:
		it.Action, it.Detail = archive.Conflict, joinDetail("ours holds other text", note)
	}
	if !im.o.Apply || it.Action == archive.Skip {
		return it, nil
	}
	if it.Action == archive.Create {
		req.Mode = memorybank.ModeCreate
		if _, err := im.bank.Write(ctx, req); err != nil {
			if refused(err) || errors.Is(err, memorybank.ErrExists) {
				it.Action, it.Resolution = archive.Conflict, "not written: "+err.Error()
				return it, nil
			}
			return it, err
		}
		return it, im.asWritten(ctx, d, note)
	}
	switch im.o.OnConflict {
	case archive.KeepOurs:
		it.Resolution = "kept ours"
	case archive.KeepTheirs:
		req.Mode, req.IfVersion = memorybank.ModeUpdate, ours.Version
		res, err := im.bank.Write(ctx, req)
		if err != nil {
			it.Resolution = "not written (kept ours): " + err.Error()
			return it, nil
		}
		if err := im.asWritten(ctx, d, note); err != nil {
			return it, err
		}
		it.Resolution = fmt.Sprintf("theirs written as version %d (ours stays in the history)", res.Version)
	default:
		it.Resolution = im.besideOurs(d.Path, func(alt string) (bool, string, error) {
			there, err := im.bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: alt})
			if err == nil {
				return same(there, theirs), "", nil
			}
			if !errors.Is(err, memorybank.ErrNotFound) {
				return false, "", err
			}
			r := req
			r.Path, r.Mode = alt, memorybank.ModeCreate
			_, err = im.bank.Write(ctx, r)
			if errors.Is(err, memorybank.ErrExists) {
				return false, "", nil
			}
			if err == nil {
				at := d
				at.Path = alt
				err = im.asWritten(ctx, at, note)
			}
			return false, "written", err
		})
	}
	return it, nil
}

// besideOurs tries p's ".imported" names in turn with try, which says
// whether theirs is already there or that it wrote it.
func (im *foreignImporter) besideOurs(p string, try func(alt string) (already bool, wrote string, err error)) string {
	ext := path.Ext(p)
	stem := strings.TrimSuffix(p, ext)
	for n := 1; n <= 100; n++ {
		alt := stem + ".imported" + ext
		if n > 1 {
			alt = stem + ".imported-" + strconv.Itoa(n) + ext
		}
		already, wrote, err := try(alt)
		switch {
		case err != nil:
			return "not written (kept ours): " + err.Error()
		case already:
			return "kept both: theirs is already at " + alt
		case wrote != "":
			return "kept both: theirs written to " + alt
		}
	}
	return "not written (kept ours): " + stem + ".imported-1..100" + ext + " are all taken"
}

func (im *foreignImporter) memoryFile(ctx context.Context, d Doc) (archive.Item, error) {
	it := archive.Item{Kind: archive.KindDocument, Key: d.Path}
	files := claudememory.BankFiles(im.bank)
	rel := strings.TrimPrefix(d.Path, claudememory.BankPrefix)
	text, ver, err := files.ReadText(ctx, rel)
	switch {
	case errors.Is(err, memorybank.ErrNotFound):
		it.Action = archive.Create
	case err != nil && refused(err):
		it.Action, it.Resolution = archive.Conflict, "not written: "+err.Error()
		return it, nil
	case err != nil:
		return it, err
	case text == d.Text:
		it.Action = archive.Skip
	default:
		it.Action, it.Detail = archive.Conflict, "ours holds other text"
	}
	if !im.o.Apply || it.Action == archive.Skip {
		return it, nil
	}
	if it.Action == archive.Create {
		if _, err := files.WriteText(ctx, rel, d.Text, memorybank.Condition{IfAbsent: true}); err != nil {
			if refused(err) || errors.Is(err, memorybank.ErrConflict) {
				it.Action, it.Resolution = archive.Conflict, "not written: "+err.Error()
				return it, nil
			}
			return it, err
		}
		return it, nil
	}
	switch im.o.OnConflict {
	case archive.KeepOurs:
		it.Resolution = "kept ours"
	case archive.KeepTheirs:
		v, err := files.WriteText(ctx, rel, d.Text, memorybank.Condition{IfVersion: ver})
		if err != nil {
			it.Resolution = "not written (kept ours): " + err.Error()
			return it, nil
		}
		it.Resolution = "theirs written as version " + v + " (ours stays in the history)"
	default:
		it.Resolution = im.besideOurs(d.Path, func(alt string) (bool, string, error) {
			altRel := strings.TrimPrefix(alt, claudememory.BankPrefix)
			there, _, err := files.ReadText(ctx, altRel)
			if err == nil {
				return there == d.Text, "", nil
			}
			if !errors.Is(err, memorybank.ErrNotFound) {
				return false, "", err
			}
			_, err = files.WriteText(ctx, altRel, d.Text, memorybank.Condition{IfAbsent: true})
			if errors.Is(err, memorybank.ErrConflict) {
				return false, "", nil
			}
			return false, "written", err
		})
	}
	return it, nil
}

// asWritten puts d's text, byte for byte, in place of the document the
// bank has just written at d.Path (the bank's write checked the name, the
// size and the path's collisions, and recorded the history): the note's
// front matter stays as its author wrote it, where other tools (Obsidian's
// tags, basic-memory's permalink) read it, and the bank reads its title and
// tags from it as from any Markdown file written by another tool. A text
// whose front matter the bank cannot read (note is set) stays as the bank
// wrote it, the block kept as text. A change made meanwhile is never
// overwritten: the replacement is conditional on the bank's write.
func (im *foreignImporter) asWritten(ctx context.Context, d Doc, note string) error {
	if note != "" {
		return nil
	}
	st := im.bank.Store()
	key := memorybank.GlobalPrefix + d.Path
	obj, err := st.Get(ctx, key)
	if err != nil {
		return err
	}
	_, err = st.Put(ctx, key, []byte(d.Text), memorybank.Condition{IfVersion: obj.Version})
	if errors.Is(err, memorybank.ErrConflict) {
		return nil // changed meanwhile: that write stands
	}
	return err
}

func joinDetail(a, b string) string {
	if b == "" {
		return a
	}
	return a + "; " + b
}
