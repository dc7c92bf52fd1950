package memories

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
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
