package filestore

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// ErrOutside: a symbolic link on the way to the memories file (the file
// itself, its directory, or its lock file) leads outside the directories a
// Store may use. See OutsideError.
var ErrOutside = errors.New("filestore: symbolic link leads outside the memories directory and the primary worktree")

// OutsideError reports a link that leads where a Store does not follow:
// Link is the link, Target where it leads, Allowed the directories a
// link may lead into. It unwraps to ErrOutside.
type OutsideError struct {
	Link    string
	Target  string
	Allowed []string
}

func (e *OutsideError) Error() string {
	return fmt.Sprintf("symbolic link %s leads to %s, outside %s (the primary worktree's .git directory excluded); "+
		"nothing was read, created or written. Replace the link with a regular file, or make it point inside one of those directories",
		e.Link, e.Target, strings.Join(e.Allowed, " and "))
}

func (e *OutsideError) Unwrap() error { return ErrOutside }

// maxLinkHops bounds the symbolic links followed to reach the file.
const maxLinkHops = 40

// maxGitFile bounds what is read of a .git, gitdir or commondir file.
const maxGitFile = 4096

// place is where a Store's file is: every access goes through an os.Root on
// root, so a link swapped in after locate cannot lead out of it.
type place struct {
	root   string // absolute, symbolic links resolved
	rel    string // the file inside root, with no symbolic links on the way
	target string // filepath.Join(root, rel)
	// homeMissing: the store's own directory does not exist yet; it is the
	// only directory a Store creates.
	homeMissing bool
}

// locate follows the links from the Store's path to the file and checks
// that every one leads inside the store's directory or inside the primary
// worktree of the git repository that directory belongs to. An error
// wrapping fs.ErrNotExist means a directory on the way is missing (the
// store's directory itself missing is place.homeMissing, not an error).
func (s *Store) locate() (place, error) {
	abs, err := filepath.Abs(s.path)
	if err != nil {
		return place{}, err
	}
	dir, name := filepath.Dir(abs), filepath.Base(abs)
	parent, err := filepath.EvalSymlinks(filepath.Dir(dir))
	if err != nil {
		return place{}, err
	}
	home := filepath.Join(parent, filepath.Base(dir))
	roots := []string{home}
	if primary, ok := primaryWorktree(parent); ok {
		roots = append(roots, primary)
	}
	if _, err := os.Lstat(home); errors.Is(err, fs.ErrNotExist) {
		return place{root: home, rel: name, target: filepath.Join(home, name), homeMissing: true}, nil
	}
	outside := func(link, target string) error {
		return &OutsideError{Link: link, Target: target, Allowed: roots}
	}
	p := filepath.Join(home, name)
	for range maxLinkHops {
		fi, err := os.Lstat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return place{}, err
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			d, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				if root := rootOf(roots, filepath.Dir(p)); root == "" {
					return place{}, outside(filepath.Dir(p), filepath.Dir(p))
				}
				return place{}, err
			}
			final := filepath.Join(d, filepath.Base(p))
			root := rootOf(roots, final)
			if root == "" {
				link := p
				if p == filepath.Join(home, name) {
					link = home // the directory itself is the link
				}
				return place{}, outside(link, final)
			}
			rel, _ := filepath.Rel(root, final)
			pl := place{root: root, rel: rel, target: final}
			return pl, checkLockLink(pl, roots)
		}
		t, err := os.Readlink(p)
		if err != nil {
			return place{}, err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		if rootOf(roots, t) == "" {
			return place{}, outside(p, t)
		}
		p = filepath.Clean(t)
	}
	return place{}, fmt.Errorf("more than %d symbolic links on the way to %s", maxLinkHops, s.path)
}

// checkLockLink refuses a lock file that is a link leading out: the lock
// file is written (its state record), so it is confined like the file.
func checkLockLink(pl place, roots []string) error {
	lock := pl.target + ".lock"
	fi, err := os.Lstat(lock)
	if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
		return nil
	}
	r, err := filepath.EvalSymlinks(lock)
	if err != nil {
		t, _ := os.Readlink(lock)
		r = t
		if !filepath.IsAbs(t) {
			r = filepath.Join(filepath.Dir(lock), t)
		}
	}
	if root := rootOf(roots, r); root != pl.root {
		return &OutsideError{Link: lock, Target: r, Allowed: []string{pl.root}}
	}
	return nil
}

