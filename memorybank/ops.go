package memorybank

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
)

// loc is a resolved document location.
type loc struct {
	scope  Scope
	branch string
	prefix string // store key prefix of the bank, ending in "/"
	path   string
	key    string
	// unclaimed: a branch bank whose marker locate did not find, which a
	// write claims once its document is valid (see Write).
	unclaimed bool
}

func (l loc) describe() string { return l.public().Where() }

func (l loc) public() Location {
	return Location{Scope: l.scope, Branch: l.branch, Path: l.path, Prefix: l.prefix, Key: l.key}
}

// Location is where a document lives: its bank and path, and the Store
// keys the Bank keeps it under.
type Location struct {
	Scope  Scope
	Branch string
	Path   string
	// Prefix is the bank's key prefix: GlobalPrefix, or BranchPrefix +
	// the branch directory + "/". Key is the document's: Prefix + Path.
	Prefix, Key string
}

// Where names the document's bank, for messages: "global bank" or
// "branch bank of \"feature/x\"".
func (l Location) Where() string {
	if l.Scope == ScopeBranch {
		return fmt.Sprintf("branch bank of %q", l.Branch)
	}
	return "global bank"
}

// Document returns what Read returns for the document at l whose canonical
// envelope is envelope: the form Read's Content has for a JSON document and
// patches apply to ({"schema","metadata","content":"<text>"} for a text
// document). A journal that rebuilds a past version gives it back this way.
func (l Location) Document(envelope []byte) (*Document, error) {
	e, ok := codec.SplitEnvelope(codec.FormatOf(l.Path), l.Path, envelope)
	if !ok {
		return nil, corrupt(l.Path, errors.New("the envelope is not a JSON object"))
	}
	return documentOf(e, l.Scope, l.Branch, time.Time{})
}

// Locate validates a document's name as Read does and returns where the
// document lives, without reading it (a branch bank's directory may be
// read to resolve the branch). The document need not exist.
func (b *Bank) Locate(ctx context.Context, req ReadRequest) (Location, error) {
	if err := b.ready(); err != nil {
		return Location{}, err
	}
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return Location{}, err
	}
	return l.public(), nil
}

// bankPrefix resolves a scope and branch to the key prefix of its bank.
func (b *Bank) bankPrefix(ctx context.Context, scope Scope, branch string, claim bool) (string, error) {
	switch scope {
	case ScopeGlobal:
		return GlobalPrefix, nil
	case ScopeBranch:
		if branch == "" {
			return "", invalidRequest("scope \"branch\" needs a branch name (the current git branch, e.g. \"feature/login\")")
		}
		dir, err := b.branchDir(ctx, branch, claim)
		if err != nil {
			return "", err
		}
		return BranchPrefix + dir + "/", nil
	case "":
		return "", invalidRequest("scope is missing; use \"branch\" or \"global\"")
	}
	return "", invalidRequest("scope %q is not \"branch\" or \"global\"", scope)
}

func (b *Bank) locate(ctx context.Context, scope Scope, branch, p string, claim bool) (loc, error) {
	if err := validatePath(p); err != nil {
		return loc{}, err
	}
	prefix, err := b.bankPrefix(ctx, scope, branch, claim)
	if err != nil {
		return loc{}, err
	}
	if scope != ScopeBranch {
		return newLoc(scope, "", prefix, p)
	}
	l, err := newLoc(scope, branch, prefix, p)
	if err == nil && !claim {
		b.mu.Lock()
		_, known := b.branches[strings.TrimSuffix(strings.TrimPrefix(prefix, BranchPrefix), "/")]
		b.mu.Unlock()
		l.unclaimed = !known
	}
	return l, err
}

// newLoc places the valid path p in the bank at prefix, refusing it when
// its key would be longer than a key may be.
func newLoc(scope Scope, branch, prefix, p string) (loc, error) {
	l := loc{scope: scope, branch: branch, prefix: prefix, path: p, key: prefix + p}
	if len(l.key) > MaxKeyLen {
		return loc{}, fmt.Errorf("%w: %q is %d bytes long; the %s stores it under %q, and a key is at most %d bytes, so a path there is at most %d bytes",
			ErrInvalidPath, p, len(p), l.describe(), prefix, MaxKeyLen, MaxKeyLen-len(prefix))
	}
	return l, nil
}

// validatePath checks a document path: a valid Store key whose segments do
// not start with "." (reserved for the Bank's own records).
func validatePath(p string) error {
	if p == "" {
		return fmt.Errorf("%w: path is empty; give a relative path such as \"activeContext.json\" or \"notes/db.md\"", ErrInvalidPath)
	}
	if err := ValidateKey(p); err != nil {
		var ke *KeyError
		if errors.As(err, &ke) {
			return fmt.Errorf("%w: %q: %s", ErrInvalidPath, p, ke.Reason)
		}
		return fmt.Errorf("%w: %q: %v", ErrInvalidPath, p, err)
	}
	for seg := range strings.SplitSeq(p, "/") {
		if strings.HasPrefix(seg, ".") {
			return fmt.Errorf("%w: %q: segment %q starts with '.', which the bank reserves for its own records", ErrInvalidPath, p, seg)
		}
	}
	return nil
}

