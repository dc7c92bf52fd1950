package textsearch

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/transform"
	"golang.org/x/text/unicode/norm"
)

// Fold returns s folded for matching: Unicode compatibility normalisation
// (NFKC: composed and decomposed "café" alike, full-width ASCII and the
// ideographic space as ASCII, half-width katakana as full-width with their
// sound marks composed, "ﬁ" as "fi", "①" as "1") and full case folding
// ("Straße" as "strasse"), as golang.org/x/text implements them.
func Fold(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	var f Folder
	return string(f.AppendFold(nil, s))
}

// Folder folds with reusable buffers; not safe for concurrent use.
type Folder struct {
	caser cases.Caser
	ready bool
	tmp   []byte
	fold  []byte
}

// AppendFold appends Fold(s) to dst: ASCII directly, anything else
// through NFKC, case folding and NFKC again (folding can leave text that
// is no longer normalised).
func (f *Folder) AppendFold(dst []byte, s string) []byte {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		return dst
	}
	if norm.NFKC.IsNormalString(s) && caseless(s) {
		// Most CJK text: only ASCII letters to lower, unless a lowered
		// letter now composes with a mark after it ("W\u030a").
		start := len(dst)
		for i := 0; i < len(s); i++ {
			c := s[i]
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
		}
		if norm.NFKC.IsNormal(dst[start:]) {
			return dst
		}
		dst = dst[:start]
	}
	if !f.ready {
		f.caser, f.ready = cases.Fold(), true
	}
	f.tmp = norm.NFKC.AppendString(f.tmp[:0], s)
	folded, _, err := transform.Append(f.caser, f.fold[:0], f.tmp)
	if err != nil { // not reachable for valid UTF-8 or not; keep NFKC alone
		folded = f.tmp
	} else {
		f.fold = folded
	}
	return norm.NFKC.Append(dst, cherokeeUpper(folded)...)
}

// cherokeeUpper maps the Cherokee letters of b to their capitals, in
// place: case folding maps Cherokee to its capitals (CaseFolding.txt),
// but golang.org/x/text's cases.Fold swaps the two cases, so folding
// twice would undo the first folding.
func cherokeeUpper(b []byte) []byte {
	for i := 0; i < len(b); {
		r, size := utf8.DecodeRune(b[i:])
		var up rune
		switch {
		case 0x13A0 <= r && r <= 0x13F5:
			up = r
		case 0xAB70 <= r && r <= 0xABBF:
			up = r - 0xAB70 + 0x13A0
		case 0x13F8 <= r && r <= 0x13FD:
			up = r - 8
		default:
			i += size
			continue
		}
		if up != r { // both encode in three bytes
			utf8.EncodeRune(b[i:], up)
		}
		i += size
	}
	return b
}

// caseless reports whether s has no rune outside ASCII that case folding
// could change: none with another case (simple folding), and none of the
// few that only full folding changes without being changed by NFKC already
// (TestFoldShortcutAgrees checks every rune).
func caseless(s string) bool {
	for _, r := range s {
		if r < utf8.RuneSelf || 0x3000 <= r && r <= 0x9FFF || 0xAC00 <= r && r <= 0xD7A3 {
			continue // ASCII, and the CJK blocks: no case (TestFoldShortcutAgrees)
		}
		if unicode.SimpleFold(r) != r || unicode.Is(fullFoldOnly, r) {
			return false
		}
	}
	return true
}

// fullFoldOnly holds the runes that full case folding changes although
// they have no simple case pair (CaseFolding.txt status F without C/S).
var fullFoldOnly = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x0130, Hi: 0x0130, Stride: 1}, {Lo: 0x0149, Hi: 0x0149, Stride: 1}, {Lo: 0x01F0, Hi: 0x01F0, Stride: 1},
	{Lo: 0x0390, Hi: 0x0390, Stride: 1}, {Lo: 0x03B0, Hi: 0x03B0, Stride: 1},
	{Lo: 0x0587, Hi: 0x0587, Stride: 1}, {Lo: 0x1E96, Hi: 0x1E9A, Stride: 1},
	{Lo: 0x1F50, Hi: 0x1F56, Stride: 2}, {Lo: 0x1FB2, Hi: 0x1FB4, Stride: 1},
	{Lo: 0x1FB6, Hi: 0x1FB7, Stride: 1}, {Lo: 0x1FC2, Hi: 0x1FC4, Stride: 1},
	{Lo: 0x1FC6, Hi: 0x1FC7, Stride: 1}, {Lo: 0x1FD2, Hi: 0x1FD3, Stride: 1},
	{Lo: 0x1FD6, Hi: 0x1FD7, Stride: 1}, {Lo: 0x1FE2, Hi: 0x1FE4, Stride: 1},
	{Lo: 0x1FE6, Hi: 0x1FE7, Stride: 1}, {Lo: 0x1FF2, Hi: 0x1FF4, Stride: 1},
	{Lo: 0x1FF6, Hi: 0x1FF7, Stride: 1}, {Lo: 0xFB00, Hi: 0xFB06, Stride: 1},
	{Lo: 0xFB13, Hi: 0xFB17, Stride: 1},
}}
