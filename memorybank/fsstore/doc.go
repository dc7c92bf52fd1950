// Package fsstore is a [memorybank.Store] kept in a directory on disk, one
// file per key: key "global-memory-bank/progress.md" is the file
// "global-memory-bank/progress.md" under the directory, so existing
// memory-bank folders are read as they are and the files stay readable and
// editable by people and other tools.
//
//	store, err := fsstore.Open("/path/to/bank", nil)
//	defer store.Close()
//
// It passes [github.com/mnemobank/mnemobank/memorybank/storetest.TestStore], plus tests of its own for what only a
// file system can get wrong: two OS processes doing compare-and-swap on one
// file, writers SIGKILLed mid-write, and symbolic links planted in the
// directory.
//
// # Durability
//
// On Linux a durable Put or Delete costs one append to a write-ahead
// journal, the file ".memorybank.journal" in the directory, and one
// fdatasync of it: Put writes a temporary file in the target's directory,
// appends a record of the write (key, mode, modification time, data) to
// the journal, syncs the journal, and renames the temporary file over the
// target without syncing the file or its directory. A Delete journals the
// removal before it removes the file. Files stay plain files, readable and
// editable by other tools, and a process killed at any instant leaves the
// old file or the new one, never a torn one. After a crash of the machine
// some renames may be lost: the next Open notices records of an earlier
// boot (each carries the kernel's boot id), replays each key's last record
// unless the key was changed after it by another program, syncs the file
// system once and empties the journal. An Open in the same boot reads the
// journal only. When the journal passes 1 MiB, the writer that passed it
// syncs the file system (syncfs(2)) and empties it, so it stays small.
// Data over 1 MiB, and every write on other systems, is not journalled:
// the temporary file is fsynced, renamed, and the directory fsynced (see
// internal/atomicfile).
//
// A killed writer may leave a temporary
// file named ".atomicfile-<hex>.tmp"; such names are not keys, List skips
// them, and Open removes those older than a minute (under the store lock,
// spending at most about a second walking the directory; what it does not
// reach waits for the next Open).
// Directories are created as needed; Delete removes the parent directories
// it leaves empty.
//
// [Store.Lazy] is a view whose Put and Delete skip the journal and the
// fsyncs, even of the directories it creates (the next durable Put into one
// syncs it, unless journalled), while the rename stays atomic for readers:
// a [memorybank.Bank] writes a document's history entry through it after
// the document's durable Put, so a write waits for the disk once.
// [Store.Ordered] is a view whose writes are journalled without syncing the
// journal: the next durable write syncs them with its own record (a Bank's
// delete writes its tombstone so). The change count is never fsynced (see
// [Store.Changes]).
//
// # Compare-and-swap across processes
//
// Put and Delete hold one exclusive lock per store, an flock(2) on the file
// ".memorybank.lock" in the directory, for the whole read-check-write, so
// compare-and-swap holds between goroutines, between Stores opened on the
// same directory, and between processes (two agents in two worktrees sharing
// one memory-bank folder). The wait is bounded by Options.LockTimeout
// (default 10s); on timeout the write fails with an error matching
// [ErrLockTimeout] and changes nothing. The kernel drops the lock of a killed
// process, so a crash never leaves a stale lock. One lock for the whole
// store (rather than one per key) keeps the scheme simple and correct for
// the write rates of a memory bank: a write waits for the disk anyway. Get and
// List take no lock: renames are atomic, so readers never see a partial
// file. flock is advisory and unreliable on some network file systems; keep
// the directory on a local disk.
//
// # Versions
//
// A version is a hash of the file's device, inode, size, modification time
// and change time, read with one stat, so List reports versions without
// reading files and Get's version always matches the bytes it read (both
// come from the same open file). Every Put creates a new file by rename and
// gives it a modification time strictly later than the file it replaces, so
// the version changes on every write, even of identical bytes (a pure
// content hash could not). An edit by another program (an editor, git)
// changes the change time and so the version, which makes a pending
// compare-and-swap fail instead of overwriting the edit. Versions are not
// portable across copies of the directory.
//
// # Containment
//
// All access goes through an [os.Root] on the directory: no key, symbolic
// link or ".." can make the store read or write outside it. Symbolic links
// that stay inside are followed by Get; List follows links to files but never
// links to directories. Put on a key that is a link to a file inside keeps
// the link and writes the file it points to (creating it if the link
// dangles); a link that leaves the store or points at the store's own files
// is refused and nothing is written. Delete removes the link, not its
// target. List skips, without error, everything that is not a
// regular file at a valid key ([memorybank.ValidateKey]): README~ backups,
// names with reserved characters, sockets, and the store's own lock and
// temporary files, whose names Get, Put and Delete reject with
// [memorybank.ErrInvalidKey].
//
// A key cannot be both a file and a directory: with "a/b" stored, Put("a")
// fails with [ErrPathConflict] (which matches memorybank.ErrPathConflict),
// and so does Put("a/b") with "a" stored.
// Get and Delete report such keys as not found.
//
// # Platforms
//
// Linux, macOS and the BSDs. On other systems (Windows) the file lock is
// unsupported, so Put and Delete fail with an error matching
// errors.ErrUnsupported; Get and List work.
package fsstore
