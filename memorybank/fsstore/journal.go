package fsstore

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
)

// JournalFileName is the name, in the store's directory, of the write-ahead
// journal (Linux). It is not a key: List skips it and methods reject it.
const JournalFileName = ".memorybank.journal"

// The journal makes a durable Put or Delete cost one append and one
// fdatasync instead of an fsync of the file and one of its directory.
// Under the store lock, a Put writes its temporary file and gives it its
// modification time, appends a record (key, mode, that time, the data) to
// the journal, syncs the journal's data, and only then renames the
// temporary file over the key, without syncing it. A Delete appends a
// record (key, the modification time of the file it removes) before it
// removes the file. A write has returned only after its record is on disk,
// so after a crash of the machine the journal holds every write whose file
// may be missing or stale.
//
// Each record carries the kernel's boot id. A Store opened in the boot that
// wrote the records has nothing to repair (the page cache kept every
// rename, whatever happened to the processes), so Open reads the journal
// only when it holds records of an earlier boot: it then takes the store
// lock and replays, per key, the last record: a Put whose key holds other
// bytes and is not newer than the record (an edit made after it by another
// program is kept) is written again with its time; a Delete whose key holds
// a file not newer than the one it removed removes it. One syncfs(2) makes
// the repairs durable before the journal is emptied.
//
// Once the journal passes journalCheckpoint bytes, the writer that passed
// it makes every file durable with one syncfs(2) and empties the journal,
// so the journal stays small and recovery bounded. Records are framed with
// a magic number, their length and a CRC-32C; a record torn by a crash
// mid-append is skipped and the reader resynchronises at the next magic,
// so a later writer's records after the tear are still read. Data larger
// than journalMaxData is not journalled: such a Put syncs its file and
// directory as on systems without the journal.
const (
	journalCheckpoint = 1 << 20
	journalMaxData    = 1 << 20
	// journalMaxRead bounds what Open reads: the checkpoint plus a few
	// writers' largest records. A larger journal is not ours.
	journalMaxRead = 64 << 20
	journalMagic   = 0x314a424d // "MBJ1" little-endian
	recHeader      = 12         // magic, body length, CRC-32C of the body
	recFixed       = 1 + 16 + 4 + 8 + 2
)

