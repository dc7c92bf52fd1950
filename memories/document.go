package memories

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Header is written at the top of a new memories file, as the seed does.
const Header = "# Memories\n\n"

// TitleRunes is how many runes of the content's first line a title keeps.
const TitleRunes = 50

// MakeTitle returns the title the seed derives from content: its first line,
// cut at TitleRunes runes (never inside a character) with "..." appended
// when it was longer.
func MakeTitle(content string) string {
	first, _, _ := strings.Cut(strings.TrimSpace(content), "\n")
	first = strings.TrimSpace(first)
	if utf8.RuneCountInString(first) <= TitleRunes {
		return first
	}
	n := 0
	for i := range first {
		if n == TitleRunes {
			return strings.TrimRight(first[:i], " \t") + "..."
		}
		n++
	}
	return first
}

// Memories returns the entries of d in file order. The slice and its
// memories are copies.
func (d *Document) Memories() []Memory {
	all := d.all()
	out := make([]Memory, len(all))
	for i, m := range all {
		m.Tags = slices.Clone(m.Tags)
		out[i] = m
	}
	return out
}

// all returns the entries without copying; callers must not modify them
// (Manager uses it on Documents it does not keep).
func (d *Document) all() []Memory {
	if d.mems == nil {
		d.mems = make([]Memory, 0, len(d.blocks))
		for _, b := range d.blocks {
			if b.e != nil {
				d.mems = append(d.mems, b.e.mem)
			}
		}
	}
	return d.mems
}

// Len returns the number of entries in d.
func (d *Document) Len() int {
	n := 0
	for _, b := range d.blocks {
		if b.e != nil {
			n++
		}
	}
	return n
}

// Get returns the memory with the given id.
func (d *Document) Get(id string) (Memory, bool) {
	if i := d.find(id); i >= 0 {
		m := d.blocks[i].e.mem
		m.Tags = slices.Clone(m.Tags)
		return m, true
	}
	return Memory{}, false
}

func (d *Document) find(id string) int {
	for i, b := range d.blocks {
		if b.e != nil && b.e.mem.ID == id {
			return i
		}
	}
	return -1
}

// Append adds m at the end of d, in the seed's format with an "- ID:" line,
// following the Appender rules: Header first if d is empty, a newline first
// if d does not end with one. m.Title defaults to MakeTitle(m.Content). It
// returns an error wrapping ErrInvalid if m cannot be written so that it
// reads back the same (see EncodeEntry), or if its id is already in d.
func (d *Document) Append(m Memory) error {
	raw, err := EncodeEntry(m)
	if err != nil {
		return err
	}
	if _, dup := d.Get(m.ID); dup {
		return fmt.Errorf("%w: id %q is already used by another memory", ErrInvalid, m.ID)
	}
	switch last := d.lastByte(); {
	case last < 0:
		d.blocks = append(d.blocks, block{raw: []byte(Header)})
	case last != '\n':
		d.blocks = append(d.blocks, block{raw: []byte("\n")})
	}
	e := Parse(raw).blocks[0].e
	d.blocks = append(d.blocks, block{raw: raw, e: e})
	d.mems = nil
	return nil
}

// lastByte returns the last byte of Format(d), or -1 if d is empty.
func (d *Document) lastByte() int {
	for i := len(d.blocks) - 1; i >= 0; i-- {
		if r := d.blocks[i].raw; len(r) > 0 {
			return int(r[len(r)-1])
		}
	}
	return -1
}

// Delete removes the entry with the given id and reports whether there was
// one. Text around it stays as it was; text inside the entry (between its
// heading and its last field line) goes with it, text after its last field
// line stays. Entries whose id is not written in the file get an "- ID:"
// line, so that every remaining id stays what it was even when it was
// derived from text that is no longer unique.
func (d *Document) Delete(id string) bool {
	i := d.find(id)
	if i < 0 {
		return false
	}
	d.blocks = slices.Delete(d.blocks, i, i+1)
	d.pinIDs()
	d.mems = nil
	return true
}

// pinIDs writes each entry's id into the file where the file does not
// already state it.
func (d *Document) pinIDs() {
	for i := range d.blocks {
		e := d.blocks[i].e
		if e == nil || e.statedID == e.mem.ID {
			continue
		}
		lines := strings.SplitAfter(string(d.blocks[i].raw), "\n")
		eol := "\n"
		if strings.HasSuffix(lines[0], "\r\n") {
			eol = "\r\n"
		}
		switch {
		case e.kind == ralphEntry:
			lines[0] = "### " + e.mem.ID + eol
		case e.idLine >= 0:
			lines[e.idLine] = "- ID: " + e.mem.ID + eol
		default:
			lines = slices.Insert(lines, 1, "- ID: "+e.mem.ID+eol)
			e.idLine = 1
		}
		d.blocks[i].raw = []byte(strings.Join(lines, ""))
		e.statedID = e.mem.ID
	}
}

