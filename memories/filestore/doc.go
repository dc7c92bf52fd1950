// Package filestore is the file-backed memories.Store: one memories.md on
// disk, shared safely by goroutines, processes and git worktrees.
//
//   - Links are confined. The file, its directory and its lock file may be
//     symbolic links only to places inside the directory the Store was
//     opened on, or, when that directory is in a linked git worktree,
//     inside the primary worktree of its repository (what LinkWorktree
//     makes), never into a .git directory. The Store checks git's own
//     records of the worktree instead of trusting the link, and reads them
//     only where git keeps them: <primary>/.git/worktrees/<name>, outside
//     the worktree, pointing back at its .git file. A project can ship a
//     .git file and a forged record naming an ancestor's repository (a home
//     directory kept in git); records inside the project, or whose common
//     directory is not the .git directory holding them, make it no linked
//     worktree at all. Anything else fails every operation with an
//     *OutsideError (ErrOutside) before anything is created, read or
//     written; every access then goes through an os.Root on the allowed
//     directory, so a link swapped in meanwhile cannot lead out either. A
//     Store creates only its own directory, never missing parents, and a
//     dangling link creates its target file but no directory.
//   - Save is atomic: a temporary file beside the resolved target, synced,
//     renamed over it, the directory synced. The target is the path with
//     every symbolic link followed (also a dangling one), so a worktree's
//     symlinked memories.md stays a symlink and the primary's file is
//     replaced.
//   - A memories.md that exists but cannot be read (a directory, no
//     permission) is an *UnreadableError (memories.ErrUnreadable); a
//     directory or file system where no lock file can be made (read-only)
//     is read without the lock.
//   - Append (used by memories.Manager.Add) writes the entry at the end in
//     one write under the lock, reading only the file's last byte: O(1) in
//     the file's size. It is journalled in the lock file first; if the
//     process is killed halfway, the next operation through any Store cuts
//     the torn tail off before anyone reads it. (Until then, a reader that
//     bypasses this package, such as cat, can see the partial tail.)
//   - Version (memories.Versioner) is Load's version without reading the
//     file, one stat under the lock, so a Manager searches a file it has
//     indexed without reading it again; an edit by another program changes
//     the inode, size or modification time, and so the version.
//   - Every operation holds an exclusive flock on "<resolved target>.lock".
//     Because the lock sits beside the resolved file, a process writing
//     through a worktree's symlink and one writing the primary's file
//     exclude each other (the seed locked the link and never did). Waiting is
//     bounded by Options.LockTimeout (ErrLockTimeout); the kernel drops the
//     lock of a killed process, so there are no stale locks.
//   - Versions are "<generation>-<inode>-<size>-<mtime ns>": the generation
//     is a counter in the lock file bumped by every write through this
//     package (so a version never repeats, even if a new file gets an old
//     inode and mtime), and the inode, size and mtime catch edits made by
//     hand or by other tools. Computing it costs one fstat, so Append stays
//     O(1).
//   - LinkWorktree makes a linked worktree's .agent/memories.md a symlink
//     to the primary's, creating only the two .agent directories; it
//     refuses a directory git does not record as a worktree of the
//     primary's repository (ErrNotWorktree) and a real file in the way
//     (ErrNotLink), changing nothing.
//
// Decisions: the lock is exclusive for reads too (the internal lock package
// offers only exclusive locks; a 10 MB read holds it for a few
// milliseconds). A Save killed before its rename leaves a
// ".atomicfile-*.tmp" beside the file; it is never read and is not removed
// automatically, because other packages may write temporary files in the
// same directory. Locking uses flock(2) on Linux, macOS and the BSDs and
// LockFileEx on Windows; elsewhere every operation fails with an error
// wrapping errors.ErrUnsupported. Keep the file on a local disk (file locks
// are unreliable on some network file systems). Off Unix there are no inode
// numbers, so a version there is the generation, size and modification
// time.
//
// The package passes memories/storetest.TestStore, directly and through a
// dangling symlink from a linked worktree into its primary.
package filestore
