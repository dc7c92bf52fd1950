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
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// ChangesFileName is the name, in the store's directory, of the file that
// counts the store's changes ([Store.Changes]). It is not a key: List skips
// it and methods reject it.
const ChangesFileName = ".memorybank.changes"

var _ memorybank.ChangeCounter = (*Store)(nil)

// The change counter is 16 bytes: a random epoch, written when the file is
// created, and a little-endian count, then one byte that is 1 while a write
// is in flight. Put and Delete add one to the count and set that byte under
// the store lock just before they change the directory, so a change is
// never missed, even by a writer killed mid-write; a write that then fails
// has counted one change too many, which only makes Banks reconcile once.
// They clear the byte when the change is made (or failed). While it is set,
// Changes answers with an epoch of its own that no other reading shares: a
// reader that listed the directory in the middle of a write (count already
// moved, file not yet renamed) must not take that listing as current for
// the count, so it looks again next time; a writer killed mid-write leaves
// the byte set, which only makes readers look every time until the next
// write clears it. The file is not fsynced: it only has to survive the
// writer's process (the page cache does), and after a power failure every
// process that could remember an older count is gone too. A deleted or
// truncated file starts a new epoch.
const (
	changesSize = 16
	// inFlight is the offset of the byte that is 1 while a write is in
	// flight; files written before it existed have no such byte.
	inFlight = changesSize
)

// countChange adds one to the change count. The caller holds the store lock
// and calls done once the change is made or has failed.
func (s *Store) countChange() (done func(), err error) { return s.countChanges(1) }

// countChanges adds n to the change count and marks a write in flight until
// done is called. The caller holds the store lock.
func (s *Store) countChanges(n uint64) (done func(), err error) {
	f, err := s.changesFile()
	if err != nil {
		return nil, fmt.Errorf("fsstore: count the change in %s: %w", ChangesFileName, err)
	}
	var buf [changesSize + 1]byte
	if n, err := f.ReadAt(buf[:changesSize], 0); n < changesSize {
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, fmt.Errorf("fsstore: count the change in %s: %w", ChangesFileName, err)
		}
		_, _ = rand.Read(buf[:8]) // crypto/rand.Read never fails
		binary.LittleEndian.PutUint64(buf[8:], 0)
	}
	binary.LittleEndian.PutUint64(buf[8:], binary.LittleEndian.Uint64(buf[8:])+n)
	buf[inFlight] = 1
	if _, err := f.WriteAt(buf[:], 0); err != nil {
		return nil, fmt.Errorf("fsstore: count the change in %s: %w", ChangesFileName, err)
	}
	return func() {
		// Best effort: a byte left set only makes readers look again.
		_, _ = f.WriteAt([]byte{0}, inFlight)
	}, nil
}

// Changes returns the count of changes made through any Store on this
// directory, in any process: each Put and Delete that changed the directory
// added at least one (see [memorybank.ChangeCounter]). Edits made by other
// programs are not counted. It reads one small file and takes no lock.
// While a write is in flight it answers with an epoch no other reading
// shares, so that nothing read meanwhile is taken as current.
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
	var buf [changesSize + 1]byte
	n, err := f.ReadAt(buf[:], 0)
	if n < changesSize {
		if err != nil && !errors.Is(err, io.EOF) {
			return memorybank.ChangeCount{}, fmt.Errorf("fsstore: read %s: %w", ChangesFileName, err)
		}
		return memorybank.ChangeCount{Epoch: "none"}, nil
	}
	epoch := hex.EncodeToString(buf[:8])
	if n > inFlight && buf[inFlight] != 0 {
		var nonce [8]byte
		_, _ = rand.Read(nonce[:]) // crypto/rand.Read never fails
		epoch += writingMark + hex.EncodeToString(nonce[:])
	}
	return memorybank.ChangeCount{Epoch: epoch, N: binary.LittleEndian.Uint64(buf[8:16])}, nil
}

// writingMark separates an epoch from the nonce Changes adds to it while a
// write is in flight.
const writingMark = "-writing-"

// settled is c without the mark of a write in flight, for comparing counts
// as such (the change poller): the same count read twice mid-write is one
// move, not many.
func settled(c memorybank.ChangeCount) memorybank.ChangeCount {
	if i := strings.Index(c.Epoch, writingMark); i >= 0 {
		c.Epoch = c.Epoch[:i]
	}
	return c
}
