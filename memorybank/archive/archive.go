package archive

import (
	"errors"
	"fmt"
	"time"

	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
)

// Format and FormatVersion identify an archive of this package.
const (
	Format        = "mnemobank-archive"
	FormatVersion = 1
)

// Entry names.
const (
	formatName   = "mnemobank/format.json"
	manifestName = "mnemobank/manifest.jsonl"
	storeDir     = "store/"
	// MemoriesName and TrashName are the entries of the learned memories
	// file and its trash.
	MemoriesName = "memories/memories.md"
	TrashName    = "memories/trash.md"
	// paxSHA256 names the PAX record of an entry's checksum. It is an
	// extended attribute record, which GNU tar and bsdtar know (they list
	// and unpack such an archive without a warning, and restore it as the
	// attribute user.mnemobank.sha256 with --xattrs); a vendor keyword
	// made GNU tar warn once per entry. legacySHA256 is that keyword, read
	// in archives written before.
	paxSHA256    = "SCHILY.xattr.user.mnemobank.sha256"
	legacySHA256 = "MNEMOBANK.sha256"
	historyDir   = histio.Prefix
)

// Default limits of Import, checked before the work they bound.
const (
	DefaultMaxEntryBytes   = 64 << 20
	DefaultMaxEntries      = 10_000_000
	DefaultMaxArchiveBytes = 16 << 30
)

var (
	// ErrCorrupt: the archive is not a valid archive of this format
	// (truncated, a checksum or the manifest does not match, an entry
	// that has no place in it). Nothing was written.
	ErrCorrupt = errors.New("archive: corrupt archive")
	// ErrUnsupported: the archive is of another format or a newer version.
	ErrUnsupported = errors.New("archive: unsupported archive format")
	// ErrLimit: the archive is over one of ImportOptions' limits. Nothing
	// was written.
	ErrLimit = errors.New("archive: archive over a limit")
	// ErrUnsafeName: an entry name would escape its root (an absolute
	// path, "..", a backslash) or is not a valid store key.
	ErrUnsafeName = errors.New("archive: unsafe entry name")
	// ErrInvalidOptions: ImportOptions or ExportOptions hold a value that
	// is not allowed (an unknown conflict policy).
	ErrInvalidOptions = errors.New("archive: invalid options")
)

// EntryError says which entry of an archive is wrong and how. It wraps one
// of ErrCorrupt, ErrLimit, ErrUnsafeName, ErrUnsupported.
type EntryError struct {
	Entry  string // the entry's name ("" when the archive ends before one)
	Index  int    // its position, from 0
	Reason string
	Err    error
}

func (e *EntryError) Error() string {
	if e.Entry == "" {
		return fmt.Sprintf("%v: entry %d: %s; nothing was written", e.Err, e.Index, e.Reason)
	}
	return fmt.Sprintf("%v: entry %d %q: %s; nothing was written", e.Err, e.Index, e.Entry, e.Reason)
}

// Unwrap returns the sentinel.
func (e *EntryError) Unwrap() error { return e.Err }

// Counts are what an archive holds.
type Counts struct {
	Documents int `json:"documents"` // documents of every bank, skill graphs included
	Skills    int `json:"skills"`    // of which skill graphs (global skills/*.json)
	History   int `json:"history"`   // history entries and tombstones
	OtherKeys int `json:"otherKeys"` // branch markers and keys outside the banks
	Memories  int `json:"memories"`  // learned memories
	Trash     int `json:"trash"`     // deleted memories in the trash
}

// Manifest is the first line of an archive's manifest.
type Manifest struct {
	Format        string    `json:"format"`
	FormatVersion int       `json:"formatVersion"`
	Source        string    `json:"source"`
	CreatedAt     time.Time `json:"createdAt"`
	Counts        Counts    `json:"counts"`
	Entries       int       `json:"entries"`
}

// ManifestEntry is one line of the manifest after the first.
type ManifestEntry struct {
	Name   string `json:"name"`
	Size   int64  `json:"size"`
	SHA256 string `json:"sha256"`
}
