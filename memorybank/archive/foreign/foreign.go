package foreign

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

var (
	// ErrFormat: the source is not in its tool's format (a line that is not
	// JSON, a field of the wrong type, a checksum that does not match).
	ErrFormat = errors.New("foreign: not in the source's format")
	// ErrLimit: the source is over one of the Limits.
	ErrLimit = errors.New("foreign: source over a limit")
	// ErrUnsafePath: a name would escape the source's directory (a symbolic
	// link out of it, "..", an absolute path) or is not a valid bank path.
	ErrUnsafePath = errors.New("foreign: unsafe path")
	// ErrExcluded: the directory to read is the bank being imported into
	// (DirOptions.Exclude holds "."), or inside it.
	ErrExcluded = errors.New("foreign: the source is the destination")
)

// SourceError says which entry of a source is wrong and how. It wraps
// ErrFormat, ErrLimit or ErrUnsafePath (and the cause, when there is one).
type SourceError struct {
	Source string // the file or directory given
	Entry  string // the file inside a directory, the entity, the memory's path
	Line   int    // the line of a JSON Lines file, from 1; 0 when none
	Reason string
	Err    error
}

func (e *SourceError) Error() string {
	var b strings.Builder
	b.WriteString(e.Err.Error())
	b.WriteString(": ")
	b.WriteString(e.Source)
	if e.Line > 0 {
		fmt.Fprintf(&b, ", line %d", e.Line)
	}
	if e.Entry != "" {
		fmt.Fprintf(&b, ", %q", e.Entry)
	}
	b.WriteString(": ")
	b.WriteString(e.Reason)
	b.WriteString("; nothing was written")
	return b.String()
}

// Unwrap returns the sentinel.
func (e *SourceError) Unwrap() error { return e.Err }

// Default limits, checked before the work they bound.
const (
	DefaultMaxFileBytes  = memorybank.DefaultMaxDocumentBytes
	DefaultMaxFiles      = 100_000
	DefaultMaxEntries    = 1_000_000
	DefaultMaxTotalBytes = 1 << 30
	DefaultMaxDepth      = 64
)

// Limits bound what a reader reads. A zero field is its default.
type Limits struct {
	// MaxFileBytes bounds one file, one line of a JSON Lines file, one
	// memory's content and one document made from an entity.
	MaxFileBytes int64
	// MaxFiles bounds the files read from a directory, the entities and
	// relations of a graph, the memories of a listing.
	MaxFiles int
	// MaxEntries bounds the directory entries a walk looks at.
	MaxEntries int
	// MaxTotalBytes bounds the bytes read in all.
	MaxTotalBytes int64
	// MaxDepth bounds the depth of directories walked.
	MaxDepth int
}

func (l *Limits) withDefaults() Limits {
	var o Limits
	if l != nil {
		o = *l
	}
	if o.MaxFileBytes <= 0 {
		o.MaxFileBytes = DefaultMaxFileBytes
	}
	if o.MaxFiles <= 0 {
		o.MaxFiles = DefaultMaxFiles
	}
	if o.MaxEntries <= 0 {
		o.MaxEntries = DefaultMaxEntries
	}
	if o.MaxTotalBytes <= 0 {
		o.MaxTotalBytes = DefaultMaxTotalBytes
	}
	if o.MaxDepth <= 0 {
		o.MaxDepth = DefaultMaxDepth
	}
	return o
}

// DirOptions say what a directory reader reads. The zero value reads what
// the format says, within the default Limits.
type DirOptions struct {
	Limits
	// Exclude names directories of the source never read (the bank's own
	// directory, the destination of the import, when it lies inside the
	// source), as fs.FS names them: slash-separated, from the source's
	// root. One met in the walk is left out and reported; "." (the source
	// is the bank) is ErrExcluded. The program, which knows where the
	// source and the bank are, refuses a source inside the bank itself.
	Exclude []string
	// IncludeLocal makes ReadClaudeCode read CLAUDE.local.md files, a
	// person's own instructions, which are left out (and reported) unless
	// asked for: a bank may be shared.
	IncludeLocal bool
}

