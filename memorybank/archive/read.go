package archive

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"path"
	"strings"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// limits bound what a reader accepts, each checked before the work.
type limits struct {
	entryBytes int64
	entries    int
}

// entry is one data entry of an archive.
type entry struct {
	name  string
	index int
	key   string // store key, for store/ entries
	kind  kind   // of the store key; kindSkip for memories entries
	data  []byte
	size  int64 // of the data as archived (data may be redacted since)
	off   int64 // where data starts in the archive
	sum   [sha256.Size]byte
}

// countingReader counts the bytes read through it, so the reader knows
// where the manifest's data starts.
type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// walk reads the archive at src, checking every entry (name, type, size,
// order, checksum) and the manifest, and calls fn for each data entry. It
// returns the manifest's first line. fn may be nil.
func walk(ctx context.Context, src *io.SectionReader, lim limits, fn func(entry) error) (*Manifest, error) {
	cr := &countingReader{r: io.NewSectionReader(src, 0, src.Size())}
	tr := tar.NewReader(cr)
	lines := sha256.New()
	var counts Counts
	lastKey, stage, index := "", 0, 0 // stage: 0 store, 1 after memories, 2 after trash
	fail := func(name, reason string, err error) error {
		return &EntryError{Entry: name, Index: index, Reason: reason, Err: err}
	}
	for ; ; index++ {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			return nil, fail("", "the archive ends before its manifest (truncated, or not a whole archive)", ErrCorrupt)
		}
		if err != nil {
			return nil, fail("", fmt.Sprintf("cannot read the entry's header (%v): truncated or not a tar archive", err), ErrCorrupt)
		}
		name := hdr.Name
		if reason := unsafeName(name); reason != "" {
			return nil, fail(name, reason, ErrUnsafeName)
		}
		if hdr.Typeflag != tar.TypeReg {
			return nil, fail(name, fmt.Sprintf("is of tar type %q; an archive holds regular files only", hdr.Typeflag), ErrCorrupt)
		}
		if index == 0 && name != formatName {
			return nil, fail(name, "the first entry must be "+formatName+": this is not a mnemobank archive", ErrUnsupported)
		}
		if index >= lim.entries+2 {
			return nil, fail(name, fmt.Sprintf("the archive has more than %d entries, the limit", lim.entries), ErrLimit)
		}
		if name == manifestName {
			m, err := readManifest(src, cr.n, hdr.Size, index, lines, counts, lim)
			if err != nil {
				return nil, err
			}
			if _, err := tr.Next(); !errors.Is(err, io.EOF) {
				return nil, fail(name, "entries follow the manifest, which must be last", ErrCorrupt)
			}
			return m, nil
		}
		if hdr.Size < 0 || hdr.Size > lim.entryBytes {
			return nil, fail(name, fmt.Sprintf("is %d bytes, the limit is %d", hdr.Size, lim.entryBytes), ErrLimit)
		}
		want, ok := hdr.PAXRecords[paxSHA256]
		if !ok {
			want = hdr.PAXRecords[legacySHA256]
		}
		if index > 0 && len(want) != 64 {
			return nil, fail(name, "has no "+paxSHA256+" record (every entry carries its checksum)", ErrCorrupt)
		}
		off := cr.n // the header is read, the data is next
		data := make([]byte, hdr.Size)
		if _, err := io.ReadFull(tr, data); err != nil {
			return nil, fail(name, fmt.Sprintf("the archive ends inside this entry after %d bytes of %d (truncated)", len(data), hdr.Size), ErrCorrupt)
		}
		sum := sha256.Sum256(data)
		got := hex.EncodeToString(sum[:])
		if index == 0 {
			if err := checkFormat(data); err != nil {
				return nil, fail(name, err.Error(), ErrUnsupported)
			}
			want = got // the format entry's checksum is in the manifest only
		}
		if got != want {
			return nil, fail(name, fmt.Sprintf("its bytes have SHA-256 %s, its header says %s (damaged)", got, want), ErrCorrupt)
		}
		e := entry{name: name, index: index, data: data, size: int64(len(data)), off: off, sum: sum}
		switch {
		case index == 0:
		case strings.HasPrefix(name, storeDir):
			e.key = name[len(storeDir):]
			if err := memorybank.ValidateKey(e.key); err != nil {
				return nil, fail(name, "is not a valid store key: "+err.Error(), ErrUnsafeName)
			}
			if stage > 0 || e.key <= lastKey {
				return nil, fail(name, fmt.Sprintf("is out of order (after %q): store entries are sorted by key, each once", storeDir+lastKey), ErrCorrupt)
			}
			lastKey = e.key
			e.kind = classify(e.key)
			if e.kind == kindSkip {
				return nil, fail(name, "is the tag index cache, which an archive does not hold", ErrCorrupt)
			}
			counts.add(e.kind)
		case name == MemoriesName && stage == 0:
			stage = 1
			counts.Memories = memories.Parse(data).Len()
		case name == TrashName && stage < 2:
			stage = 2
			counts.Trash = memories.Parse(data).Len()
		default:
			return nil, fail(name, "is not an entry of a mnemobank archive, or is out of place (order: "+formatName+", store/<key>..., "+MemoriesName+", "+TrashName+", "+manifestName+")", ErrCorrupt)
		}
		line, _ := json.Marshal(ManifestEntry{Name: name, Size: hdr.Size, SHA256: got})
		lines.Write(line)
		lines.Write([]byte{'\n'})
		if fn != nil && index > 0 {
			if err := fn(e); err != nil {
				return nil, err
			}
		}
	}
}

