package pgstore

import (
	"strings"
	"unicode/utf8"
)

// prefixRange returns the key range [lo, hi) holding every key that starts
// with prefix, for an index range scan under byte-order (COLLATE "C")
// comparison. hasHi is false when the range is unbounded above. ok is false
// when no valid key can start with prefix: it contains NUL (which a valid key
// never does and PostgreSQL text cannot hold), or a byte sequence that is not
// UTF-8 and is not the start of a character cut off at the end of prefix
// ("a\xffb", "\xc3a"), so List answers at once without reading the table.
//
// PostgreSQL text must be valid UTF-8, so the bounds are too: lo is prefix
// cut at its first invalid byte (a valid key can still start with prefix if
// it ends in a truncated character), and hi is lo with its last character
// incremented, after dropping trailing U+10FFFF, which has no successor.
// Because UTF-8 byte order is code point order and no encoding is a prefix of
// another, the strings in [lo, hi) are exactly those starting with lo. When lo
// is shorter than prefix the range is wider than needed: the caller filters
// with strings.HasPrefix.
func prefixRange(prefix string) (lo, hi string, hasHi, ok bool) {
	if strings.IndexByte(prefix, 0) >= 0 {
		return "", "", false, false
	}
	lo = prefix
	for i := 0; i < len(lo); {
		r, size := utf8.DecodeRuneInString(lo[i:])
		if r == utf8.RuneError && size <= 1 {
			// utf8.FullRuneInString is false only for the first bytes of
			// a valid encoding with the rest missing: anything else here
			// (an invalid byte, a truncated character followed by more
			// bytes) cannot occur in a valid key.
			if utf8.FullRuneInString(lo[i:]) {
				return "", "", false, false
			}
			lo = lo[:i]
			break
		}
		i += size
	}
	hiRunes := []rune(lo)
	for len(hiRunes) > 0 && hiRunes[len(hiRunes)-1] == utf8.MaxRune {
		hiRunes = hiRunes[:len(hiRunes)-1]
	}
	if len(hiRunes) == 0 {
		return lo, "", false, true
	}
	next := hiRunes[len(hiRunes)-1] + 1
	if next == 0xD800 { // surrogates are not characters: skip them
		next = 0xE000
	}
	hiRunes[len(hiRunes)-1] = next
	return lo, string(hiRunes), true, true
}