// EncodeEntry returns m in the seed's format, with an "- ID:" line after the
// heading and continuation lines for multi-line content, followed by a blank
// line. The seed's parser reads it as the same title, tags, date and first
// content line. It fails with an error wrapping ErrInvalid when m could not
// be read back as written: empty id or content, an id with white space, a
// tag with a comma or line break, a title or date with a line break.
func EncodeEntry(m Memory) ([]byte, error) {
	content := NormalizeContent(m.Content)
	title := m.Title
	if title == "" {
		title = MakeTitle(content)
	}
	switch {
	case m.ID == "" || strings.ContainsFunc(m.ID, isSpace):
		return nil, fmt.Errorf("%w: id %q must be non-empty and contain no white space", ErrInvalid, m.ID)
	case content == "":
		return nil, fmt.Errorf("%w: content is empty; a memory needs some text", ErrInvalid)
	case strings.ContainsAny(title, "\r\n") || strings.TrimSpace(title) != title:
		return nil, fmt.Errorf("%w: title %q must be one line without surrounding spaces", ErrInvalid, title)
	case strings.ContainsAny(m.Date, "\r\n"):
		return nil, fmt.Errorf("%w: date %q must be one line", ErrInvalid, m.Date)
	}
	for _, t := range m.Tags {
		if strings.ContainsAny(t, ",\r\n") || strings.TrimSpace(t) != t || t == "" {
			return nil, fmt.Errorf("%w: tag %q must be non-empty, without commas, line breaks or surrounding spaces (tags are stored comma-separated)", ErrInvalid, t)
		}
	}
	var b strings.Builder
	b.WriteString("## " + title + "\n")
	b.WriteString("- ID: " + m.ID + "\n")
	b.WriteString(strings.TrimRight("- Tags: "+strings.Join(m.Tags, ", "), " ") + "\n")
	b.WriteString(strings.TrimRight("- Date: "+m.Date, " ") + "\n")
	first, rest, _ := strings.Cut(content, "\n")
	b.WriteString("- Content: " + first + "\n")
	if rest != "" {
		for l := range strings.SplitSeq(rest, "\n") {
			if l != "" {
				b.WriteString("  " + l)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return []byte(b.String()), nil
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\v' || r == '\f'
}

// NormalizeContent returns content as it is stored: line breaks as "\n",
// no trailing white space on any line, no leading or trailing blank lines,
// and no leading white space on the first line (the seed trims it).
func NormalizeContent(content string) string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ReplaceAll(content, "\r", "\n")
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\v\f")
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// assignIDs gives every entry its id: the id stated in the file, or, for
// entries without one (or repeating an earlier entry's), an id derived from
// the entry's text that is the same on every run.
func assignIDs(d *Document) {
	used := make(map[string]bool, len(d.blocks))
	var derive []*entry
	for _, b := range d.blocks {
		if e := b.e; e != nil {
			if e.statedID != "" && !used[e.statedID] {
				e.mem.ID = e.statedID
				used[e.statedID] = true
			} else {
				derive = append(derive, e)
			}
		}
	}
	for _, e := range derive {
		for n := 1; ; n++ {
			id := derivedID(e, n)
			if !used[id] {
				e.mem.ID = id
				used[id] = true
				break
			}
		}
	}
}

// derivedID is mem-<unix seconds of the entry's date, 0 if none>-<8 hex of
// a hash of its text and n>, shaped like the ids Add writes so tools that
// match mem-<digits>-<hex> accept it.
func derivedID(e *entry, n int) string {
	h := sha256.New()
	for _, s := range []string{strconv.Itoa(int(e.kind)), e.mem.Title, strings.Join(e.mem.Tags, "\x1f"), e.mem.Date, e.mem.Content, strconv.Itoa(n)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	var unix int64
	if t, err := time.Parse(time.DateOnly, e.mem.Date); err == nil && t.Unix() > 0 {
		unix = t.Unix()
	}
	return "mem-" + strconv.FormatInt(unix, 10) + "-" + hex.EncodeToString(h.Sum(nil)[:4])
}
