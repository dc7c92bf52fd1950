package memories

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Parsing derives ids with a number of hash computations linear in the
// number of entries, also when thousands of entries without ids are
// identical (it used to try 1, 2, …, k for the k-th copy: quadratic).
func TestDerivingIDsIsLinear(t *testing.T) {
	entry := "## Same\n- Tags: x\n- Date: 2026-01-26\n- Content: same\n"
	for _, tc := range []struct {
		name string
		gen  func(i int) string
	}{
		{"identical", func(int) string { return entry }},
		{"distinct", func(i int) string { return fmt.Sprintf("## n%d\n- Content: note %d\n", i, i) }},
		{"identical ralph ids", func(int) string { return "### mem-1-abcd\n> same\n" }},
	} {
		for _, n := range []int{1000, 4000} {
			var b strings.Builder
			for i := range n {
				b.WriteString(tc.gen(i))
			}
			p := parser{data: []byte(b.String())}
			p.splitLines()
			p.parse()
			assert.LessOrEqual(t, p.hashes, n+1, "%s, %d entries: %d hashes", tc.name, n, p.hashes)
		}
	}
}

// The shortcut of Fold for text that needs no folding agrees with the full
// NFKC + case folding + NFKC path on every rune of the BMP and beyond.
func TestFoldShortcutAgrees(t *testing.T) {
	for r := rune(0x80); r <= 0x2FFFF; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		s := string(r)
		if !norm.NFKC.IsNormalString(s) || !caseless(s) {
			continue
		}
		full := norm.NFKC.String(cases.Fold().String(s))
		if full != s {
			t.Errorf("U+%04X: shortcut keeps %q, full folding gives %q", r, s, full)
		}
	}
	// ASCII letters lowered beside combining marks stay normalised.
	var f folder
	for c := 'A'; c <= 'z'; c++ {
		for m := rune(0x300); m <= 0x36F; m++ {
			s := string(c) + string(m) + "記"
			if got, want := string(f.appendFold(nil, s)), norm.NFKC.String(cases.Fold().String(norm.NFKC.String(s))); got != want {
				t.Errorf("%q: got %q, want %q", s, got, want)
			}
		}
	}
}
