package memorymd

import (
	"errors"
	"fmt"
	"strings"
)

// Block markers.
const (
	MachineBlockStart = "<!-- MACHINE_BLOCK_START -->"
	MachineBlockEnd   = "<!-- MACHINE_BLOCK_END -->"
	UserBlockStart    = "<!-- USER_BLOCK_START -->"
	UserBlockEnd      = "<!-- USER_BLOCK_END -->"
)

// Errors of MEMORY.md documents.
var (
	// ErrMalformedBlocks: the block markers of a document do not form at
	// most one machine block and one user block, each opened and closed
	// once, neither inside the other. The error is a *BlockError.
	ErrMalformedBlocks = errors.New("memorymd: malformed MEMORY.md blocks")
	// ErrNoMachineBlock: a section or machine block update on a document
	// that has no machine block. The Bank does not add one, because all of
	// such a document belongs to the user.
	ErrNoMachineBlock = errors.New("memorymd: document has no machine block")
	// ErrInvalidSection: a section name or body cannot be written without
	// changing the structure of the document (a body holding a "## "
	// heading, a block marker or an unclosed code fence; an empty or
	// multi-line name; a name that occurs twice).
	ErrInvalidSection = errors.New("memorymd: invalid section")
)

// BlockError reports malformed block markers. It wraps ErrMalformedBlocks.
type BlockError struct {
	Line   int    // 1-based line of the offending marker (the opening marker for a missing end)
	Marker string // the marker on that line, e.g. MachineBlockStart
	Reason string
}

func (e *BlockError) Error() string {
	return fmt.Sprintf("%s: line %d (%s): %s", ErrMalformedBlocks.Error(), e.Line, e.Marker, e.Reason)
}

// Unwrap returns ErrMalformedBlocks.
func (e *BlockError) Unwrap() error { return ErrMalformedBlocks }

// mdSpan locates a block by byte offsets: text[open:inner] is the start
// marker line, text[inner:end] the content, text[end:close] the end
// marker line (with its line ending, if any).
type mdSpan struct {
	open, inner, end, close int
	line                    int // 1-based line of the start marker
}

// File is a parsed MEMORY.md document. It is immutable: the With methods
// return a new document and leave every byte outside the machine block as
// it was.
type File struct {
	text    string
	machine *mdSpan
	user    *mdSpan
}

// Section is one "## Name" section of the machine block.
type Section struct {
	Name string // heading text, trimmed
	Body string // text under the heading, without surrounding blank lines
}

type mdMarkerKind int

const (
	mdNone mdMarkerKind = iota
	mdMachineStart
	mdMachineEnd
	mdUserStart
	mdUserEnd
)

var mdMarkerText = map[mdMarkerKind]string{
	mdMachineStart: MachineBlockStart, mdMachineEnd: MachineBlockEnd,
	mdUserStart: UserBlockStart, mdUserEnd: UserBlockEnd,
}

// mdMarker recognises a marker line, tolerating spaces.
func mdMarker(line string) mdMarkerKind {
	t := strings.TrimSpace(line)
	inner, ok := strings.CutPrefix(t, "<!--")
	if !ok {
		return mdNone
	}
	inner, ok = strings.CutSuffix(inner, "-->")
	if !ok {
		return mdNone
	}
	switch strings.TrimSpace(inner) {
	case "MACHINE_BLOCK_START":
		return mdMachineStart
	case "MACHINE_BLOCK_END":
		return mdMachineEnd
	case "USER_BLOCK_START":
		return mdUserStart
	case "USER_BLOCK_END":
		return mdUserEnd
	}
	return mdNone
}

// lines calls fn for each line of s with its start offset, its text
// without line ending and the offset after its line ending. It stops when
// fn returns false.
func mdLines(s string, fn func(start int, line string, next int) bool) {
	for i := 0; i < len(s); {
		j := strings.IndexByte(s[i:], '\n')
		next := len(s)
		line := s[i:]
		if j >= 0 {
			next = i + j + 1
			line = s[i : i+j]
		}
		if !fn(i, strings.TrimSuffix(line, "\r"), next) {
			return
		}
		i = next
	}
}

