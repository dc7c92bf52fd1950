// Package nonblockfs is an os.Root as an fs.FS whose files open without
// blocking. A reader that lists regular files first and opens them after
// would otherwise hang on a FIFO put in place of one meanwhile (the reader
// then refuses it as no longer a regular file). Links resolve inside the
// root only, as with os.Root.FS.
//
// It is a package of its own because the open flag comes from package
// syscall, whose declarations differ by system: the programs that use it
// see one declaration everywhere, and only this package is type-checked for
// each system.
package nonblockfs

import (
	"io/fs"
	"os"
	"syscall"
)

// FS reads the files of an os.Root; it does not close the root.
type FS struct{ root *os.Root }

// New returns root as an FS.
func New(root *os.Root) FS { return FS{root} }

var _ fs.ReadLinkFS = FS{}

// Open opens name for reading without blocking; a name that is not
// fs.ValidPath is fs.ErrInvalid.
func (f FS) Open(name string) (fs.File, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	return f.root.OpenFile(name, os.O_RDONLY|syscall.O_NONBLOCK, 0)
}

// Lstat lets the reader tell a link from a file (fs.ReadLinkFS).
func (f FS) Lstat(name string) (fs.FileInfo, error) { return f.root.Lstat(name) }

// ReadLink is fs.ReadLinkFS's other half.
func (f FS) ReadLink(name string) (string, error) { return f.root.Readlink(name) }