// unsafeName returns why an entry name could escape a root, or "".
func unsafeName(name string) string {
	switch {
	case name == "":
		return "the name is empty"
	case strings.HasPrefix(name, "/") || len(name) > 1 && name[1] == ':':
		return "the name is an absolute path"
	case strings.Contains(name, `\`):
		return "the name holds a backslash"
	case path.Clean(name) != name:
		return "the name is not clean (it holds \"..\", \".\" or \"//\" segments)"
	case name == ".." || strings.HasPrefix(name, "../"):
		return "the name leaves its root"
	}
	return ""
}

func checkFormat(data []byte) error {
	var f struct {
		Format        string `json:"format"`
		FormatVersion int    `json:"formatVersion"`
	}
	if err := json.Unmarshal(data, &f); err != nil || f.Format != Format {
		return fmt.Errorf("is not {\"format\":%q,...}: this is not a mnemobank archive", Format)
	}
	if f.FormatVersion != FormatVersion {
		return fmt.Errorf("is format version %d; this program reads version %d", f.FormatVersion, FormatVersion)
	}
	return nil
}

// readManifest checks the manifest, whose data is at offset off of src,
// against what the entries before it held.
func readManifest(src *io.SectionReader, off, size int64, index int, lines hash.Hash, counts Counts, lim limits) (*Manifest, error) {
	fail := func(reason string, err error) error {
		return &EntryError{Entry: manifestName, Index: index, Reason: reason, Err: err}
	}
	if size > int64(lim.entries+2)*4096 || off+size > src.Size() {
		return nil, fail(fmt.Sprintf("is %d bytes: over the limit, or longer than the rest of the archive (truncated)", size), ErrCorrupt)
	}
	br := bufio.NewReaderSize(io.NewSectionReader(src, off, size), 64<<10)
	first, err := br.ReadBytes('\n')
	if err != nil {
		return nil, fail("has no first line", ErrCorrupt)
	}
	var m Manifest
	if err := json.Unmarshal(first, &m); err != nil {
		return nil, fail("its first line is not JSON: "+err.Error(), ErrCorrupt)
	}
	if m.Format != Format || m.FormatVersion != FormatVersion {
		return nil, fail(fmt.Sprintf("says format %q version %d; this program reads %q version %d", m.Format, m.FormatVersion, Format, FormatVersion), ErrUnsupported)
	}
	if m.Entries != index {
		return nil, fail(fmt.Sprintf("lists %d entries, the archive holds %d (entries are missing or were added)", m.Entries, index), ErrCorrupt)
	}
	if m.Counts != counts {
		return nil, fail(fmt.Sprintf("counts %+v, the entries hold %+v", m.Counts, counts), ErrCorrupt)
	}
	h := sha256.New()
	if _, err := io.Copy(h, br); err != nil {
		return nil, fail("cannot be read: "+err.Error(), ErrCorrupt)
	}
	if !bytes.Equal(h.Sum(nil), lines.Sum(nil)) {
		return nil, fail("its entry lines do not match the entries' names, sizes and checksums", ErrCorrupt)
	}
	return &m, nil
}
