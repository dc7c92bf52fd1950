package filestore

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// AgentDir is the directory, inside a worktree, that holds memories.md.
const AgentDir = ".agent"

// LinkError reports why LinkWorktree refused: what is at Link and what it
// should have pointed to. It unwraps to ErrNotLink.
type LinkError struct {
	Link   string // <worktree>/.agent/memories.md
	Target string // the primary's memories.md (absolute)
	Found  string // what is there instead
}

func (e *LinkError) Error() string {
	return fmt.Sprintf("filestore: link %s: %s; it should be a symbolic link to %s. "+
		"Nothing was changed: move any memories it holds into %s (append their entries), remove it, and link again",
		e.Link, e.Found, e.Target, e.Target)
}

func (e *LinkError) Unwrap() error { return ErrNotLink }

// ErrNotWorktree: LinkWorktree was given a directory that is not a linked
// worktree of the git repository whose primary worktree holds primaryDir.
var ErrNotWorktree = errors.New("filestore: not a linked worktree of the primary's repository")

// WorktreeError reports why LinkWorktree refused the pair of directories.
// It unwraps to ErrNotWorktree.
type WorktreeError struct {
	Primary  string // primaryDir as given
	Worktree string // worktreeDir as given
	Found    string // the primary worktree git records for Worktree, or why there is none
}

func (e *WorktreeError) Error() string {
	return fmt.Sprintf("filestore: link %s to %s: %s is not a linked git worktree of the repository whose primary worktree holds %s (%s); nothing was changed. "+
		"Create it with `git worktree add` from the primary, or pass the primary it belongs to",
		e.Worktree, e.Primary, e.Worktree, e.Primary, e.Found)
}

func (e *WorktreeError) Unwrap() error { return ErrNotWorktree }

// LinkWorktree shares the primary worktree's memories with another worktree
// of the same repository, as the seed's createWorktree does: it makes
// <worktreeDir>/.agent/memories.md a symbolic link to the absolute path of
// <primaryDir>/.agent/memories.md, creating that file (empty) and the two
// .agent directories if needed, and nothing else: both directories must
// exist. The Stores of both worktrees then resolve to the same file and
// lock it together.
//
// worktreeDir must be a linked worktree (git worktree add) of the
// repository whose primary worktree holds primaryDir, as git records it
// (the same check a Store makes before it follows the link); otherwise it
// fails with a *WorktreeError (ErrNotWorktree) before changing anything.
//
// If the link already points at the primary file it does nothing. If a real
// file, a directory, or a link to anything else is there, it fails with a
// *LinkError (ErrNotLink) before changing anything: memories written in the
// worktree are never silently replaced.
func LinkWorktree(primaryDir, worktreeDir string) error {
	link := filepath.Join(worktreeDir, AgentDir, FileName)
	p, err := filepath.EvalSymlinks(primaryDir)
	if err != nil {
		return &Error{Op: "link", Path: primaryDir, Err: err}
	}
	w, err := filepath.EvalSymlinks(worktreeDir)
	if err != nil {
		return &Error{Op: "link", Path: worktreeDir, Err: err}
	}
	primary := filepath.Join(p, AgentDir, FileName)
	if p == w {
		return &LinkError{Link: link, Target: primary, Found: "the primary's own file (the worktree is the primary directory)"}
	}
	switch root, ok := primaryWorktree(w); {
	case !ok:
		return &WorktreeError{Primary: primaryDir, Worktree: worktreeDir, Found: "git records it as no linked worktree"}
	case !within(root, p):
		return &WorktreeError{Primary: primaryDir, Worktree: worktreeDir, Found: "its primary worktree is " + root}
	}
	if err := checkLinkSlot(link, primary); err != nil {
		if errors.Is(err, errAlreadyLinked) {
			return nil
		}
		return err
	}
	// Create the primary file first so the link is never dangling.
	if err := mkdirOne(filepath.Dir(primary)); err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	root, err := os.OpenRoot(filepath.Dir(primary))
	if err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	defer root.Close()
	f, err := root.OpenFile(FileName, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	if err := f.Close(); err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	if err := mkdirOne(filepath.Dir(link)); err != nil {
		return &Error{Op: "link", Path: link, Err: err}
	}
	if err := os.Symlink(primary, link); err != nil {
		return &Error{Op: "link", Path: link, Err: err}
	}
	return nil
}

// mkdirOne creates dir if it is missing, but not its parents.
func mkdirOne(dir string) error {
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return nil
}

var errAlreadyLinked = errors.New("already linked")

// checkLinkSlot returns nil if nothing is at link, errAlreadyLinked if it
// already leads to primary, a *LinkError otherwise.
func checkLinkSlot(link, primary string) error {
	fi, err := os.Lstat(link)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return &Error{Op: "link", Path: link, Err: err}
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		got, gerr := filepath.EvalSymlinks(link)
		want, werr := filepath.EvalSymlinks(primary)
		if gerr == nil && werr == nil && got == want {
			return errAlreadyLinked
		}
		dest, _ := os.Readlink(link)
		return &LinkError{Link: link, Target: primary, Found: fmt.Sprintf("a symbolic link to %s", dest)}
	}
	if fi.IsDir() {
		return &LinkError{Link: link, Target: primary, Found: "a directory"}
	}
	return &LinkError{Link: link, Target: primary, Found: fmt.Sprintf("a real file of %d bytes", fi.Size())}
}
