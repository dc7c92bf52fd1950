package pgstore_test

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

func TestPrefixRange(t *testing.T) {
	tests := []struct {
		prefix, lo, hi string
		hasHi, ok      bool
	}{
		{"", "", "", false, true},
		{"a/", "a/", "a0", true, true},
		{"a", "a", "b", true, true},
		{"~", "~", "\x7f", true, true},
		{"\x7f", "\x7f", "\u0080", true, true}, // the successor of 0x7F is two bytes, still valid UTF-8
		{"é", "é", "ê", true, true},
		{"\xc3", "", "", false, true}, // a truncated character: no bound from it
		{"a\xc3", "a", "b", true, true},
		{"\uD7FF", "\uD7FF", "\uE000", true, true}, // skips the surrogates
		{"a\U0010FFFF", "a\U0010FFFF", "b", true, true},
		{"\U0010FFFF\U0010FFFF", "\U0010FFFF\U0010FFFF", "", false, true},
		{"a\x00", "", "", false, false},
		// Not UTF-8 and not a character cut off at the end: no key matches.
		{"\xff", "", "", false, false},
		{"a\xffb", "", "", false, false},
		{"a\xff", "", "", false, false},
		{"\xc3a", "", "", false, false},    // a truncated character, then more
		{"\xc3\xc3", "", "", false, false}, // two leading bytes
		{"\xe0\x80", "", "", false, false}, // overlong: E0 must be followed by A0..BF
		{"\xed\xa0", "", "", false, false}, // a surrogate
		{"\xf4\x90", "", "", false, false}, // past U+10FFFF
		{"\xc0", "", "", false, false},     // never valid
		{"\xe6\x97", "", "", false, true},  // 日 cut short
		{"\xf0\x9f\x98", "", "", false, true},
	}
	for _, tt := range tests {
		lo, hi, hasHi, ok := pgstore.PrefixRange(tt.prefix)
		assert.Equal(t, tt.ok, ok, "%q ok", tt.prefix)
		if !tt.ok {
			continue
		}
		assert.Equal(t, tt.lo, lo, "%q lo", tt.prefix)
		assert.Equal(t, tt.hasHi, hasHi, "%q hasHi", tt.prefix)
		assert.Equal(t, tt.hi, hi, "%q hi", tt.prefix)
	}
}

// For any prefix and any valid UTF-8 key, the key starts with prefix only
// if it lies in [lo, hi) (so the index range misses nothing), the bounds are
// valid UTF-8 without NUL (so PostgreSQL text can hold them), and when the
// prefix is valid UTF-8 the range holds nothing else.
func FuzzPrefixRange(f *testing.F) {
	for _, s := range [][2]string{
		{"a/", "a/b"}, {"a", "b"}, {"é", "éa"}, {"\xc3", "é"}, {"\U0010FFFF", "\U0010FFFFx"},
		{"\uD7FF", "\uE000"}, {"", "x"}, {"x\x7f", "x\u0080"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, prefix, key string) {
		if !utf8.ValidString(key) || strings.IndexByte(key, 0) >= 0 {
			return // not a possible stored key
		}
		lo, hi, hasHi, ok := pgstore.PrefixRange(prefix)
		if !ok {
			if strings.HasPrefix(key, prefix) {
				t.Fatalf("prefix %q refused but key %q starts with it", prefix, key)
			}
			return
		}
		for _, b := range []string{lo, hi} {
			if !utf8.ValidString(b) || strings.IndexByte(b, 0) >= 0 {
				t.Fatalf("prefix %q: bound %q is not valid UTF-8 text", prefix, b)
			}
		}
		inRange := key >= lo && (!hasHi || key < hi)
		if strings.HasPrefix(key, prefix) && !inRange {
			t.Fatalf("key %q starts with %q but is outside [%q, %q) (hasHi %v)", key, prefix, lo, hi, hasHi)
		}
		if utf8.ValidString(prefix) && inRange != strings.HasPrefix(key, lo) {
			t.Fatalf("key %q: in range [%q, %q) = %v, but starts with %q = %v", key, lo, hi, inRange, lo, !inRange)
		}
	})
}
