package memorybank

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

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
// existing document. The paths come from the bank's index when it has been
// listed (it follows this Bank's own writes), else from one listing of the
// bank. Writers of one Bank lock a document by its folded key, so two
// spellings created at once through one Bank cannot both pass; another
// process creating one at the same moment may slip past, as with any check
// before a write.
func (b *Bank) pathCollision(ctx context.Context, l loc) error {
	var paths []string
	b.mu.Lock()
	idx := b.indexes[l.prefix]
	b.mu.Unlock()
	if idx != nil {
		idx.mu.Lock()
		if idx.listed {
			paths = slices.Clone(idx.sortedPaths())
		}
		idx.mu.Unlock()
	}
	if paths == nil {
		for obj, err := range b.store.List(ctx, l.prefix) {
			if err != nil {
				return err
			}
			if p := strings.TrimPrefix(obj.Key, l.prefix); !reserved(p) {
				paths = append(paths, p)
			}
		}
	}
	fp := foldKey(l.path)
	for _, q := range paths {
		if q == l.path {
			continue
		}
		switch docpath.Collide(fp, foldKey(q)) {
		case docpath.SameFile:
			return fmt.Errorf("%w: %q differs from the existing %q only by letter case or Unicode normalisation, and they would be one file on macOS and Windows; write %q instead",
				ErrPathConflict, l.path, q, q)
		case docpath.UnderDocument:
			return fmt.Errorf("%w: %q would put a document under %q, which is a document, not a folder; choose another path",
				ErrPathConflict, l.path, q)
		case docpath.OverDocuments:
			return fmt.Errorf("%w: %q is a folder holding documents (such as %q), so it cannot also be a document; choose another path",
				ErrPathConflict, l.path, q)
		}
	}
	return nil
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