func (o *DirOptions) limits() Limits {
	if o == nil {
		return (*Limits)(nil).withDefaults()
	}
	return o.Limits.withDefaults()
}

// Doc is one document read from a source.
type Doc struct {
	// Path is the document's path in the global bank
	// ("claude-code/CLAUDE.md", "memories/notes.md").
	Path string `json:"path"`
	// Source names where it came from: the file inside the directory, the
	// entity, the memory store path.
	Source string `json:"source"`
	// Text is the document's whole text. Unless MemoryFile is set, a front
	// matter block at its start is the document's metadata.
	Text string `json:"text"`
	// MemoryFile marks a file of the Claude memory tool: Path is under
	// "memories/" and the text is kept byte for byte, front matter
	// included, as claudememory.BankFiles keeps it.
	MemoryFile bool `json:"memoryFile,omitempty"`
	// NotRead, when set, says why the file Source was left out (not
	// Markdown, a personal file, the bank's own directory): the Doc has no
	// text, and Import only reports it, as NotRead.
	NotRead string `json:"notRead,omitempty"`
}

// Memory banks are never a source: a directory of a bank (the
// memory-bank layout's folders, mnemobank's own) is left out of every walk,
// wherever it is, so an import never reads what an import wrote.
var bankDirNames = map[string]bool{"global-memory-bank": true, "branch-memory-bank": true}

// file is one regular file of a walked directory.
type file struct {
	rel  string // slash-separated, relative to the root
	size int64
}

// walkTree lists the regular files of fsys that keep accepts (rel is
// slash-separated; dirs are asked with isDir true, and a refused directory
// is not descended into), checking the Limits as it goes; source names
// fsys in errors. A symbolic link to a file inside fsys is listed as that
// file; one that fsys refuses to resolve (an os.Root's FS refuses a link
// that leaves it) is ErrUnsafePath; a link to a directory is not followed.
// keep returns why a name is left out ("" to read it; "-" to leave it out
// without a word: most of a project is not memory). A directory of a
// bank, or one of excluded, is left out before keep is asked.
func walkTree(fsys fs.FS, source string, lim Limits, excluded []string, keep func(rel string, isDir bool) string) ([]file, []Doc, error) {
	for _, x := range excluded {
		if x == "." {
			return nil, nil, &SourceError{Source: source, Reason: "it is the bank's own directory; an import never reads what it writes", Err: ErrExcluded}
		}
	}
	var notRead []Doc
	leftOut := func(rel, why string) bool {
		if why == "" {
			return false
		}
		if why != "-" {
			notRead = append(notRead, Doc{Source: rel, NotRead: why})
		}
		return true
	}
	dirWhy := func(rel string) string {
		if bankDirNames[path.Base(rel)] {
			return "a memory bank's folder: never imported"
		}
		if slices.Contains(excluded, rel) {
			return "the bank's own directory: never imported"
		}
		return keep(rel, true)
	}
	var files []file
	var total int64
	entries := 0
	var walk func(rel string, depth int) error
	walk = func(rel string, depth int) error {
		if depth > lim.MaxDepth {
			return &SourceError{Source: source, Entry: rel, Reason: fmt.Sprintf("directories nested deeper than %d", lim.MaxDepth), Err: ErrLimit}
		}
		f, err := fsys.Open(rel)
		if err != nil {
			return &SourceError{Source: source, Entry: rel, Reason: err.Error(), Err: ErrUnsafePath}
		}
		defer f.Close()
		d, ok := f.(fs.ReadDirFile)
		if !ok {
			return &SourceError{Source: source, Entry: rel, Reason: "not a directory", Err: ErrUnsafePath}
		}
		var list []fs.DirEntry
		for {
			batch, err := d.ReadDir(256)
			entries += len(batch)
			if entries > lim.MaxEntries {
				return &SourceError{Source: source, Entry: rel, Reason: fmt.Sprintf("more than %d directory entries", lim.MaxEntries), Err: ErrLimit}
			}
			list = append(list, batch...)
			if err == io.EOF || (err == nil && len(batch) == 0) {
				break
			}
			if err != nil {
				return &SourceError{Source: source, Entry: rel, Reason: err.Error(), Err: ErrUnsafePath}
			}
		}
		slices.SortFunc(list, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
		for _, e := range list {
			name := path.Join(rel, e.Name())
			t := e.Type()
			if t&fs.ModeSymlink != 0 {
				if keep(name, false) != "" {
					continue // not a name read: links to directories are not followed
				}
				fi, err := fs.Stat(fsys, name) // resolved by fsys: an os.Root's FS inside the root only
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						continue // a dangling link holds nothing
					}
					return &SourceError{Source: source, Entry: name, Reason: "a symbolic link that leaves the directory: " + err.Error(), Err: ErrUnsafePath}
				}
				if !fi.Mode().IsRegular() {
					continue
				}
				t = 0
			}
			switch {
			case t.IsDir():
				if !leftOut(name, dirWhy(name)) {
					if err := walk(name, depth+1); err != nil {
						return err
					}
				}
			case t.IsRegular():
				if leftOut(name, keep(name, false)) {
					continue
				}
				fi, err := fs.Stat(fsys, name)
				if err != nil {
					return &SourceError{Source: source, Entry: name, Reason: err.Error(), Err: ErrUnsafePath}
				}
				if fi.Size() > lim.MaxFileBytes {
					return &SourceError{Source: source, Entry: name, Reason: fmt.Sprintf("%d bytes, over the limit of %d for a file", fi.Size(), lim.MaxFileBytes), Err: ErrLimit}
				}
				if len(files) == lim.MaxFiles {
					return &SourceError{Source: source, Entry: name, Reason: fmt.Sprintf("more than %d files", lim.MaxFiles), Err: ErrLimit}
				}
				total += fi.Size()
				if total > lim.MaxTotalBytes {
					return &SourceError{Source: source, Entry: name, Reason: fmt.Sprintf("the files hold more than %d bytes in all", lim.MaxTotalBytes), Err: ErrLimit}
				}
				files = append(files, file{rel: name, size: fi.Size()})
			}
		}
		return nil
	}
	if err := walk(".", 0); err != nil {
		return nil, nil, err
	}
	return files, notRead, nil
}

