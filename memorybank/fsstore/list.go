package fsstore

import (
	"cmp"
	"context"
	"fmt"
	"io/fs"
	"iter"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/memorybank"
)

// List walks the directory and yields, in key order, the regular files whose
// path is a valid key starting with prefix. It takes no lock and streams:
// only one directory's entries are held at a time.
//
// Skipped, not fatal: the lock file, temporary files, files whose path is
// not a valid key, anything that is not a regular file, symbolic links to
// directories (never followed, so links cannot make cycles) and symbolic
// links that leave the directory. A symbolic link to a regular file inside
// the directory is listed, as Get reads it.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[memorybank.Object, error] {
	return func(yield func(memorybank.Object, error) bool) {
		if err := ctx.Err(); err != nil {
			yield(memorybank.Object{}, err)
			return
		}
		start := "."
		if i := strings.LastIndexByte(prefix, '/'); i >= 0 {
			start = prefix[:i]
		}
		if !fs.ValidPath(start) {
			return // no valid key starts with prefix
		}
		if ok, err := s.isRealDir(start); err != nil || !ok {
			if err != nil {
				yield(memorybank.Object{}, err)
			}
			return
		}
		w := walker{s: s, ctx: ctx, prefix: prefix, yield: yield}
		if err := w.walk(start); err != nil && err != errStop {
			yield(memorybank.Object{}, err)
		}
	}
}

type walker struct {
	s      *Store
	ctx    context.Context
	prefix string
	yield  func(memorybank.Object, error) bool
}

// errStop ends the walk when the consumer stops iterating.
var errStop = fmt.Errorf("stop")

type entry struct {
	name  string
	sort  string // name, plus "/" for a directory: the order of keys under it
	isDir bool
	de    fs.DirEntry
}

func (w *walker) walk(dir string) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	des, err := fs.ReadDir(w.s.root.FS(), dir)
	if err != nil {
		if isNotExist(err) {
			return nil
		}
		return fmt.Errorf("fsstore: list %q: %w", dir, err)
	}
	entries := make([]entry, 0, len(des))
	for _, de := range des {
		e := entry{name: de.Name(), sort: de.Name(), isDir: de.IsDir(), de: de}
		if e.isDir {
			e.sort += "/"
		}
		entries = append(entries, e)
	}
	// Keys compare in byte order; a directory's keys all start with
	// "name/", so sorting directories as "name/" keeps the walk in key order
	// ("a-b" < "a.json" < "a/x" < "ab").
	slices.SortFunc(entries, func(a, b entry) int { return cmp.Compare(a.sort, b.sort) })

	for _, e := range entries {
		rel := e.name
		if dir != "." {
			rel = dir + "/" + e.name
		}
		if e.isDir {
			sub := rel + "/"
			if strings.HasPrefix(sub, w.prefix) || strings.HasPrefix(w.prefix, sub) {
				if err := w.walk(rel); err != nil {
					return err
				}
			}
			continue
		}
		if !strings.HasPrefix(rel, w.prefix) || atomicfile.IsTemp(e.name) || validateKey(rel) != nil {
			continue
		}
		fi, err := e.de.Info()
		if err != nil {
			continue // removed since ReadDir
		}
		if fi.Mode()&fs.ModeSymlink != 0 {
			if fi, err = w.s.root.Stat(rel); err != nil {
				continue // dangling, or leaves the root
			}
		}
		if !fi.Mode().IsRegular() {
			continue
		}
		if err := w.ctx.Err(); err != nil {
			return err
		}
		if !w.yield(memorybank.Object{Key: rel, Version: version(fi), ModTime: fi.ModTime()}, nil) {
			return errStop
		}
	}
	return nil
}

// isRealDir reports whether dir and each of its parents is a directory, not
// a symbolic link (List does not follow links to directories).
func (s *Store) isRealDir(dir string) (bool, error) {
	if dir == "." {
		return true, nil
	}
	for i := 0; i <= len(dir); i++ {
		if i < len(dir) && dir[i] != '/' {
			continue
		}
		fi, err := s.root.Lstat(dir[:i])
		if err != nil {
			if isNotExist(err) {
				return false, nil
			}
			return false, fmt.Errorf("fsstore: list %q: %w", dir, err)
		}
		if !fi.IsDir() {
			return false, nil
		}
	}
	return true, nil
}
