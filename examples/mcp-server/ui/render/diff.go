package render

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// MaxDiffLines bounds LineDiff's matching, whose cost grows with the
// product of the two line counts: above it in either text, LineDiff shows
// every old line removed and every new line added.
const MaxDiffLines = 5000

// Line is one line of a line diff.
type Line struct {
	Op       byte   // ' ' in both, '+' added in the new text, '-' removed from the old
	Old, New int    // 1-based line numbers in the old and new text, 0 when absent
	Text     string // the line without its "\n"
}

// LineDiff compares two texts line by line (go-difflib's SequenceMatcher,
// the algorithm of Python's difflib) and returns every line of both in
// reading order: unchanged lines once, removed lines before the lines
// added in their place.
//
// A text's last line counts as different from the same line followed by
// "\n", so a change of only the final newline shows as that line removed
// and added. When either text has more than MaxDiffLines lines, the result
// is the whole old text removed and the whole new text added;
// DiffTooLarge tells the page so it can say why.
func LineDiff(a, b string) []Line {
	al, bl := splitLines(a), splitLines(b)
	if DiffTooLarge(a, b) {
		return wholeDiff(al, bl)
	}
	m := difflib.NewMatcher(al, bl)
	out := make([]Line, 0, max(len(al), len(bl)))
	for _, op := range m.GetOpCodes() {
		switch op.Tag {
		case 'e':
			for i, j := op.I1, op.J1; i < op.I2; i, j = i+1, j+1 {
				out = append(out, Line{Op: ' ', Old: i + 1, New: j + 1, Text: trimEOL(al[i])})
			}
		case 'd', 'r', 'i':
			for i := op.I1; i < op.I2; i++ {
				out = append(out, Line{Op: '-', Old: i + 1, Text: trimEOL(al[i])})
			}
			for j := op.J1; j < op.J2; j++ {
				out = append(out, Line{Op: '+', New: j + 1, Text: trimEOL(bl[j])})
			}
		}
	}
	return out
}

// DiffTooLarge reports whether LineDiff gives up matching a and b because
// one has more than MaxDiffLines lines.
func DiffTooLarge(a, b string) bool {
	return lineCount(a) > MaxDiffLines || lineCount(b) > MaxDiffLines
}

func lineCount(s string) int {
	n := strings.Count(s, "\n")
	if s != "" && !strings.HasSuffix(s, "\n") {
		n++
	}
	return n
}

func wholeDiff(al, bl []string) []Line {
	out := make([]Line, 0, len(al)+len(bl))
	for i, s := range al {
		out = append(out, Line{Op: '-', Old: i + 1, Text: trimEOL(s)})
	}
	for j, s := range bl {
		out = append(out, Line{Op: '+', New: j + 1, Text: trimEOL(s)})
	}
	return out
}

// splitLines splits s after each "\n", keeping it, so a last line without
// one differs from the same line with one.
func splitLines(s string) []string {
	if s == "" {
		return nil
	}
	lines := strings.SplitAfter(s, "\n")
	if lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

func trimEOL(s string) string { return strings.TrimSuffix(s, "\n") }
