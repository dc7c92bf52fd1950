package memorybank

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/memorybank/internal/docpath"
)

// Paths and branch names that differ only by letter case or by Unicode
// normalisation ("É.md" and "é.md"; "é" composed or decomposed) are distinct
// keys on Linux but one file on macOS and Windows, so a bank copied there
// would lose one of them. The Bank refuses the second spelling, naming the
// first, and likewise a document under a path that is also a document
// ("a" and "a/b"), which no file system can hold.

// foldKey is the form two names share when a case-insensitive,
// normalisation-insensitive file system would take them for one: Unicode
// case folding, then NFC.
func foldKey(s string) string { return docpath.Fold(s) }

// pathCollision checks a path about to be created in the bank at l against
// the paths the bank holds: an error wrapping ErrPathConflict names the
// existing document. The check looks the folded path and its folders up in
// the folded paths of the bank's catalog, as current as its listing (see
// catalog.go), so it costs the same however large the bank is. Writers of one Bank lock a document by its folded
// key, so two spellings created at once through one Bank cannot both pass;
// another process creating one at the same moment may slip past, as with
// any check before a write.
func (b *Bank) pathCollision(ctx context.Context, l loc, clock func() time.Time) error {
	idx, err := b.pathIndexBy(ctx, l.prefix, clock)
	if err != nil {
		return err
	}
	defer idx.mu.Unlock()
	fx := idx.foldsOf()
	fp := foldKey(l.path)
	if q := fx.other(fp, l.path); q != "" {
		return fmt.Errorf("%w: %q differs from the existing %q only by letter case or Unicode normalisation, and they would be one file on macOS and Windows; write %q instead",
			ErrPathConflict, l.path, q, q)
	}
	for i := range len(fp) {
		if fp[i] != '/' {
			continue
		}
		if q := fx.other(fp[:i], l.path); q != "" {
			return fmt.Errorf("%w: %q would put a document under %q, which is a document, not a folder; choose another path",
				ErrPathConflict, l.path, q)
		}
	}
	if fx.dirs[fp] > 0 {
		q := ""
		for f, ps := range fx.docs {
			if docpath.Collide(fp, f) == docpath.OverDocuments {
				for _, p := range ps {
					if q == "" || p < q {
						q = p
					}
				}
			}
		}
		return fmt.Errorf("%w: %q is a folder holding documents (such as %q), so it cannot also be a document; choose another path",
			ErrPathConflict, l.path, q)
	}
	return nil
}

// foldIndex is what pathCollision looks paths up in: the folded form of
// every document path of one bank, and of every folder holding one. It is
// part of the bank's catalog: derived from its paths the first time a
// document is created after a listing, and kept by the Bank's own creates
// and deletes.
type foldIndex struct {
	docs map[string][]string // folded path -> the paths folding to it
	dirs map[string]int      // folded folder -> documents under it, at any depth
}

// foldsOf returns the catalog's folded paths, deriving them from its paths
// when it has none. idx.mu is held.
func (idx *catalog) foldsOf() *foldIndex {
	if idx.folds == nil {
		fx := &foldIndex{docs: make(map[string][]string, len(idx.paths)), dirs: map[string]int{}}
		for p := range idx.paths {
			fx.add(p)
		}
		idx.folds = fx
	}
	return idx.folds
}

// other returns one path other than self whose folded form is f, or "".
func (fx *foldIndex) other(f, self string) string {
	q := ""
	for _, p := range fx.docs[f] {
		if p != self && (q == "" || p < q) {
			q = p
		}
	}
	return q
}

// add records the document path p; adding a path held already does nothing.
func (fx *foldIndex) add(p string) {
	f := foldKey(p)
	if slices.Contains(fx.docs[f], p) {
		return
	}
	fx.docs[f] = append(fx.docs[f], p)
	for i := range len(f) {
		if f[i] == '/' {
			fx.dirs[f[:i]]++
		}
	}
}

// remove forgets the document path p, if held.
func (fx *foldIndex) remove(p string) {
	f := foldKey(p)
	ps := fx.docs[f]
	i := slices.Index(ps, p)
	if i < 0 {
		return
	}
	if ps = slices.Delete(ps, i, i+1); len(ps) == 0 {
		delete(fx.docs, f)
	} else {
		fx.docs[f] = ps
	}
	for i := range len(f) {
		if f[i] == '/' {
			if fx.dirs[f[:i]]--; fx.dirs[f[:i]] <= 0 {
				delete(fx.dirs, f[:i])
			}
		}
	}
}

// branchDirCollision reports a branch directory other than dir whose name
// differs from it only by case or normalisation ("Feature-X" and
// "feature-x"), by listing the branch banks. It runs only when a branch
// bank is created, so its cost (one listing of the branch banks) is paid
// once per branch.
func (b *Bank) branchDirCollision(ctx context.Context, name, dir string) error {
	fd := foldKey(dir)
	for obj, err := range b.store.List(ctx, BranchPrefix) {
		if err != nil {
			return err
		}
		other, _, ok := strings.Cut(strings.TrimPrefix(obj.Key, BranchPrefix), "/")
		if ok && other != dir && foldKey(other) == fd {
			owner := other
			if o, err := b.store.Get(ctx, BranchPrefix+other+"/"+branchMarker); err == nil {
				var rec branchRecord
				if json.Unmarshal(o.Data, &rec) == nil && rec.Branch != "" {
					owner = rec.Branch
				}
			}
			return &BranchError{Branch: name, Dir: dir, Owner: owner, Err: ErrBranchCollision,
				Reason: fmt.Sprintf("directory %q of branch %q differs from %q only by letter case or Unicode normalisation", other, owner, dir)}
		}
	}
	return nil
}
