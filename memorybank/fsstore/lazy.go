package fsstore

import (
	"os"
	"path"
	"sync"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/memorybank"
)

var _ memorybank.LazyWriter = (*Store)(nil)

// Lazy returns a view of the Store whose Put and Delete skip the fsyncs
// (see [memorybank.LazyWriter]): a Put still writes a temporary file and
// renames it over the key under the store lock, with the same
// compare-and-swap, versions and change count, so readers in every process
// see the old file or the new one; but after a crash of the machine the key
// may hold its earlier file, none, or an empty or torn one. Directories a
// Put creates are not synced either: a durable Put through this Store (or
// another view of it) into such a directory first makes it durable, so it
// is never lost with it. (A Store opened on the same directory by another
// process does not know them; a Bank writes through the view only to its
// own history directories, which no durable write uses.) A Bank writes its
// history entries this way, after the document's own durable Put, so a
// write waits for the disk once. Closing the view does nothing; close the
// Store.
func (s *Store) Lazy() memorybank.Store {
	if s == nil {
		return s
	}
	v := *s
	v.lazy = true
	return &v
}

var _ memorybank.OrderedWriter = (*Store)(nil)

// Ordered returns a view of the Store whose Put and Delete are journalled
// but do not sync the journal (see [memorybank.OrderedWriter]): the next
// durable write of any Store on the directory syncs the journal, and with
// it their records, before it returns. Where writes are not journalled
// (data over 1 MiB, systems without the journal) they are durable
// themselves. Closing the view does nothing; close the Store.
func (s *Store) Ordered() memorybank.Store {
	if s == nil {
		return s
	}
	v := *s
	v.ordered = true
	return &v
}

// maxLazyDirs bounds the directories a Store remembers as created without
// a sync; past it, a lazy Put syncs the directories it creates.
const maxLazyDirs = 4096

// lazyDirs holds the directories lazy Puts created without syncing their
// parents, shared by a Store and its views.
type lazyDirs struct {
	mu   sync.Mutex
	dirs map[string]struct{}
}

// created records dir, made by a lazy Put, or syncs its parent when the
// set is full.
func (s *Store) created(dir string) error {
	u := s.unsynced
	u.mu.Lock()
	full := len(u.dirs) >= maxLazyDirs
	if !full {
		if u.dirs == nil {
			u.dirs = map[string]struct{}{}
		}
		u.dirs[dir] = struct{}{}
	}
	u.mu.Unlock()
	if full {
		return s.syncDir(s.root, path.Dir(dir))
	}
	return nil
}

// durableDirs makes durable, for a durable Put of key, the entries of the
// directories above it that lazy Puts created. A lazy Put has nothing to
// do.
func (s *Store) durableDirs(key string) error {
	if s.lazy {
		return nil
	}
	u := s.unsynced
	u.mu.Lock()
	var todo []string
	if len(u.dirs) > 0 {
		for d := path.Dir(key); d != "."; d = path.Dir(d) {
			if _, ok := u.dirs[d]; ok {
				todo = append(todo, d)
			}
		}
	}
	u.mu.Unlock()
	for _, d := range todo {
		if err := s.syncDir(s.root, path.Dir(d)); err != nil {
			return err
		}
		u.mu.Lock()
		delete(u.dirs, d)
		u.mu.Unlock()
	}
	return nil
}

// syncDir is atomicfile.SyncDir; tests count the syncs through it.
func (s *Store) syncDir(root *os.Root, dir string) error {
	if s.syncHook != nil {
		s.syncHook(dir)
	}
	return atomicfile.SyncDir(root, dir)
}