const (
	opPut    = 'P'
	opDelete = 'D'
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// record is one journalled change of a key.
type record struct {
	op    byte
	boot  [16]byte
	perm  fs.FileMode
	mtime int64 // Put: the new file's; Delete: the removed file's (UnixNano)
	key   string
	data  []byte
}

func (r *record) encode() []byte {
	n := recFixed + len(r.key) + len(r.data)
	b := make([]byte, recHeader+n)
	body := b[recHeader:]
	body[0] = r.op
	copy(body[1:17], r.boot[:])
	binary.LittleEndian.PutUint32(body[17:], uint32(r.perm.Perm()))
	binary.LittleEndian.PutUint64(body[21:], uint64(r.mtime))
	binary.LittleEndian.PutUint16(body[29:], uint16(len(r.key)))
	copy(body[recFixed:], r.key)
	copy(body[recFixed+len(r.key):], r.data)
	binary.LittleEndian.PutUint32(b[0:], journalMagic)
	binary.LittleEndian.PutUint32(b[4:], uint32(n))
	binary.LittleEndian.PutUint32(b[8:], crc32.Checksum(body, castagnoli))
	return b
}

// parseJournal returns the whole records of b in order, skipping torn or
// foreign bytes.
func parseJournal(b []byte) []record {
	var recs []record
	var magic [4]byte
	binary.LittleEndian.PutUint32(magic[:], journalMagic)
	for len(b) >= recHeader {
		if r, n, ok := parseRecord(b); ok {
			recs = append(recs, r)
			b = b[n:]
			continue
		}
		i := bytes.Index(b[1:], magic[:])
		if i < 0 {
			break
		}
		b = b[1+i:]
	}
	return recs
}

func parseRecord(b []byte) (record, int, bool) {
	if binary.LittleEndian.Uint32(b) != journalMagic {
		return record{}, 0, false
	}
	n := int(binary.LittleEndian.Uint32(b[4:]))
	if n < recFixed || n > len(b)-recHeader {
		return record{}, 0, false
	}
	body := b[recHeader : recHeader+n]
	if crc32.Checksum(body, castagnoli) != binary.LittleEndian.Uint32(b[8:]) {
		return record{}, 0, false
	}
	r := record{op: body[0], perm: fs.FileMode(binary.LittleEndian.Uint32(body[17:])).Perm(),
		mtime: int64(binary.LittleEndian.Uint64(body[21:]))}
	copy(r.boot[:], body[1:17])
	kl := int(binary.LittleEndian.Uint16(body[29:]))
	if recFixed+kl > n || (r.op != opPut && r.op != opDelete) {
		return record{}, 0, false
	}
	r.key = string(body[recFixed : recFixed+kl])
	r.data = body[recFixed+kl:]
	return r, recHeader + n, true
}

// journal is the write-ahead journal of a Store and its views. Its file is
// opened by the first journalled write and kept open; every use is under
// the store lock.
type journal struct {
	f    *os.File
	boot [16]byte
}

// open opens the journal file for appending, once.
func (j *journal) open(root *os.Root, perm fs.FileMode) error {
	if j.f != nil {
		return nil
	}
	f, err := root.OpenFile(JournalFileName, os.O_RDWR|os.O_APPEND|os.O_CREATE, perm)
	if err != nil {
		return fmt.Errorf("open the journal %s: %w", JournalFileName, err)
	}
	j.f = f
	return nil
}

func (j *journal) close() error {
	if j == nil || j.f == nil {
		return nil
	}
	err := j.f.Close()
	j.f = nil
	return err
}

// appendSync appends r and syncs the journal's data, and returns the
// journal's size after it. The caller holds the store lock.
func (s *Store) appendSync(r record) (int64, error) {
	j := s.jnl
	if err := j.open(s.root, s.opts.FileMode); err != nil {
		return 0, err
	}
	r.boot = j.boot
	if _, err := j.f.Write(r.encode()); err != nil {
		return 0, fmt.Errorf("append to the journal %s: %w", JournalFileName, err)
	}
	if !s.ordered { // an ordered write is synced by the next durable one
		if err := fdatasync(j.f); err != nil {
			return 0, fmt.Errorf("sync the journal %s: %w", JournalFileName, err)
		}
	}
	if s.afterJournal != nil {
		s.afterJournal()
	}
	size, err := j.f.Seek(0, io.SeekCurrent)
	if err != nil {
		return 0, fmt.Errorf("journal %s: %w", JournalFileName, err)
	}
	return size, nil
}

// checkpoint makes every file the journal covers durable, then empties
// it. The caller holds the store lock.
func (s *Store) checkpoint() error {
	if _, err := syncFS(s.root); err != nil {
		return fmt.Errorf("checkpoint the journal: %w", err)
	}
	j := s.jnl
	if err := j.open(s.root, s.opts.FileMode); err != nil {
		return err
	}
	if err := j.f.Truncate(0); err != nil {
		return fmt.Errorf("empty the journal %s: %w", JournalFileName, err)
	}
	if err := fdatasync(j.f); err != nil {
		return fmt.Errorf("sync the journal %s: %w", JournalFileName, err)
	}
	return nil
}

// maybeCheckpoint checkpoints once the journal has grown past
// journalCheckpoint. The write that called it is complete either way; a
// failure only leaves the journal longer.
func (s *Store) maybeCheckpoint(size int64) error {
	if size < journalCheckpoint {
		return nil
	}
	return s.checkpoint()
}

// journalled reports whether a durable write of n bytes goes through the
// journal.
func (s *Store) journalled(n int) bool {
	return s.jnl != nil && !s.lazy && n <= journalMaxData
}

// recoverJournal replays, at Open, the records an earlier boot left (see
// the journal's description above). It reads the journal without the lock
// first, so an Open in the same boot costs one read of a small file.
func (s *Store) recoverJournal() error {
	recs, err := s.readJournal()
	if err != nil || !s.fromEarlierBoot(recs) {
		return err
	}
	unlock, err := s.lock(context.Background())
	if err != nil {
		return fmt.Errorf("recover the journal: %w", err)
	}
	defer unlock()
	if recs, err = s.readJournal(); err != nil || !s.fromEarlierBoot(recs) {
		return err // another process recovered it meanwhile
	}
	last := map[string]int{}
	var order []string
	for i, r := range recs {
		if _, ok := last[r.key]; !ok {
			order = append(order, r.key)
		}
		last[r.key] = i
	}
	done, err := s.countChange()
	if err != nil {
		return err
	}
	defer done()
	for _, k := range order {
		r := recs[last[k]]
		if err := validateKey(r.key); err != nil {
			continue // not a record this store wrote
		}
		if err := s.replay(r); err != nil {
			return fmt.Errorf("recover %q from the journal %s: %w", r.key, JournalFileName, err)
		}
	}
	return s.checkpoint()
}

// readJournal reads and parses the journal; none is no records.
func (s *Store) readJournal() ([]record, error) {
	f, err := s.root.Open(JournalFileName)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read the journal %s: %w", JournalFileName, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("read the journal %s: %w", JournalFileName, err)
	}
	if fi.Size() > journalMaxRead {
		return nil, fmt.Errorf("the journal %s is %d bytes, over the %d a store's journal can reach; it was not written by this store (move it away to open the store)",
			path.Join(s.dir, JournalFileName), fi.Size(), journalMaxRead)
	}
	b, err := readAll(f, fi.Size())
	if err != nil {
		return nil, fmt.Errorf("read the journal %s: %w", JournalFileName, err)
	}
	return parseJournal(b), nil
}

