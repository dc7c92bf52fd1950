package memories

import (
	"bytes"
	"regexp"
	"strings"
)

// Document is a parsed memories file. It keeps every byte of the input:
// Format(Parse(b)) returns b unchanged, so text the parser does not
// understand (hand-written notes, other headings) survives every rewrite.
// Entries are kept as the exact bytes they were read from; only Delete
// (and Append into a ralph file's section) changes existing bytes.
//
// A Document is not safe for concurrent use.
type Document struct {
	blocks []block
	mems   []Memory // cache of entry memories in file order, nil = stale
	// fragile: some id depends on another entry being there (a derived id
	// that had to skip a taken one, or a repeated stated id), so a Delete
	// must check every other id.
	fragile bool
}

// block is a run of the file: either text the parser does not interpret,
// or one entry.
type block struct {
	raw []byte
	e   *entry // nil for text
}

type entryKind uint8

const (
	seedEntry  entryKind = iota // "## title" + "- Key: value" lines
	ralphEntry                  // "### mem-…" + "> " lines + "<!-- tags | created -->"
)

type entry struct {
	kind     entryKind
	mem      Memory
	statedID string // the id written in the file, "" if none
	idLine   int    // index of the line stating the id within raw, -1 if none
	copy     bool   // repeats an earlier entry word for word: the same memory
}

// Parse reads a memories file. It never fails: whatever is not an entry is
// kept as text. It reads the plain format ("## title", "- Tags:",
// "- Date:", "- Content:" lines, plus this package's "- ID:" line and
// indented content continuation lines) and ralph-orchestrator's format
// ("## Patterns|Decisions|Fixes|Context" sections, "### mem-…" entries,
// "> " content lines and "<!-- tags: … | created: … -->" metadata), also
// mixed in one file.
//
// A "## " heading is an entry only when at least one field line follows it
// before the next heading; a heading without fields (such as ralph's
// "## Patterns" or a hand-written "## Notes") is text. Within a seed entry the
// last "- Content:" wins, as in the reference parser; the indented lines after
// it continue the content. A ralph entry without "> " lines is text, as
// ralph-orchestrator skips it. An entry that repeats an earlier one word
// for word (title, tags, date and content, without an id of its own or with
// the same one) is a copy of the same memory: it has the same id and is
// listed once.
func Parse(data []byte) *Document {
	p := parser{data: data}
	p.splitLines()
	return p.parse()
}

// Format returns the bytes of d. Format(Parse(b)) is b.
func Format(d *Document) []byte {
	n := 0
	for _, b := range d.blocks {
		n += len(b.raw)
	}
	out := make([]byte, 0, n)
	for _, b := range d.blocks {
		out = append(out, b.raw...)
	}
	return out
}

type parser struct {
	data  []byte
	lines []int // start offset of each line; lines[len-1] == len(data) sentinel
	doc   Document
	text  int // first line of the pending text block
	rtype string
	// hashes counts the hash computations of id derivation, so a test can
	// show that parsing is linear without timing it.
	hashes int
}

func (p *parser) splitLines() {
	p.lines = make([]int, 0, bytes.Count(p.data, []byte{'\n'})+2)
	for off := 0; off < len(p.data); {
		p.lines = append(p.lines, off)
		i := bytes.IndexByte(p.data[off:], '\n')
		if i < 0 {
			off = len(p.data)
		} else {
			off += i + 1
		}
	}
	p.lines = append(p.lines, len(p.data))
}

func (p *parser) n() int { return len(p.lines) - 1 }

// line returns line i without its line ending.
func (p *parser) line(i int) []byte {
	l := p.data[p.lines[i]:p.lines[i+1]]
	if n := len(l); n > 0 && l[n-1] == '\n' {
		l = l[:n-1]
	}
	if n := len(l); n > 0 && l[n-1] == '\r' {
		l = l[:n-1]
	}
	return l
}