// excludedPaths are o's Exclude, cleaned.
func (o *DirOptions) excludedPaths() []string {
	if o == nil {
		return nil
	}
	out := make([]string, 0, len(o.Exclude))
	for _, x := range o.Exclude {
		out = append(out, path.Clean(x))
	}
	return out
}

// readFile reads a listed file, at most its listed size (a file that grew
// since is ErrLimit). A file that is no longer regular is refused: the
// program's fsys opens it without blocking (a FIFO swapped in meanwhile).
func readFile(fsys fs.FS, source string, f file, lim Limits) (string, error) {
	h, err := fsys.Open(f.rel)
	if err != nil {
		return "", &SourceError{Source: source, Entry: f.rel, Reason: err.Error(), Err: ErrUnsafePath}
	}
	defer h.Close()
	fi, err := h.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", &SourceError{Source: source, Entry: f.rel, Reason: "no longer a regular file", Err: ErrUnsafePath}
	}
	data, err := io.ReadAll(io.LimitReader(h, lim.MaxFileBytes+1))
	if err != nil {
		return "", &SourceError{Source: source, Entry: f.rel, Reason: err.Error(), Err: ErrFormat}
	}
	if int64(len(data)) > lim.MaxFileBytes {
		return "", &SourceError{Source: source, Entry: f.rel, Reason: fmt.Sprintf("grew over the limit of %d bytes while read", lim.MaxFileBytes), Err: ErrLimit}
	}
	return string(data), nil
}

// bankPath joins prefix and rel and checks that the result is a bank path.
func bankPath(source, entry, prefix, rel string) (string, error) {
	p := prefix + rel
	if err := memorybank.ValidateKey(p); err != nil {
		return "", &SourceError{Source: source, Entry: entry, Reason: "not a valid bank path " + p + ": " + err.Error(), Err: ErrUnsafePath}
	}
	return p, nil
}

// isMarkdown reports whether name is a Markdown file.
func isMarkdown(name string) bool {
	ext := strings.ToLower(path.Ext(name))
	return ext == ".md" || ext == ".markdown"
}
