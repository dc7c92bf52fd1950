package memories

import (
	"context"
	"errors"
)

// Store holds one memories file.
//
// A Store knows nothing about the memories format: it stores bytes and hands
// out an opaque version string that changes on every successful write, so a
// MemoryManager can do compare-and-swap rewrites (Delete) without losing a
// concurrent writer's update. Implementations must be safe for concurrent use
// by multiple goroutines. Returned slices belong to the caller; slices passed
// in are not retained after the call returns.
type Store interface {
	// Load returns the file's bytes and version. A missing file is (nil, "", nil).
	Load(ctx context.Context) (data []byte, version string, err error)
	// Save replaces the contents only if the current version equals ifVersion
	// ("" means the file must not exist yet); otherwise ErrConflict and nothing changes.
	Save(ctx context.Context, data []byte, ifVersion string) (version string, err error)
}

// Appender is an optional capability of a Store: Append adds entry at the end of the
// file without rewriting it, atomically with respect to Save and other Appends. If the
// file is missing or empty, header is written first; if the file does not end with a
// newline, one is written before entry. It returns the file's new size in bytes and version.
//
// MemoryManager.Add uses Append when the Store implements it, so adding a
// memory costs O(len(entry)) however large the file is; otherwise it falls
// back to Load + Save with retry on ErrConflict.
type Appender interface {
	Append(ctx context.Context, header, entry []byte) (size int64, version string, err error)
}

// CondAppender is an optional capability of an Appender: AppendIf is Append
// done only if the file's version is still ifVersion (as Load would report
// it; "" for a missing file); otherwise it returns ErrConflict and writes
// nothing. Manager.Add uses it to know that the file it appended to is the
// one its search index was built from, so the index can take in the new
// memory instead of being rebuilt.
type CondAppender interface {
	AppendIf(ctx context.Context, header, entry []byte, ifVersion string) (size int64, version string, err error)
}

// ErrConflict is returned by Store.Save when the stored version is not the
// one the caller read: someone else wrote in between. Reload and retry.
var ErrConflict = errors.New("memories: version conflict")

// Sizer is an optional capability of a Store: Size returns the current size
// of the file in bytes, 0 if it is missing. MemoryManager uses it only to
// enforce Options.MaxBytes before an Append; a Store with Appender but
// without Sizer gets the exact Load + Save path when MaxBytes is set.
type Sizer interface {
	Size(ctx context.Context) (int64, error)
}

// Peeker is an optional capability of a Store: Peek returns the first n
// bytes of the file (all of it if it is shorter, nil if it is missing). A
// negative n is an error matching ErrInvalid, never a panic.
// MemoryManager.Add uses it to learn, without reading the whole file,
// whether the file is in ralph-orchestrator's format, where a new memory
// goes into its type's section (a rewrite) instead of being appended. A
// Store with Appender but without Peeker gets seed-format appends only.
type Peeker interface {
	Peek(ctx context.Context, n int) ([]byte, error)
}

// Versioner is an optional capability of a Store: Version returns the
// file's current version, as Load would ("" if it is missing), without
// reading the file. Manager's searches and injections use it to skip
// reading a file whose version they have indexed already; without it they
// Load the file each time to learn its version.
type Versioner interface {
	Version(ctx context.Context) (string, error)
}
