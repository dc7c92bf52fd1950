package archive

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// resolve applies the conflict policy to the archived document e and says
// what was done. Failures are reported in the result, not returned: ours
// is then kept, and the rest of the archive is still imported.
func (im *importer) resolve(ctx context.Context, e entry) string {
	if im.o.OnConflict == KeepOurs {
		return "kept ours"
	}
	theirs, req, err := im.readTheirs(ctx, e)
	if err != nil {
		return "kept ours: the archived document cannot be read: " + err.Error()
	}
	switch im.o.OnConflict {
	case KeepTheirs:
		ours, err := im.bank.Read(ctx, req)
		var ifVersion int64
		mode := memorybank.ModeCreate
		switch {
		case err == nil:
			if sameDocument(ours, theirs) {
				return "kept: ours already holds theirs"
			}
			ifVersion, mode = ours.Version, memorybank.ModeUpdate
		case !errors.Is(err, memorybank.ErrNotFound):
			return "kept ours: " + err.Error()
		}
		res, err := im.bank.Write(ctx, writeOf(theirs, req, mode, ifVersion, im.o.Actor,
			fmt.Sprintf("import: theirs (archived version %d) replaces ours", theirs.Version)))
		if err != nil {
			return "kept ours: " + err.Error()
		}
		return fmt.Sprintf("theirs written as version %d (ours stays in the history)", res.Version)
	default: // KeepBoth
		ext := path.Ext(req.Path)
		stem := strings.TrimSuffix(req.Path, ext)
		for n := 1; n <= 100; n++ {
			alt := req
			alt.Path = stem + ".imported" + ext
			if n > 1 {
				alt.Path = fmt.Sprintf("%s.imported-%d%s", stem, n, ext)
			}
			there, err := im.bank.Read(ctx, alt)
			if err == nil {
				if sameDocument(there, theirs) {
					return "kept both: theirs is already at " + alt.Path
				}
				continue
			}
			if !errors.Is(err, memorybank.ErrNotFound) {
				return "kept ours: " + err.Error()
			}
			_, err = im.bank.Write(ctx, writeOf(theirs, alt, memorybank.ModeCreate, 0, im.o.Actor,
				fmt.Sprintf("import: theirs of %s (archived version %d), kept beside ours", req.Path, theirs.Version)))
			if errors.Is(err, memorybank.ErrExists) {
				continue
			}
			if err != nil {
				return "kept ours: " + err.Error()
			}
			return "kept both: theirs written to " + alt.Path
		}
		return "kept ours: " + stem + ".imported-1..100" + ext + " are all taken"
	}
}

// readTheirs decodes the archived document e through a Bank over a
// MemStore holding only it (and its branch marker).
func (im *importer) readTheirs(ctx context.Context, e entry) (*memorybank.Document, memorybank.ReadRequest, error) {
	prefix, p, _ := splitBankKey(e.key)
	req := memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: p}
	tmp := &memorybank.MemStore{}
	if prefix != memorybank.GlobalPrefix {
		dir := strings.TrimSuffix(prefix[len(memorybank.BranchPrefix):], "/")
		name, ok := im.branches[dir]
		if !ok {
			name = dir // a directory without a marker: its name, if it is a branch's
		}
		if d, err := memorybank.BranchDir(name); err != nil || d != dir {
			return nil, req, fmt.Errorf("the branch of directory %q is not known (the archive has no marker for it)", dir)
		}
		req.Scope, req.Branch = memorybank.ScopeBranch, name
		marker, _ := json.Marshal(map[string]string{"branch": name})
		if _, err := tmp.Put(ctx, prefix+".branch.json", append(marker, '\n'), memorybank.Condition{}); err != nil {
			return nil, req, err
		}
	}
	if _, err := tmp.Put(ctx, e.key, e.data, memorybank.Condition{}); err != nil {
		return nil, req, err
	}
	doc, err := memorybank.New(tmp, &memorybank.Options{MaxDocumentBytes: max(len(e.data), memorybank.DefaultMaxDocumentBytes)}).Read(ctx, req)
	return doc, req, err
}

// writeOf is the write of theirs' content and metadata at req.
func writeOf(theirs *memorybank.Document, req memorybank.ReadRequest, mode memorybank.Mode, ifVersion int64, actor, reason string) memorybank.WriteRequest {
	w := memorybank.WriteRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path, Mode: mode, IfVersion: ifVersion,
		Tags: append([]string{}, theirs.Tags...), Actor: actor, Reason: reason, Provenance: &memorybank.Provenance{Tool: "import", Source: "archive"}}
	if theirs.Format == memorybank.FormatJSON {
		w.Content = theirs.Content
	} else {
		env, _ := json.Marshal(struct {
			Metadata json.RawMessage `json:"metadata"`
			Content  string          `json:"content"`
		}{theirs.Metadata, theirs.Text()})
		w.Content = env
	}
	return w
}

// sameDocument reports whether two documents say the same: content, title,
// type and tags (not versions or times).
func sameDocument(a, b *memorybank.Document) bool {
	if a.Format != b.Format || a.Title != b.Title || a.DocumentType != b.DocumentType || !slices.Equal(a.Tags, b.Tags) {
		return false
	}
	if a.Format != memorybank.FormatJSON {
		return a.Text() == b.Text()
	}
	var ea, eb struct {
		Content json.RawMessage `json:"content"`
	}
	return json.Unmarshal(a.Content, &ea) == nil && json.Unmarshal(b.Content, &eb) == nil && bytes.Equal(ea.Content, eb.Content)
}