// Read returns one document, canonicalised: ErrNotFound when it does not
// exist.
func (b *Bank) Read(ctx context.Context, req ReadRequest) (*Document, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	obj, err := b.store.Get(ctx, l.key)
	if errors.Is(err, ErrNotFound) {
		return nil, fmt.Errorf("%w: %q in the %s; list the bank to see which documents exist", ErrNotFound, l.path, l.describe())
	}
	if err != nil {
		return nil, err
	}
	e, err := decodeStored(codec.FormatOf(l.path), l.path, obj.Data)
	if err != nil {
		return nil, err
	}
	return documentOf(e, l.scope, l.branch, obj.ModTime)
}

// Delete removes one document: ErrNotFound when it does not exist, a
// *ConflictError when IfVersion is set and is not the current version.
func (b *Bank) Delete(ctx context.Context, req DeleteRequest) error {
	if err := b.ready(); err != nil {
		return err
	}
	if req.IfVersion < 0 {
		return invalidRequest("delete %q: ifVersion %d must be a positive version, or 0 for none", req.Path, req.IfVersion)
	}
	if err := ValidateActor(req.Actor); err != nil {
		return err
	}
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return err
	}
	if err := checkHistoryKeys(l); err != nil {
		return err
	}
	unlock, err := b.lockDocument(ctx, l.key) // spellings of one name queue together
	if err != nil {
		return err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		if attempt > 0 {
			if err := backoff(ctx, attempt-1); err != nil {
				return err
			}
		}
		obj, err := b.store.Get(ctx, l.key)
		if errors.Is(err, ErrNotFound) {
			if req.IfVersion != 0 {
				return &ConflictError{Path: l.path, IfVersion: req.IfVersion}
			}
			return fmt.Errorf("%w: %q in the %s", ErrNotFound, l.path, l.describe())
		}
		if err != nil {
			return err
		}
		old, derr := decodeStored(codec.FormatOf(l.path), l.path, obj.Data)
		cur := int64(0)
		if derr == nil {
			cur = old.Version()
		}
		if req.IfVersion != 0 && cur != req.IfVersion {
			return &ConflictError{Path: l.path, IfVersion: req.IfVersion, CurrentVersion: cur}
		}
		// The delete consumes version cur+1: record it before the document
		// goes, so a re-creation never reuses a version even if this
		// process stops right after the delete. Nothing follows the
		// largest version (edited by hand): such a path starts again.
		numbered := cur < math.MaxInt64
		if numbered {
			// Through the Ordered view when the store has one: the
			// Delete below makes it durable with itself.
			if _, err := b.ahead.Put(ctx, histio.Tombstone(l.prefix, l.path), histio.EncodeTombstone(cur+1), Condition{}); err != nil {
				return err
			}
			b.own.Add(1)
		}
		err = b.store.Delete(ctx, l.key, Condition{IfVersion: obj.Version})
		if err == nil {
			b.wrote(l, obj.Version, "", nil)
			// A file without front matter has no numbered versions to record.
			if numbered && (old == nil || !old.Bare) {
				b.recordDelete(ctx, l, req, old, cur+1)
			}
			return nil
		}
		if !errors.Is(err, ErrConflict) && !errors.Is(err, ErrNotFound) {
			return err
		}
		if attempt >= b.opts.MaxRetries {
			return fmt.Errorf("%w: %q: gave up after %d attempts because other writers kept changing the document", ErrConflict, l.path, attempt+1)
		}
	}
}

// List describes the documents of one bank whose path starts with Prefix,
// sorted by path, from Offset on and at most Limit of them (0: all). It is
// served by the index, so it reads only documents changed since the index
// last saw them.
func (b *Bank) List(ctx context.Context, req ListRequest) ([]ListEntry, error) {
	p, err := b.ListPage(ctx, req)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// ListPage is List with the number of matching documents: a page of a
// large bank copies only the entries it returns.
func (b *Bank) ListPage(ctx context.Context, req ListRequest) (*Page[ListEntry], error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	if req.Offset < 0 || req.Limit < 0 {
		return nil, invalidRequest("list: offset %d and limit %d must not be negative", req.Offset, req.Limit)
	}
	prefix, err := b.bankPrefix(ctx, req.Scope, req.Branch, false)
	if err != nil {
		return nil, err
	}
	idx, err := b.entryIndex(ctx, prefix)
	if err != nil {
		return nil, err
	}
	defer idx.mu.Unlock()
	entries, total := idx.list(req.Prefix, req.Offset, req.Limit)
	return &Page[ListEntry]{Items: entries, Total: total}, nil
}

// Paths lists the paths of the documents of one bank whose path starts with
// Prefix, sorted, without reading any document: it is served by the index's
// paths, so a warm call costs one change-count check whatever the size of
// the bank.
func (b *Bank) Paths(ctx context.Context, req ListRequest) ([]string, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	prefix, err := b.bankPrefix(ctx, req.Scope, req.Branch, false)
	if err != nil {
		return nil, err
	}
	idx, err := b.pathIndex(ctx, prefix)
	if err != nil {
		return nil, err
	}
	defer idx.mu.Unlock()
	sorted := idx.sortedPaths()
	i, _ := slices.BinarySearch(sorted, req.Prefix)
	j := i
	for j < len(sorted) && strings.HasPrefix(sorted[j], req.Prefix) {
		j++
	}
	return slices.Clone(sorted[i:j]), nil
}