func (p *parser) parse() *Document {
	for i := 0; i < p.n(); {
		l := p.line(i)
		next := i
		switch {
		case isSeedHeading(l):
			next = p.seed(i)
		case ralphID(l) != "":
			next = p.ralph(i)
		}
		if next > i {
			i = next
			continue
		}
		// A section heading counts only as text: a seed entry titled
		// "Decisions" must not retype the ralph entries after it (and
		// deleting it must not either).
		if m := ralphSection(l); m != "" {
			p.rtype = m
		}
		i++
	}
	p.flushText(p.n())
	p.hashes = assignIDs(&p.doc)
	return &p.doc
}

func (p *parser) flushText(upTo int) {
	if upTo > p.text {
		p.doc.blocks = append(p.doc.blocks, block{raw: p.data[p.lines[p.text]:p.lines[upTo]]})
	}
	p.text = upTo
}

// sectionEnd returns the index of the first heading line after i.
func (p *parser) sectionEnd(i int) int {
	for j := i + 1; j < p.n(); j++ {
		if isBoundary(p.line(j)) {
			return j
		}
	}
	return p.n()
}

// extent returns the end of an entry starting at line i whose last line
// read as part of it is last, within a section ending at end: the line
// after last, and the blank lines after that. Lines after it are text, also
// those that look like fields of the other format ("> quote" after a seed
// entry, "- Date:" after a ralph entry): the parser does not read them as
// this entry's, so deleting the entry leaves them (see Document.Delete).
func (p *parser) extent(last, end int) int {
	j := last + 1
	for j < end && isBlank(p.line(j)) {
		j++
	}
	return j
}

func (p *parser) addEntry(start, end int, e *entry) {
	p.flushText(start)
	p.doc.blocks = append(p.doc.blocks, block{raw: p.data[p.lines[start]:p.lines[end]], e: e})
	p.text = end
}

// seed parses the plain-format entry whose heading is line i and returns the
// line after it, or i if there is no entry.
func (p *parser) seed(i int) int {
	end := p.sectionEnd(i)
	e := &entry{kind: seedEntry, idLine: -1}
	e.mem.Title = string(bytes.TrimSpace(p.line(i)[3:]))
	last := -1
	for j := i + 1; j < end; j++ {
		l := p.line(j)
		switch {
		case bytes.HasPrefix(l, []byte("- ID:")):
			e.statedID = string(bytes.TrimSpace(l[5:]))
			e.idLine = j - i
		case bytes.HasPrefix(l, []byte("- Tags:")):
			e.mem.Tags = splitTags(string(l[7:]))
		case bytes.HasPrefix(l, []byte("- Date:")):
			e.mem.Date = string(bytes.TrimSpace(l[7:]))
		case bytes.HasPrefix(l, []byte("- Content:")):
			var b strings.Builder
			b.Write(bytes.TrimSpace(l[10:]))
			k := j + 1
			for k < end {
				if c, ok := continuation(p.line(k)); ok {
					b.WriteByte('\n')
					b.Write(c)
					j = k
					k++
					continue
				}
				if !isBlank(p.line(k)) {
					break
				}
				m := k
				for m < end && isBlank(p.line(m)) {
					m++
				}
				if m == end {
					break
				}
				if _, ok := continuation(p.line(m)); !ok {
					break
				}
				for ; k < m; k++ {
					b.WriteByte('\n')
				}
			}
			e.mem.Content = b.String()
		default:
			continue
		}
		last = j
	}
	if last < 0 {
		return i
	}
	stop := p.extent(last, end)
	p.addEntry(i, stop, e)
	return stop
}

// continuation reports whether l continues a multi-line content and returns
// the content line: l without its two-space (or tab) indent.
func continuation(l []byte) ([]byte, bool) {
	switch {
	case bytes.HasPrefix(l, []byte("  ")):
		return l[2:], true
	case bytes.HasPrefix(l, []byte("\t")):
		return l[1:], true
	}
	return nil, false
}

