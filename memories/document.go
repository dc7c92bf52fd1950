package memories

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"
)

// Header is written at the top of a new memories file, as the reference tool does.
const Header = "# Memories\n\n"

// TitleRunes is how many runes of the content's first line a title keeps.
const TitleRunes = 50

// MakeTitle returns the title the format derives from content: its first line,
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
			if b.e != nil && !b.e.copy {
				d.mems = append(d.mems, b.e.mem)
			}
		}
	}
	return d.mems
}

// Len returns the number of memories in d (an entry repeated word for word
// is one memory; see Parse).
func (d *Document) Len() int { return len(d.all()) }

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

// Append adds m to d in d's own format. In the plain format (see
// RalphDialect) it goes at the end with an "- ID:" line, following the
// Appender rules: Header first if d is empty, a newline first if d does not
// end with one; m.Title defaults to MakeTitle(m.Content). In
// ralph-orchestrator's format it goes where ralph puts it, right after the
// heading of its type's section (a new section at the end if there is
// none); m must then already have ralph's shape: its type as first tag, no
// blank lines in the content, a YYYY-MM-DD date (Manager.Add does that). It
// returns an error wrapping ErrInvalid if m cannot be written so that it
// reads back the same (see EncodeEntry), or if its id is already in d.
func (d *Document) Append(m Memory) error {
	if d.RalphDialect() {
		return d.appendRalph(m)
	}
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

// Delete removes the memory with the given id: exactly the lines the
// parser read as its entry (heading, fields, content continuation lines and
// the blank lines after them), and every word-for-word copy of it. Text
// around it stays byte for byte, also hand-written lines after it that only
// look like fields. If such text would then read as fields of the entry
// before it, the deleted entry's heading line stays as a plain heading to
// keep it apart. No other memory changes: not its fields, not its id (an id
// derived from an entry's text is only written into the file in the rare
// case another id would otherwise change), and the file never grows. If no
// way of deleting keeps all of that, Delete changes nothing and returns an
// error wrapping ErrInvalid; an unknown id is an error wrapping ErrNotFound.
func (d *Document) Delete(id string) error {
	if d.find(id) < 0 {
		return fmt.Errorf("%w: no memory has id %q", ErrNotFound, id)
	}
	if d.plainRemoval(id) {
		d.blocks = slices.DeleteFunc(d.blocks, func(b block) bool { return b.e != nil && b.e.mem.ID == id })
		d.mems = nil
		return nil
	}
	var want []Memory
	for _, m := range d.all() {
		if m.ID != id {
			want = append(want, m)
		}
	}
	size := 0
	for _, b := range d.blocks {
		size += len(b.raw)
	}
	for _, keep := range []bool{false, true} {
		cand := d.without(id, keep)
		for range 3 {
			out := Format(cand)
			re := Parse(out)
			victims, ok := compareIDs(re.all(), want)
			if !ok {
				break // text around the entry would read differently
			}
			if len(victims) == 0 {
				if len(out) > size {
					break
				}
				d.blocks, d.mems = re.blocks, nil
				return nil
			}
			re.pin(victims)
			cand = re
		}
	}
	return fmt.Errorf("%w: deleting %q would change how other text of the file reads (or make the file bigger); "+
		"nothing was changed. Edit the file by hand, or give the entries around it \"- ID:\" lines", ErrInvalid, id)
}

// plainRemoval reports whether removing the blocks of id cannot change any
// other memory, without reparsing: no id depends on another entry, and each
// removed block is followed by the end, another entry, or text whose first
// non-blank line ends the section (so nothing can join the section before).
func (d *Document) plainRemoval(id string) bool {
	if d.fragile {
		return false
	}
	for i, b := range d.blocks {
		if b.e == nil || b.e.mem.ID != id || i+1 == len(d.blocks) || d.blocks[i+1].e != nil {
			continue
		}
		for l := range bytes.SplitSeq(d.blocks[i+1].raw, []byte{'\n'}) {
			l = bytes.TrimSuffix(l, []byte{'\r'})
			if isBlank(l) {
				continue
			}
			if !isBoundary(l) || ralphSection(l) != "" {
				return false // a ralph section heading is safe too, but rare: check it the long way
			}
			break
		}
	}
	return true
}

// without returns a copy of d without the blocks of the memory id; with
// keep, each removed block that has text after it in its section leaves
// its heading line behind.
func (d *Document) without(id string, keep bool) *Document {
	out := &Document{blocks: make([]block, 0, len(d.blocks))}
	for i, b := range d.blocks {
		if b.e == nil || b.e.mem.ID != id {
			out.blocks = append(out.blocks, b)
			continue
		}
		if keep && i+1 < len(d.blocks) && d.blocks[i+1].e == nil && !isBlank(d.blocks[i+1].raw) {
			head, _, _ := bytes.Cut(b.raw, []byte{'\n'})
			out.blocks = append(out.blocks, block{raw: append(head[:len(head):len(head)], '\n')})
		}
	}
	return out
}

// compareIDs checks that got has the memories of want, field for field, in
// order; victims maps the ids that changed to the ids they must keep.
func compareIDs(got, want []Memory) (victims map[string]string, ok bool) {
	if len(got) != len(want) {
		return nil, false
	}
	for i := range got {
		g, w := got[i], want[i]
		if g.Title != w.Title || g.Date != w.Date || g.Content != w.Content || !slices.Equal(g.Tags, w.Tags) {
			return nil, false
		}
		if g.ID != w.ID {
			if victims == nil {
				victims = map[string]string{}
			}
			victims[g.ID] = w.ID
		}
	}
	return victims, true
}

// pin writes the ids of victims (current id -> id to keep) into the file:
// an "- ID:" line for a plain entry, the heading for a ralph entry.
func (d *Document) pin(victims map[string]string) {
	for i := range d.blocks {
		e := d.blocks[i].e
		if e == nil {
			continue
		}
		keepID, ok := victims[e.mem.ID]
		if !ok {
			continue
		}
		lines := strings.SplitAfter(string(d.blocks[i].raw), "\n")
		eol := "\n"
		if strings.HasSuffix(lines[0], "\r\n") {
			eol = "\r\n"
		}
		switch {
		case e.kind == ralphEntry:
			lines[0] = "### " + keepID + eol
		case e.idLine >= 0:
			lines[e.idLine] = "- ID: " + keepID + eol
		default:
			lines = slices.Insert(lines, 1, "- ID: "+keepID+eol)
		}
		d.blocks[i].raw = []byte(strings.Join(lines, ""))
	}
}

// EncodeEntry returns m in the plain format, with an "- ID:" line after the
// heading and continuation lines for multi-line content, followed by a blank
// line. The reference parser reads it as the same title, tags, date and first
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
// no trailing white space (Unicode white space included) on any line, no leading or trailing blank lines,
// and no leading white space on the first line (the reference parser trims it).
func NormalizeContent(content string) string {
	content = strings.ReplaceAll(content, "\r\n", "\n")
	content = strings.ReplaceAll(content, "\r", "\n")
	lines := strings.Split(content, "\n")
	for i, l := range lines {
		// Unicode white space too (NBSP, U+2028): the reader trims the
		// first content line that way, so it must not end in any.
		lines[i] = strings.TrimRightFunc(l, unicode.IsSpace)
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// assignIDs gives every entry its id: the id stated in the file, or, for
// entries without one (or repeating an earlier entry's), an id derived from
// the entry's text that is the same on every run. An entry that repeats an
// earlier one word for word (same kind, title, tags, date and content, and
// no id of its own or the same one) is a copy: the same memory, the same
// id. It costs one hash per entry without a usable stated id, however many
// entries are alike. It returns the number of hashes computed.
func assignIDs(d *Document) (hashes int) {
	used := make(map[string]bool, len(d.blocks))
	stated := map[string]*entry{}
	var derive []*entry
	for _, b := range d.blocks {
		if e := b.e; e != nil {
			if e.statedID != "" && !used[e.statedID] {
				e.mem.ID = e.statedID
				used[e.statedID] = true
				stated[e.statedID] = e
			} else {
				d.fragile = d.fragile || e.statedID != ""
				derive = append(derive, e)
			}
		}
	}
	byKey := make(map[[sha256.Size]byte]string, len(derive))
	for _, e := range derive {
		if f := stated[e.statedID]; e.statedID != "" && f != nil && sameText(f, e) {
			e.mem.ID, e.copy = e.statedID, true
			continue
		}
		key := entryHash(e, 1)
		hashes++
		if id, ok := byKey[key]; ok {
			e.mem.ID, e.copy = id, true
			continue
		}
		id := idFromHash(e, key)
		d.fragile = d.fragile || used[id]
		for n := 2; used[id]; n++ {
			id = idFromHash(e, entryHash(e, n))
			hashes++
		}
		used[id] = true
		byKey[key] = id
		e.mem.ID = id
	}
	return hashes
}

func sameText(a, b *entry) bool {
	return a.kind == b.kind && a.mem.Title == b.mem.Title && a.mem.Date == b.mem.Date &&
		a.mem.Content == b.mem.Content && slices.Equal(a.mem.Tags, b.mem.Tags)
}

// entryHash hashes the entry's text and n; the same for entries that are
// copies of each other.
func entryHash(e *entry, n int) (sum [sha256.Size]byte) {
	h := sha256.New()
	for _, s := range []string{strconv.Itoa(int(e.kind)), e.mem.Title, strings.Join(e.mem.Tags, "\x1f"), e.mem.Date, e.mem.Content, strconv.Itoa(n)} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	h.Sum(sum[:0])
	return sum
}

// idFromHash is the derived id: mem-<unix seconds of the entry's date, 0 if
// none>-<8 hex of entryHash>, shaped like the ids Add writes so tools that
// match mem-<digits>-<hex> accept it.
func idFromHash(e *entry, sum [sha256.Size]byte) string {
	var unix int64
	if t, err := time.Parse(time.DateOnly, e.mem.Date); err == nil && t.Unix() > 0 {
		unix = t.Unix()
	}
	return "mem-" + strconv.FormatInt(unix, 10) + "-" + hex.EncodeToString(sum[:4])
}
