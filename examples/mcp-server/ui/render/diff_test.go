package render_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// checkDiff checks that d is a complete, consistent diff from a to b:
// the old side (' ' and '-') spells a, the new side (' ' and '+') spells b,
// and the line numbers count up from 1 on each side without gaps.
func checkDiff(t testing.TB, a, b string, d []render.Line) {
	t.Helper()
	var old, neu []string
	for _, l := range d {
		switch l.Op {
		case ' ':
			old, neu = append(old, l.Text), append(neu, l.Text)
			if l.Old != len(old) || l.New != len(neu) {
				t.Fatalf("line %+v: want numbers %d/%d", l, len(old), len(neu))
			}
		case '-':
			old = append(old, l.Text)
			if l.Old != len(old) || l.New != 0 {
				t.Fatalf("line %+v: want old number %d and no new number", l, len(old))
			}
		case '+':
			neu = append(neu, l.Text)
			if l.New != len(neu) || l.Old != 0 {
				t.Fatalf("line %+v: want new number %d and no old number", l, len(neu))
			}
		default:
			t.Fatalf("line %+v: unknown op %q", l, l.Op)
		}
	}
	if got := strings.Join(old, "\n"); got != strings.TrimSuffix(a, "\n") {
		t.Fatalf("old side spells %q, want %q", got, a)
	}
	if got := strings.Join(neu, "\n"); got != strings.TrimSuffix(b, "\n") {
		t.Fatalf("new side spells %q, want %q", got, b)
	}
}

func TestLineDiffMarksAddedAndRemovedLines(t *testing.T) {
	a := "# Title\nkeep one\nold line\nkeep two\n"
	b := "# Title\nkeep one\nnew line\nextra\nkeep two\n"
	d := render.LineDiff(a, b)
	assert.Equal(t, []render.Line{
		{Op: ' ', Old: 1, New: 1, Text: "# Title"},
		{Op: ' ', Old: 2, New: 2, Text: "keep one"},
		{Op: '-', Old: 3, Text: "old line"},
		{Op: '+', New: 3, Text: "new line"},
		{Op: '+', New: 4, Text: "extra"},
		{Op: ' ', Old: 4, New: 5, Text: "keep two"},
	}, d)
	checkDiff(t, a, b, d)
}

func TestLineDiffCases(t *testing.T) {
	tests := []struct{ name, a, b string }{
		{"equal", "a\nb\n", "a\nb\n"},
		{"both empty", "", ""},
		{"from empty", "", "x\ny\n"},
		{"to empty", "x\ny\n", ""},
		{"no final newline", "a\nb", "a\nc"},
		{"insert at start", "b\nc\n", "a\nb\nc\n"},
		{"delete at end", "a\nb\nc\n", "a\nb\n"},
		{"blank lines", "\n\n\n", "\n\nx\n\n"},
		{"crlf", "a\r\nb\r\n", "a\r\nc\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			checkDiff(t, tt.a, tt.b, render.LineDiff(tt.a, tt.b))
		})
	}
}

func TestLineDiffShowsAChangedFinalNewline(t *testing.T) {
	d := render.LineDiff("a\nb\n", "a\nb")
	assert.Equal(t, []render.Line{
		{Op: ' ', Old: 1, New: 1, Text: "a"},
		{Op: '-', Old: 2, Text: "b"},
		{Op: '+', New: 2, Text: "b"},
	}, d, "the last line lost its newline: shown changed, not equal")
}

func TestLineDiffAboveTheLimitIsWholeRemoveAndAdd(t *testing.T) {
	var a, b strings.Builder
	a.WriteString("# same start\n")
	b.WriteString("# same start\n")
	for i := range render.MaxDiffLines + 1 {
		fmt.Fprintf(&a, "old %d\n", i)
		fmt.Fprintf(&b, "new %d\n", i)
	}
	a.WriteString("same end\n")
	b.WriteString("same end\n")
	assert.True(t, render.DiffTooLarge(a.String(), b.String()))
	d := render.LineDiff(a.String(), b.String())
	checkDiff(t, a.String(), b.String(), d)
	require.Len(t, d, 2*(render.MaxDiffLines+1)+2)
	assert.Equal(t, render.Line{Op: ' ', Old: 1, New: 1, Text: "# same start"}, d[0])
	for i, l := range d[1 : len(d)-1] {
		want := byte('-')
		if i > render.MaxDiffLines {
			want = '+'
		}
		if l.Op != want {
			t.Fatalf("line %d: op %q, want %q", i+1, l.Op, want)
		}
	}
	assert.Equal(t, render.Line{Op: ' ', Old: render.MaxDiffLines + 3, New: render.MaxDiffLines + 3, Text: "same end"}, d[len(d)-1])
}

func TestLineDiffOfALongDocumentWithASmallChangeIsExact(t *testing.T) {
	var a, b strings.Builder
	n := 4 * render.MaxDiffLines
	for i := range n {
		fmt.Fprintf(&a, "line %d\n", i)
		if i == n/2 {
			b.WriteString("changed\nand added\n")
		} else {
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	assert.False(t, render.DiffTooLarge(a.String(), b.String()))
	d := render.LineDiff(a.String(), b.String())
	checkDiff(t, a.String(), b.String(), d)
	var changed []render.Line
	for _, l := range d {
		if l.Op != ' ' {
			changed = append(changed, l)
		}
	}
	assert.Equal(t, []render.Line{
		{Op: '-', Old: n/2 + 1, Text: fmt.Sprintf("line %d", n/2)},
		{Op: '+', New: n/2 + 1, Text: "changed"},
		{Op: '+', New: n/2 + 2, Text: "and added"},
	}, changed)
}

func TestDiffTooLargeAtTheLimit(t *testing.T) {
	exact := strings.Repeat("x\n", render.MaxDiffLines)
	assert.False(t, render.DiffTooLarge(exact, ""), "exactly MaxDiffLines differing lines are matched")
	assert.True(t, render.DiffTooLarge(exact+"x\n", ""))
	assert.False(t, render.DiffTooLarge(strings.TrimSuffix(exact, "\n"), ""), "a last line without newline counts once")
}

func FuzzLineDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nc\nd\n")
	f.Add("", "x")
	f.Add("x\n", "x")
	f.Add("\n\n", "\r\n")
	f.Fuzz(func(t *testing.T, a, b string) {
		checkDiff(t, a, b, render.LineDiff(a, b))
	})
}
