package fsstore

import (
	"context"
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"

	"github.com/mnemobank/mnemobank/memorybank"
)

// ChangesFileName is the name, in the store's directory, of the file that
// counts the store's changes ([Store.Changes]). It is not a key: List skips
// it and methods reject it.
const ChangesFileName = ".memorybank.changes"

var _ memorybank.ChangeCounter = (*Store)(nil)

// The change counter is 16 bytes: a random epoch, written when the file is
// created, and a little-endian count. Put and Delete add one to the count
// under the store lock just before they change the directory, so a change
// is never missed, even by a writer killed mid-write; a write that then
// fails has counted one change too many, which only makes Banks reconcile
// once. The file is not fsynced: it only has to survive the writer's
// process (the page cache does), and after a power failure every process
// that could remember an older count is gone too. A deleted or truncated
// file starts a new epoch.
const changesSize = 16

// countChange adds one to the change count. The caller holds the store lock.
func (s *Store) countChange() error { return s.countChanges(1) }

// countChanges adds n to the change count. The caller holds the store lock.
func (s *Store) countChanges(n uint64) error {
	f, err := s.root.OpenFile(ChangesFileName, os.O_RDWR|os.O_CREATE, s.opts.FileMode)
	if err != nil {
		return fmt.Errorf("fsstore: count the change in %s: %w", ChangesFileName, err)
	}
	defer f.Close()
	var buf [changesSize]byte
	if n, err := f.ReadAt(buf[:], 0); n < changesSize {
		if err != nil && !errors.Is(err, io.EOF) {
			return fmt.Errorf("fsstore: count the change in %s: %w", ChangesFileName, err)
		}
		_, _ = rand.Read(buf[:8]) // crypto/rand.Read never fails
		binary.LittleEndian.PutUint64(buf[8:], 0)
	}
	binary.LittleEndian.PutUint64(buf[8:], binary.LittleEndian.Uint64(buf[8:])+n)
	if _, err := f.WriteAt(buf[:], 0); err != nil {
		return fmt.Errorf("fsstore: count the change in %s: %w", ChangesFileName, err)
	}
	return nil
}

// Changes returns the count of changes made through any Store on this
// directory, in any process: each Put and Delete that changed the directory
// added at least one (see [memorybank.ChangeCounter]). Edits made by other
// programs are not counted. It reads one small file and takes no lock.
func (s *Store) Changes(ctx context.Context) (memorybank.ChangeCount, error) {
	if err := ctx.Err(); err != nil {
		return memorybank.ChangeCount{}, err
	}
	f, err := s.root.Open(ChangesFileName)
	if errors.Is(err, fs.ErrNotExist) {
		return memorybank.ChangeCount{Epoch: "none"}, nil
	}
	if err != nil {
		return memorybank.ChangeCount{}, fmt.Errorf("fsstore: read %s: %w", ChangesFileName, err)
	}
	defer f.Close()
	var buf [changesSize]byte
	if n, err := f.ReadAt(buf[:], 0); n < changesSize {
		if err != nil && !errors.Is(err, io.EOF) {
			return memorybank.ChangeCount{}, fmt.Errorf("fsstore: read %s: %w", ChangesFileName, err)
		}
		return memorybank.ChangeCount{Epoch: "none"}, nil
	}
	return memorybank.ChangeCount{Epoch: hex.EncodeToString(buf[:8]), N: binary.LittleEndian.Uint64(buf[8:])}, nil
}
