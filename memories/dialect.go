package memories

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"time"
)

// ralph-orchestrator's memory types, in the order of its sections.
var ralphTypes = [...]struct{ typ, section string }{
	{"pattern", "Patterns"}, {"decision", "Decisions"}, {"fix", "Fixes"}, {"context", "Context"},
}

func ralphSectionOf(typ string) string {
	for _, t := range ralphTypes {
		if t.typ == typ {
			return t.section
		}
	}
	return ""
}

// RalphDialect reports whether d is in ralph-orchestrator's format: the
// first line that tells the formats apart is a ralph section heading
// ("## Patterns", "## Decisions", "## Fixes", "## Context") or a ralph
// entry, not a plain entry. Append writes into such a file in
// ralph's format; an empty file, or one that starts with plain entries,
// gets the plain format.
func (d *Document) RalphDialect() bool {
	for _, b := range d.blocks {
		if b.e != nil {
			return b.e.kind == ralphEntry
		}
		for l := range bytes.SplitSeq(b.raw, []byte{'\n'}) {
			if ralphSection(bytes.TrimSuffix(l, []byte{'\r'})) != "" {
				return true
			}
		}
	}
	return false
}

// isRalphHead reports whether a file starting with head is in ralph's
// format (see RalphDialect), reading only head.
func isRalphHead(head []byte) bool {
	if i := bytes.LastIndexByte(head, '\n'); i >= 0 {
		head = head[:i+1] // a cut line could be half a heading
	}
	return Parse(head).RalphDialect()
}

// ralphShape returns m as it is stored in a ralph file: the type (the first
// tag if it names one of ralph's types, else "pattern") first, then the other
// tags; content without blank lines (ralph's format cannot hold them); the
// title derived from the content, as ralph does not store one.
func ralphShape(m Memory) Memory {
	typ := "pattern"
	if len(m.Tags) > 0 && ralphSectionOf(m.Tags[0]) != "" {
		typ = m.Tags[0]
	}
	m.Tags = append([]string{typ}, removeTag(m.Tags, typ)...)
	var lines []string
	for l := range strings.SplitSeq(NormalizeContent(m.Content), "\n") {
		if l != "" {
			lines = append(lines, l)
		}
	}
	m.Content = strings.Join(lines, "\n")
	m.Title = MakeTitle(m.Content)
	return m
}

// encodeRalph returns m as a ralph entry block ("\n### id\n> line…\n
// <!-- tags: … | created: … -->\n"), refusing what ralph would read
// differently.
func encodeRalph(m Memory) ([]byte, error) {
	if ralphID([]byte("### "+m.ID)) != m.ID || len(m.ID)-strings.LastIndexByte(m.ID, '-')-1 < 4 {
		return nil, fmt.Errorf("%w: id %q must look like mem-<digits>-<at least 4 lowercase hex> in a ralph file", ErrInvalid, m.ID)
	}
	if _, err := time.Parse(time.DateOnly, m.Date); err != nil {
		return nil, fmt.Errorf("%w: date %q must be YYYY-MM-DD in a ralph file", ErrInvalid, m.Date)
	}
	if len(m.Tags) == 0 || ralphSectionOf(m.Tags[0]) == "" {
		return nil, fmt.Errorf("%w: the first tag of a memory in a ralph file is its type: pattern, decision, fix or context", ErrInvalid)
	}
	for _, t := range m.Tags {
		if strings.ContainsAny(t, ",|\r\n") || strings.Contains(t, "-->") || strings.TrimSpace(t) != t || t == "" {
			return nil, fmt.Errorf("%w: tag %q must be non-empty, without commas, \"|\", \"-->\", line breaks or surrounding spaces in a ralph file", ErrInvalid, t)
		}
	}
	if m.Content == "" || strings.Contains(m.Content, "\n\n") || NormalizeContent(m.Content) != m.Content {
		return nil, fmt.Errorf("%w: content must be non-empty, normalised and without blank lines in a ralph file", ErrInvalid)
	}
	if m.Title != "" && m.Title != MakeTitle(m.Content) {
		return nil, fmt.Errorf("%w: a ralph file stores no title; it is the start of the content, %q", ErrInvalid, MakeTitle(m.Content))
	}
	var b strings.Builder
	b.WriteString("\n### " + m.ID + "\n")
	for l := range strings.SplitSeq(m.Content, "\n") {
		b.WriteString("> " + l + "\n")
	}
	b.WriteString("<!-- tags: " + strings.Join(m.Tags[1:], ", ") + " | created: " + m.Date + " -->\n")
	return []byte(b.String()), nil
}

// appendRalph inserts m as ralph-orchestrator does: right after the heading
// line of its type's section, or, if there is none, in a new section at the
// end.
func (d *Document) appendRalph(m Memory) error {
	entry, err := encodeRalph(m)
	if err != nil {
		return err
	}
	if _, dup := d.Get(m.ID); dup {
		return fmt.Errorf("%w: id %q is already used by another memory", ErrInvalid, m.ID)
	}
	data := Format(d)
	heading := []byte("## " + ralphSectionOf(m.Tags[0]))
	var out []byte
	for off := 0; off < len(data); {
		end := len(data)
		if i := bytes.IndexByte(data[off:], '\n'); i >= 0 {
			end = off + i + 1
		}
		if bytes.HasPrefix(data[off:end], heading) && ralphSection(data[off:end]) == m.Tags[0] {
			out = slices.Concat(data[:end], newlineIfMissing(data[:end]), entry, data[end:])
			break
		}
		off = end
	}
	if out == nil {
		out = slices.Concat(data, newlineIfMissing(data), []byte("\n"), heading, []byte("\n"), entry)
	}
	next := Parse(out)
	if got, ok := next.Get(m.ID); !ok || !equalMemory(got, m) {
		return fmt.Errorf("%w: memory %q would not read back as written in this ralph file", ErrInvalid, m.ID)
	}
	*d = *next
	return nil
}

func newlineIfMissing(b []byte) []byte {
	if len(b) > 0 && b[len(b)-1] != '\n' {
		return []byte{'\n'}
	}
	return nil
}

func equalMemory(a, b Memory) bool {
	if b.Title == "" {
		b.Title = MakeTitle(b.Content)
	}
	return a.ID == b.ID && a.Title == b.Title && a.Date == b.Date && a.Content == b.Content && slices.Equal(a.Tags, b.Tags)
}