// Parse parses the blocks of a MEMORY.md document. A document
// without blocks is valid. Markers that do not form at most one machine
// block and one user block, properly closed and not nested, are a
// *BlockError.
func Parse(text string) (*File, error) {
	m := &File{text: text}
	var open *mdSpan
	openKind := mdNone
	lineNo := 0
	var err error
	mdLines(text, func(start int, line string, next int) bool {
		lineNo++
		k := mdMarker(line)
		switch k {
		case mdNone:
			return true
		case mdMachineStart, mdUserStart:
			name, seen := "MACHINE_BLOCK", m.machine
			if k == mdUserStart {
				name, seen = "USER_BLOCK", m.user
			}
			switch {
			case open != nil:
				err = &BlockError{Line: lineNo, Marker: mdMarkerText[k], Reason: fmt.Sprintf(
					"blocks cannot be nested: the %s opened on line %d is still open; close it with %s first",
					mdBlockName(openKind), open.line, mdMarkerText[openKind+1])}
			case seen != nil:
				err = &BlockError{Line: lineNo, Marker: mdMarkerText[k], Reason: fmt.Sprintf(
					"duplicated %s: one was already opened on line %d; a document has at most one", name, seen.line)}
			default:
				open = &mdSpan{open: start, inner: next, line: lineNo}
				openKind = k
			}
		case mdMachineEnd, mdUserEnd:
			if open == nil || openKind != k-1 {
				reason := fmt.Sprintf("%s closes no open block", mdMarkerText[k])
				if open != nil {
					reason = fmt.Sprintf("%s closes no open block; the %s opened on line %d is still open",
						mdMarkerText[k], mdBlockName(openKind), open.line)
				}
				err = &BlockError{Line: lineNo, Marker: mdMarkerText[k], Reason: reason}
				break
			}
			open.end, open.close = start, next
			if k == mdMachineEnd {
				m.machine = open
			} else {
				m.user = open
			}
			open, openKind = nil, mdNone
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	if open != nil {
		return nil, &BlockError{Line: open.line, Marker: mdMarkerText[openKind], Reason: fmt.Sprintf(
			"the %s is never closed; add %s on a line of its own", mdBlockName(openKind), mdMarkerText[openKind+1])}
	}
	return m, nil
}

func mdBlockName(k mdMarkerKind) string {
	if k == mdUserStart || k == mdUserEnd {
		return "USER_BLOCK"
	}
	return "MACHINE_BLOCK"
}

// String returns the document text.
func (m *File) String() string { return m.text }

// HasMachineBlock reports whether the document has a machine block.
func (m *File) HasMachineBlock() bool { return m.machine != nil }

// HasUserBlock reports whether the document has a user block.
func (m *File) HasUserBlock() bool { return m.user != nil }

// MentionsUserBlock reports whether any line of text is a user block
// marker. Unlike Parse it never fails, so it tells whether a document whose
// blocks are malformed still holds text the user claimed.
func MentionsUserBlock(text string) bool {
	found := false
	mdLines(text, func(_ int, line string, _ int) bool {
		k := mdMarker(line)
		found = k == mdUserStart || k == mdUserEnd
		return !found
	})
	return found
}

// MachineBlock returns the text between the machine block markers.
func (m *File) MachineBlock() (string, bool) {
	if m.machine == nil {
		return "", false
	}
	return m.text[m.machine.inner:m.machine.end], true
}

// UserBlock returns the text between the user block markers.
func (m *File) UserBlock() (string, bool) {
	if m.user == nil {
		return "", false
	}
	return m.text[m.user.inner:m.user.end], true
}

// Outside returns the text before the machine block's content (up to and
// including the start marker line) and after it (from the end marker line
// on). Their concatenation is what a machine block update must keep byte
// for byte. Without a machine block, before is the whole text.
func (m *File) Outside() (before, after string) {
	if m.machine == nil {
		return m.text, ""
	}
	return m.text[:m.machine.inner], m.text[m.machine.end:]
}

// eol is the line ending of the start marker line, used for new lines.
func (m *File) eol() string {
	if m.machine != nil && strings.HasSuffix(m.text[m.machine.open:m.machine.inner], "\r\n") {
		return "\r\n"
	}
	return "\n"
}

// heading returns the name of a level-2 ATX heading line.
func mdHeading(line string) (string, bool) {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "", false
	}
	rest, ok := strings.CutPrefix(t, "##")
	if !ok || (rest != "" && rest[0] != ' ' && rest[0] != '\t') {
		return "", false
	}
	name := strings.TrimSpace(rest)
	if trimmed := strings.TrimRight(name, "#"); trimmed != name && (trimmed == "" || strings.HasSuffix(trimmed, " ")) {
		name = strings.TrimSpace(trimmed) // closing sequence "## Name ##"
	}
	return name, true
}

// fence tracks fenced code blocks: it returns the new open fence after line.
func mdFence(open, line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return open
	}
	for _, f := range []string{"```", "~~~"} {
		if strings.HasPrefix(t, f) {
			n := len(t) - len(strings.TrimLeft(t, f[:1]))
			run := t[:n]
			switch {
			case open == "":
				return run
			case open[0] == run[0] && len(run) >= len(open) && strings.TrimSpace(t[n:]) == "":
				return ""
			}
		}
	}
	return open
}

// mdSecSpan locates a section inside the machine block content: c[head:body]
// is the heading line, c[body:end] the body.
type mdSecSpan struct {
	name            string
	head, body, end int
}

// sections splits the machine block content; openFence is the fence still
// open at its end ("" if none).
func mdSections(c string) (secs []mdSecSpan, openFence string) {
	mdLines(c, func(start int, line string, next int) bool {
		if openFence == "" {
			if name, ok := mdHeading(line); ok {
				if n := len(secs); n > 0 {
					secs[n-1].end = start
				}
				secs = append(secs, mdSecSpan{name: name, head: start, body: next, end: len(c)})
				return true
			}
		}
		openFence = mdFence(openFence, line)
		return true
	})
	return secs, openFence
}

// Sections returns the sections of the machine block in order.
func (m *File) Sections() []Section {
	c, ok := m.MachineBlock()
	if !ok {
		return nil
	}
	secs, _ := mdSections(c)
	out := make([]Section, len(secs))
	for i, s := range secs {
		out[i] = Section{Name: s.name, Body: mdTrimBlank(c[s.body:s.end])}
	}
	return out
}

// Section returns the body of the machine block section with the given
// name (compared trimmed and case-insensitively).
func (m *File) Section(name string) (string, bool) {
	for _, s := range m.Sections() {
		if strings.EqualFold(s.Name, strings.TrimSpace(name)) {
			return s.Body, true
		}
	}
	return "", false
}

func mdBlank(line string) bool { return strings.TrimSpace(line) == "" }

// mdBlankEdges returns the offsets of the first and past the last non-blank
// line of s (lo == hi when every line is blank).
func mdBlankEdges(s string) (lo, hi int) {
	lo, hi = -1, 0
	mdLines(s, func(start int, line string, next int) bool {
		if !mdBlank(line) {
			if lo < 0 {
				lo = start
			}
			hi = next
		}
		return true
	})
	if lo < 0 {
		return 0, 0
	}
	return lo, hi
}

// mdTrimBlank removes leading and trailing blank lines and the final
// line ending.
func mdTrimBlank(s string) string {
	lo, hi := mdBlankEdges(s)
	return strings.TrimSuffix(strings.TrimSuffix(s[lo:hi], "\n"), "\r")
}

// WithSection returns the document with the body of one machine block
// section replaced, or the section appended at the end of the machine
// block when it does not exist. body is Markdown without the heading (a
// first line repeating "## name" is dropped); its line endings are
// converted to the document's. The heading line and the blank lines around
// the old body are kept. Every byte outside the machine block stays as it
// was.
func (m *File) WithSection(name, body string) (*File, error) {
	name = strings.TrimSpace(name)
	if h, _ := mdHeading("## " + name); name == "" || h != name || strings.ContainsAny(name, "\r\n") {
		return nil, fmt.Errorf("%w: section name %q must be one non-empty line that is not only '#' characters, e.g. \"Current Focus\"", ErrInvalidSection, name)
	}
	c, ok := m.MachineBlock()
	if !ok {
		return nil, fmt.Errorf("%w: cannot write section %q; add %s and %s lines around the part the agent maintains",
			ErrNoMachineBlock, name, MachineBlockStart, MachineBlockEnd)
	}
	clean, err := mdSectionBody(name, body, m.eol())
	if err != nil {
		return nil, err
	}
	secs, openFence := mdSections(c)
	var found []mdSecSpan
	for _, s := range secs {
		if strings.EqualFold(s.name, name) {
			found = append(found, s)
		}
	}
	var inner string
	switch len(found) {
	case 0:
		if openFence != "" {
			return nil, fmt.Errorf("%w: cannot add section %q: the machine block ends inside an unclosed code fence %q", ErrInvalidSection, name, openFence)
		}
		eol := m.eol()
		sep := ""
		if lo, hi := mdBlankEdges(c); lo != hi && hi == len(c) {
			sep = eol // the last line has content: keep a blank line before the new heading
		}
		inner = c + sep + "## " + name + eol
		if clean != "" {
			inner += clean + eol
		}
	case 1:
		s := found[0]
		old := c[s.body:s.end]
		lo, hi := mdBlankEdges(old)
		lead, trail := old[:lo], old[hi:]
		if lo == hi {
			lead, trail = "", old
		}
		repl := trail
		if clean != "" {
			repl = lead + clean + m.eol() + trail
		}
		inner = c[:s.body] + repl + c[s.end:]
	default:
		return nil, fmt.Errorf("%w: the machine block has %d sections named %q; rename or merge them first", ErrInvalidSection, len(found), name)
	}
	return m.WithMachineBlock(inner)
}

// mdSectionBody checks and normalises a section body.
func mdSectionBody(name, body, eol string) (string, error) {
	body = strings.ReplaceAll(body, "\r\n", "\n")
	body = mdTrimBlank(body)
	if first, rest, _ := strings.Cut(body, "\n"); first != "" {
		if h, ok := mdHeading(first); ok && strings.EqualFold(h, name) {
			body = mdTrimBlank(rest)
		}
	}
	open := ""
	lineNo := 0
	var err error
	mdLines(body, func(_ int, line string, _ int) bool {
		lineNo++
		if mdMarker(line) != mdNone {
			err = fmt.Errorf("%w: body of section %q: line %d is a block marker (%s); markers cannot be written by a section update",
				ErrInvalidSection, name, lineNo, strings.TrimSpace(line))
			return false
		}
		if h, ok := mdHeading(line); ok && open == "" {
			err = fmt.Errorf("%w: body of section %q: line %d is a level-2 heading (## %s), which would start another section; use ### for sub-headings",
				ErrInvalidSection, name, lineNo, h)
			return false
		}
		open = mdFence(open, line)
		return true
	})
	if err != nil {
		return "", err
	}
	if open != "" {
		return "", fmt.Errorf("%w: body of section %q: code fence %q is never closed", ErrInvalidSection, name, open)
	}
	return strings.ReplaceAll(body, "\n", eol), nil
}

// WithMachineBlock returns the document with the content of its machine
// block replaced by inner, which must not contain block markers. A
// non-empty inner gets a final line ending so the end marker stays on its
// own line.
func (m *File) WithMachineBlock(inner string) (*File, error) {
	if m.machine == nil {
		return nil, fmt.Errorf("%w: add %s and %s lines around the part the agent maintains",
			ErrNoMachineBlock, MachineBlockStart, MachineBlockEnd)
	}
	if inner != "" && !strings.HasSuffix(inner, "\n") {
		inner += m.eol()
	}
	lineNo := 0
	var err error
	mdLines(inner, func(_ int, line string, _ int) bool {
		lineNo++
		if mdMarker(line) != mdNone {
			err = fmt.Errorf("%w: new machine block content: line %d is a block marker (%s); the content goes between the markers",
				ErrInvalidSection, lineNo, strings.TrimSpace(line))
		}
		return err == nil
	})
	if err != nil {
		return nil, err
	}
	before, after := m.Outside()
	return Parse(before + inner + after)
}