// fromEarlierBoot reports whether any record was written before the
// current boot (or the boot is unknown).
func (s *Store) fromEarlierBoot(recs []record) bool {
	for _, r := range recs {
		if r.boot != s.jnl.boot || s.jnl.boot == ([16]byte{}) {
			return true
		}
	}
	return false
}

// replay makes key hold what its last record says, unless the file is
// already so or was changed after the record. The caller holds the lock.
func (s *Store) replay(r record) error {
	t := time.Unix(0, r.mtime)
	fi, err := s.root.Stat(r.key)
	exists := err == nil && fi.Mode().IsRegular()
	if err != nil && !isNotExist(err) {
		return err
	}
	if err == nil && !exists {
		return nil // a directory or special file took the name since: keep it
	}
	switch r.op {
	case opDelete:
		if !exists || fi.ModTime().After(t) {
			return nil
		}
		if err := s.root.Remove(r.key); err != nil && !isNotExist(err) {
			return err
		}
		s.removeEmptyParents(path.Dir(r.key))
		return nil
	default:
		if exists {
			if fi.ModTime().After(t) {
				return nil
			}
			if cur, err := s.root.ReadFile(r.key); err == nil && bytes.Equal(cur, r.data) {
				return nil
			}
		}
		return atomicfile.Write(s.root, r.key, r.data, &atomicfile.Options{
			Perm: r.perm, DirPerm: s.opts.DirMode, NoSync: true, Created: func(string) {},
			BeforeCommit: func(tmp string) error {
				if err := s.root.Chmod(tmp, r.perm); err != nil {
					return err
				}
				return s.root.Chtimes(tmp, t, t)
			},
		})
	}
}

// removeEmptyParents removes dir and its parents while they are empty real
// directories (never a symbolic link to one), and returns the first it
// kept.
func (s *Store) removeEmptyParents(dir string) string {
	for dir != "." {
		fi, err := s.root.Lstat(dir)
		if err != nil || !fi.IsDir() || s.root.Remove(dir) != nil {
			break
		}
		dir = path.Dir(dir)
	}
	return dir
}
