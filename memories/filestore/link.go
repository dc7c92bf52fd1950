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

// LinkWorktree shares the primary worktree's memories with another worktree
// of the same repository, as the seed's createWorktree does: it makes
// <worktreeDir>/.agent/memories.md a symbolic link to the absolute path of
// <primaryDir>/.agent/memories.md, creating that file (empty) and both
// .agent directories if needed. The Stores of both worktrees then resolve to
// the same file and lock it together.
//
// If the link already points at the primary file it does nothing. If a real
// file, a directory, or a link to anything else is there, it fails with a
// *LinkError (ErrNotLink) before changing anything: memories written in the
// worktree are never silently replaced.
func LinkWorktree(primaryDir, worktreeDir string) error {
	primary, err := filepath.Abs(filepath.Join(primaryDir, AgentDir, FileName))
	if err != nil {
		return &Error{Op: "link", Path: primaryDir, Err: err}
	}
	link := filepath.Join(worktreeDir, AgentDir, FileName)
	if a, b := sameDir(primaryDir, worktreeDir); a == b {
		return &LinkError{Link: link, Target: primary, Found: "the primary's own file (the worktree is the primary directory)"}
	}
	if err := checkLinkSlot(link, primary); err != nil {
		if errors.Is(err, errAlreadyLinked) {
			return nil
		}
		return err
	}
	// Create the primary file first so the link is never dangling.
	if err := os.MkdirAll(filepath.Dir(primary), 0o755); err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	f, err := os.OpenFile(primary, os.O_WRONLY|os.O_CREATE, 0o644)
	if err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	if err := f.Close(); err != nil {
		return &Error{Op: "link", Path: primary, Err: err}
	}
	if err := checkLinkSlot(link, primary); err != nil {
		if errors.Is(err, errAlreadyLinked) {
			return nil
		}
		return err // the worktree and the primary are the same directory
	}
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		return &Error{Op: "link", Path: link, Err: err}
	}
	if err := os.Symlink(primary, link); err != nil {
		return &Error{Op: "link", Path: link, Err: err}
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
		got, gerr := resolve(link)
		want, werr := resolve(primary)
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

// sameDir returns both directories resolved, for comparing them.
func sameDir(a, b string) (string, string) {
	ra, err := filepath.EvalSymlinks(a)
	if err != nil {
		ra, _ = filepath.Abs(a)
	}
	rb, err := filepath.EvalSymlinks(b)
	if err != nil {
		rb, _ = filepath.Abs(b)
	}
	return ra, rb
}