// rootOf returns the first root that contains p, "" if none does.
func rootOf(roots []string, p string) string {
	for _, r := range roots {
		if within(r, p) {
			return r
		}
	}
	return ""
}

// within reports whether p is root or below it, lexically, and not inside
// a ".git" directory or file of it: a link may not lead into a
// repository's own files (hooks, config).
func within(root, p string) bool {
	rel, err := filepath.Rel(root, filepath.Clean(p))
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		return false
	}
	for _, part := range strings.Split(rel, string(filepath.Separator)) {
		if strings.EqualFold(part, ".git") {
			return false
		}
	}
	return true
}

// primaryWorktree returns the primary (main) worktree of the git repository
// when dir (absolute, links resolved) is inside a linked worktree of it
// (git worktree add), and false otherwise: in a primary checkout, or below
// any other .git directory (a home directory kept in git), there is no
// other worktree a link needs to reach.
//
// It trusts nothing a checkout could ship: a project can contain a ".git"
// file and a whole fake worktree record beside it. The worktree's .git file
// only names a record; that record is believed only where git keeps it,
// <primary>/.git/worktrees/<name>, in the repository's own .git directory
// outside the worktree, and only if it points back at this worktree's .git
// file. A record inside the worktree, or one whose common directory is not
// the directory that holds it, is refused.
func primaryWorktree(dir string) (string, bool) {
	for d := dir; ; d = filepath.Dir(d) {
		dotgit := filepath.Join(d, ".git")
		fi, err := os.Lstat(dotgit)
		switch {
		case err == nil && fi.Mode().IsRegular():
			return linkedPrimary(d, dotgit)
		case err == nil:
			return "", false // a primary checkout, or a link: not followed
		}
		if filepath.Dir(d) == d {
			return "", false
		}
	}
}

// linkedPrimary checks the records of the linked worktree d (whose .git
// file is dotgit) as primaryWorktree describes, and returns its primary.
func linkedPrimary(d, dotgit string) (string, bool) {
	content, err := readSmall(dotgit)
	if err != nil {
		return "", false
	}
	gitdir, ok := strings.CutPrefix(content, "gitdir:")
	if !ok {
		return "", false
	}
	admin := resolvedFrom(d, gitdir)
	if hasPathPrefix(admin, d) {
		return "", false // the record is a file of the project itself
	}
	commonDir := filepath.Dir(filepath.Dir(admin))
	if filepath.Base(filepath.Dir(admin)) != "worktrees" || filepath.Base(commonDir) != ".git" {
		return "", false // not where git keeps worktree records (or a bare repository)
	}
	common, err := readSmall(filepath.Join(admin, "commondir"))
	if err != nil || resolvedFrom(admin, common) != commonDir {
		return "", false // no commondir (a submodule), or one naming another repository
	}
	back, err := readSmall(filepath.Join(admin, "gitdir"))
	if err != nil || resolvedFrom(admin, back) != resolvedFrom(d, ".git") {
		return "", false
	}
	primary := filepath.Dir(commonDir)
	if hasPathPrefix(primary, d) {
		return "", false // a "primary" inside the worktree is the project's own
	}
	if fi, err := os.Lstat(commonDir); err != nil || !fi.IsDir() {
		return "", false
	}
	return primary, true
}

// hasPathPrefix reports whether p is dir or below it, lexically.
func hasPathPrefix(p, dir string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolvedFrom returns p (trimmed; relative to base when not absolute) with
// links resolved, or cleaned if it does not exist.
func resolvedFrom(base, p string) string {
	p = strings.TrimSpace(p)
	if !filepath.IsAbs(p) {
		p = filepath.Join(base, p)
	}
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	return filepath.Clean(p)
}

// readSmall reads at most maxGitFile bytes of a regular file.
func readSmall(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return "", fmt.Errorf("%s is not a regular file", path)
	}
	b, err := io.ReadAll(io.LimitReader(f, maxGitFile))
	if err != nil {
		return "", err
	}
	line, _, _ := bytes.Cut(b, []byte{'\n'})
	return string(line), nil
}
