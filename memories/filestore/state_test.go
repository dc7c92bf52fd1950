package filestore

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
)

// The lock file's state record is read back exactly as written, and any
// other bytes (torn, foreign, negative) mean "nothing pending", never a
// position to cut the file at.
func FuzzParseState(f *testing.F) {
	f.Add(fmt.Appendf(nil, stateFormat, 3, 120, 40))
	f.Add([]byte("memories-lock v1 00000000000000000001 -0000000000000000001 00000000000000000005\n"))
	f.Add([]byte("memories-lock v1 1 2"))
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, b []byte) {
		gen, off, n := parseState(b)
		assert.True(t, gen >= 0 && off >= 0 && n >= 0, "negative state from %q", b)
		if gen|off|n != 0 {
			again, aoff, an := parseState(fmt.Appendf(nil, stateFormat, gen, off, n))
			assert.Equal(t, [3]int64{gen, off, n}, [3]int64{again, aoff, an}, "a record written from %q does not read back", b)
		}
	})
}

func TestParseStateRoundTrips(t *testing.T) {
	for _, v := range [][3]int64{{0, 0, 0}, {1, 0, 9}, {1 << 62, 1 << 40, 1 << 20}} {
		gen, off, n := parseState(fmt.Appendf(nil, stateFormat, v[0], v[1], v[2]))
		assert.Equal(t, v, [3]int64{gen, off, n})
	}
	gen, off, n := parseState([]byte("memories-lock v1 00000000000000000001 -0000000000000000001 00000000000000000005\n"))
	assert.Equal(t, [3]int64{}, [3]int64{gen, off, n}, "a negative offset is not a journal")
}
