package archive

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// A document and its history are one unit. A history entry arrives only
// with its document: the archive holds the document, or the tombstone of
// a deleted one. Entries of a directory that has neither are not imported
// (planted history: a later write of that path would find its version 1
// taken and revert would restore text nobody wrote here), and the dry run
// names the directory. A document's unit is written under the document's
// lock, the one the Bank's writers take, document first (create-only) and
// then its entries: a writer that created the document meanwhile wins and
// no entry of the archive lands under its document; one that updates it
// after continues after the archive's versions.

// ref is where an entry's bytes lie in the archive, so a unit can be
// written when its document comes without holding its history in memory.
type ref struct {
	key  string
	off  int64
	size int64
	sum  [sha256.Size]byte
}

func refOf(e entry) ref { return ref{key: e.key, off: e.off, size: e.size, sum: e.sum} }

// read returns the bytes of r, checked again: the archive is read in place
// and could have changed since it was verified.
func (r ref) read(src *io.SectionReader) ([]byte, error) {
	data := make([]byte, r.size)
	if _, err := src.ReadAt(data, r.off); err != nil && !(errors.Is(err, io.EOF) && len(data) == 0) {
		return nil, fmt.Errorf("archive: import: reading %q again: %w", storeDir+r.key, err)
	}
	if sha256.Sum256(data) != r.sum {
		return nil, &EntryError{Entry: storeDir + r.key, Reason: "changed since it was verified; the import stopped", Err: ErrCorrupt}
	}
	return data, nil
}

// writeUnit writes the archived document e and, when it is ours now (we
// created it, or it already holds the same bytes), its history entries, all
// under the document's lock.
func (im *importer) writeUnit(ctx context.Context, src *io.SectionReader, e entry) (Action, error) {
	unlock, err := im.bank.LockDocument(ctx, e.key)
	if err != nil {
		return "", fmt.Errorf("archive: import: locking %q: %w", e.key, err)
	}
	defer unlock()
	a, err := im.putIfAbsent(ctx, e)
	if err != nil || a == Conflict {
		return a, err
	}
	dir, _ := historyDirOf(e.key)
	refs := im.hist[dir]
	if len(refs) == 0 {
		return a, nil
	}
	objs := make([]memorybank.Object, 0, len(refs))
	for _, r := range refs {
		data, err := im.readRef(r, src)
		if err != nil {
			return "", err
		}
		objs = append(objs, memorybank.Object{Key: r.key, Data: data})
	}
	errs := make([]error, len(objs))
	if bp, ok := im.hstore.(memorybank.BatchPutter); ok {
		if errs, err = bp.PutBatch(ctx, objs, memorybank.Condition{IfAbsent: true}); err != nil {
			return "", fmt.Errorf("archive: import: writing the history of %q: %w", e.key, err)
		}
	} else {
		for i, o := range objs {
			_, errs[i] = im.hstore.Put(ctx, o.Key, o.Data, memorybank.Condition{IfAbsent: true})
		}
	}
	for i, o := range objs {
		ha, err := im.afterPut(ctx, entry{key: o.Key, data: o.Data}, errs[i])
		if err != nil {
			return "", err
		}
		if ha == Create {
			im.res.HistoryWritten++
		} else {
			im.res.HistorySkipped++ // the same bytes, or another writer's entry, kept
		}
	}
	return a, nil
}

// checkKey judges an archived key, before anything is written, by the
// rules of the target store (a name it keeps for itself) and of every
// store of files (a key cannot be a file and a folder at once: "a.md"
// beside "a.md/b.md").
func (im *importer) checkKey(e entry) error {
	if kc, ok := im.store.(keyChecker); ok {
		if err := kc.CheckKey(e.key); err != nil {
			return &EntryError{Entry: e.name, Index: e.index, Reason: "the target store refuses this key: " + err.Error(), Err: ErrUnsafeName}
		}
	}
	for i := strings.IndexByte(e.key, '/'); i >= 0; i = next(e.key, i) {
		if _, ok := im.files[e.key[:i]]; ok {
			return &EntryError{Entry: e.name, Index: e.index, Err: ErrUnsafeName,
				Reason: fmt.Sprintf("is inside %q, which the archive holds as a file: a key cannot be both a file and a folder", storeDir+e.key[:i])}
		}
	}
	im.files[e.key] = struct{}{}
	return nil
}

func next(key string, i int) int {
	j := strings.IndexByte(key[i+1:], '/')
	if j < 0 {
		return -1
	}
	return i + 1 + j
}

// keyChecker is the optional interface of a Store that judges a key's name
// without I/O (fsstore.Store.CheckKey).
type keyChecker interface {
	CheckKey(key string) error
}

// collides reports why key cannot be written beside what ours holds: a
// document of ours is a file where key needs a folder, or ours holds keys
// under key. "" when it can.
func (im *importer) collides(ctx context.Context, key string) (string, error) {
	for i := strings.IndexByte(key, '/'); i >= 0; i = next(key, i) {
		parent := key[:i]
		known, ok := im.fileOurs[parent]
		if !ok {
			_, err := im.store.Get(ctx, parent)
			switch {
			case err == nil:
				known = true
			case errors.Is(err, memorybank.ErrNotFound), errors.Is(err, memorybank.ErrInvalidKey):
			default:
				return "", fmt.Errorf("archive: import: reading %q: %w", parent, err)
			}
			im.fileOurs[parent] = known
		}
		if known {
			return fmt.Sprintf("ours holds %q, a file where this key needs a folder", parent), nil
		}
	}
	for obj, err := range im.store.List(ctx, key+"/") {
		if err != nil {
			return "", fmt.Errorf("archive: import: listing %q: %w", key+"/", err)
		}
		return fmt.Sprintf("ours holds %q, inside a folder where this key needs a file", obj.Key), nil
	}
	return "", nil
}
