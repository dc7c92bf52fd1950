package render

import (
	"strings"

	"github.com/pmezard/go-difflib/difflib"
)

// MaxDiffLines bounds the part of two texts LineDiff matches line by line:
// the lines between their common beginning and common end. The matcher's
// cost grows with the product of that part's line counts and the number of
// changed blocks (on the loaded development machine, lines changed every
// other line: 0.2 s at 2,000 lines, 1.3 s at 5,000), so above it in either
// text that part is shown as all removed and all added.
const MaxDiffLines = 2000

// Line is one line of a line diff.
type Line struct {
	Op       byte   // ' ' in both, '+' added in the new text, '-' removed from the old
	Old, New int    // 1-based line numbers in the old and new text, 0 when absent
	Text     string // the line without its "\n"
}

// LineDiff compares two texts line by line and returns every line of both
// in reading order: unchanged lines once, removed lines before the lines
// added in their place. Lines the texts begin and end with in common are
// taken as they are; the lines between are matched with go-difflib's
// SequenceMatcher (the algorithm of Python's difflib), so a small change
// to a long document costs little and is shown exactly.
//
// A text's last line counts as different from the same line followed by
// "\n", so a change of only the final newline shows as that line removed
// and added. When the differing middle of either text has more than
// MaxDiffLines lines, it is shown as removed and added whole;
// DiffTooLarge tells the page so it can say why.
func LineDiff(a, b string) []Line {
	al, bl := splitLines(a), splitLines(b)
	pre, suf := commonEnds(al, bl)
	out := make([]Line, 0, max(len(al), len(bl)))
	for i := range pre {
		out = append(out, Line{Op: ' ', Old: i + 1, New: i + 1, Text: trimEOL(al[i])})
	}
	am, bm := al[pre:len(al)-suf], bl[pre:len(bl)-suf]
	if len(am) > MaxDiffLines || len(bm) > MaxDiffLines {
		out = appendWhole(out, am, bm, pre)
	} else {
		out = appendMatched(out, am, bm, pre)
	}
	for k := range suf {
		i, j := len(al)-suf+k, len(bl)-suf+k
		out = append(out, Line{Op: ' ', Old: i + 1, New: j + 1, Text: trimEOL(al[i])})
	}
	return out
}

// DiffTooLarge reports whether LineDiff shows part of a and b as removed
// and added whole because their differing middle is above MaxDiffLines.
func DiffTooLarge(a, b string) bool {
	al, bl := splitLines(a), splitLines(b)
	pre, suf := commonEnds(al, bl)
	return len(al)-pre-suf > MaxDiffLines || len(bl)-pre-suf > MaxDiffLines
}

// commonEnds counts the lines a and b begin with in common, then the lines
// they end with in common among the rest.
func commonEnds(a, b []string) (pre, suf int) {
	for pre < len(a) && pre < len(b) && a[pre] == b[pre] {
		pre++
	}
	for suf < len(a)-pre && suf < len(b)-pre && a[len(a)-1-suf] == b[len(b)-1-suf] {
		suf++
	}
	return pre, suf
}

// appendMatched appends the diff of am and bm, which start after off
// common lines.
func appendMatched(out []Line, am, bm []string, off int) []Line {
	for _, op := range difflib.NewMatcher(am, bm).GetOpCodes() {
		switch op.Tag {
		case 'e':
			for i, j := op.I1, op.J1; i < op.I2; i, j = i+1, j+1 {
				out = append(out, Line{Op: ' ', Old: off + i + 1, New: off + j + 1, Text: trimEOL(am[i])})
			}
		case 'd', 'r', 'i':
			for i := op.I1; i < op.I2; i++ {
				out = append(out, Line{Op: '-', Old: off + i + 1, Text: trimEOL(am[i])})
			}
			for j := op.J1; j < op.J2; j++ {
				out = append(out, Line{Op: '+', New: off + j + 1, Text: trimEOL(bm[j])})
			}
		}
	}
	return out
}

// appendWhole appends am as removed and bm as added, numbered after off.
func appendWhole(out []Line, am, bm []string, off int) []Line {
	for i, s := range am {
		out = append(out, Line{Op: '-', Old: off + i + 1, Text: trimEOL(s)})
	}
	for j, s := range bm {
		out = append(out, Line{Op: '+', New: off + j + 1, Text: trimEOL(s)})
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
