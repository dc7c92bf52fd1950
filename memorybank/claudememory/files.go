package claudememory

import (
	"context"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Files is the storage the Handler runs on: a flat set of text files named
// by slash-separated paths relative to /memories ("notes.md",
// "projects/alpha/todo.md"), each with an opaque version, and
// compare-and-swap writes. Directories are implicit: a directory exists
// while a file lies under it.
//
// The Handler gives every method a path it has validated (a valid
// [memorybank.ValidateKey] key with no segment starting with "."), never
// "" and never an absolute path. Implementations must be safe for
// concurrent use; a compare-and-swap must be atomic with respect to every
// writer the implementation can see (other goroutines, and for shared
// stores other processes).
//
// [BankFiles] implements Files over a [memorybank.Bank].
type Files interface {
	// ReadText returns the text of the file at path and its current
	// version. A missing file is an error matching memorybank.ErrNotFound.
	ReadText(ctx context.Context, path string) (text, version string, err error)

	// WriteText stores text at path if cond holds, and returns the new
	// version. cond is never the zero Condition: IfAbsent creates a file,
	// IfVersion replaces the file at exactly that version. When cond does
	// not hold the error matches memorybank.ErrConflict and nothing changed.
	WriteText(ctx context.Context, path, text string, cond memorybank.Condition) (version string, err error)

	// Delete removes the file at path if cond holds: an error matching
	// memorybank.ErrNotFound when there is none, memorybank.ErrConflict
	// when cond does not hold (and nothing changed).
	Delete(ctx context.Context, path string, cond memorybank.Condition) error

	// List returns the files whose path starts with prefix, sorted by path
	// in byte order. prefix is "" (every file) or ends with a slash.
	List(ctx context.Context, prefix string) ([]Entry, error)
}

// Entry describes one file in a List result.
type Entry struct {
	Path    string // relative to /memories, e.g. "projects/alpha/todo.md"
	Size    int64  // bytes as the Files implementation stores them
	Version string // the version a conditional Delete or WriteText can use
}