var ralphMeta = regexp.MustCompile(`<!-- tags: ([^|]*) \| created: (\d{4}-\d{2}-\d{2}) -->`)

// ralph parses the ralph-format entry whose heading is line i.
func (p *parser) ralph(i int) int {
	end := p.sectionEnd(i)
	e := &entry{kind: ralphEntry, idLine: 0}
	e.statedID = ralphID(p.line(i))
	var content []string
	var tags []string
	last := -1
	for j := i + 1; j < end; j++ {
		l := p.line(j)
		switch {
		case len(l) > 2 && l[0] == '>' && l[1] == ' ':
			content = append(content, string(l[2:]))
		case bytes.Contains(l, []byte("<!-- tags: ")):
			m := ralphMeta.FindSubmatch(l)
			if m == nil {
				continue
			}
			tags = splitTags(string(m[1]))
			e.mem.Date = string(m[2])
		default:
			continue
		}
		last = j
	}
	if len(content) == 0 {
		return i
	}
	typ := p.rtype
	if typ == "" {
		typ = "pattern"
	}
	e.mem.Tags = append([]string{typ}, removeTag(tags, typ)...)
	e.mem.Content = strings.Join(content, "\n")
	e.mem.Title = MakeTitle(e.mem.Content)
	stop := p.extent(last, end)
	p.addEntry(i, stop, e)
	return stop
}

func removeTag(tags []string, t string) []string {
	out := tags[:0:0]
	for _, x := range tags {
		if x != t {
			out = append(out, x)
		}
	}
	return out
}

func isSeedHeading(l []byte) bool {
	return bytes.HasPrefix(l, []byte("## ")) && len(bytes.TrimSpace(l[3:])) > 0
}

// isBoundary reports a line that ends an entry: a level 1 or 2 heading (the
// reference parser starts a new entry at every "## ") or a ralph entry heading.
func isBoundary(l []byte) bool {
	if len(l) == 0 || l[0] != '#' {
		return false
	}
	if bytes.Equal(l, []byte("#")) || bytes.Equal(l, []byte("##")) ||
		bytes.HasPrefix(l, []byte("# ")) || bytes.HasPrefix(l, []byte("## ")) {
		return true
	}
	return ralphID(l) != ""
}

func isBlank(l []byte) bool { return len(bytes.TrimSpace(l)) == 0 }

// ralphID returns the id of a "### mem-<digits>-<hex>" heading, or "".
func ralphID(l []byte) string {
	rest, ok := bytes.CutPrefix(l, []byte("### mem-"))
	if !ok {
		return ""
	}
	d := 0
	for d < len(rest) && rest[d] >= '0' && rest[d] <= '9' {
		d++
	}
	if d == 0 || d >= len(rest) || rest[d] != '-' {
		return ""
	}
	h := d + 1
	for h < len(rest) && (rest[h] >= '0' && rest[h] <= '9' || rest[h] >= 'a' && rest[h] <= 'f') {
		h++
	}
	if h == d+1 || h < len(rest) && rest[h] != ' ' && rest[h] != '\t' {
		return ""
	}
	return "mem-" + string(rest[:h])
}

// ralphSection returns the memory type of a ralph section heading, or "".
func ralphSection(l []byte) string {
	rest, ok := bytes.CutPrefix(l, []byte("## "))
	if !ok {
		return ""
	}
	for _, s := range [...]struct{ heading, typ string }{
		{"Patterns", "pattern"}, {"Decisions", "decision"}, {"Fixes", "fix"}, {"Context", "context"},
	} {
		if bytes.HasPrefix(rest, []byte(s.heading)) {
			return s.typ
		}
	}
	return ""
}

func splitTags(s string) []string {
	var tags []string
	for t := range strings.SplitSeq(s, ",") {
		if t = strings.TrimSpace(t); t != "" {
			tags = append(tags, t)
		}
	}
	return tags
}
