package memories

import (
	"bytes"
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Fold returns s folded for matching: full-width ASCII (U+FF01–U+FF5E) and
// the ideographic space (U+3000) become ASCII, half-width katakana become
// full-width (with their voiced sound marks composed), and letters are
// lower-cased. It is the subset of NFKC plus case folding that matters for
// Japanese, Chinese and Latin text typed on CJK keyboards.
func Fold(s string) string {
	i := 0
	for i < len(s) && s[i] < utf8.RuneSelf && (s[i] < 'A' || s[i] > 'Z') {
		i++
	}
	if i == len(s) {
		return s
	}
	return string(foldAppend(make([]byte, 0, len(s)), s))
}

// foldAppend appends Fold(s) to dst.
func foldAppend(dst []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if 'A' <= c && c <= 'Z' {
				c += 'a' - 'A'
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		i += size
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
		case r == 0x3000:
			r = ' '
		case r >= 0xFF61 && r <= 0xFF9F:
			r = halfKana[r-0xFF61]
		}
		if i < len(s) && (r >= 'ぁ' && r <= 'ゖ' || r >= 'ァ' && r <= 'ヺ') {
			next, nsize := utf8.DecodeRuneInString(s[i:])
			if v := compose(r, next); v != 0 {
				r = v
				i += nsize
			}
		}
		dst = utf8.AppendRune(dst, unicode.ToLower(r))
	}
	return dst
}

// halfKana maps U+FF61–U+FF9F to their full-width forms.
var halfKana = []rune("。「」、・ヲァィゥェォャュョッーアイウエオカキクケコサシスセソタチツテトナニヌネノハヒフヘホマミムメモヤユヨラリルレロワン゛゜")

// compose joins a kana with a following voiced or semi-voiced sound mark,
// half-width (U+FF9E, U+FF9F) or combining (U+3099, U+309A), as NFKC does;
// 0 if they do not compose.
func compose(base, mark rune) rune {
	switch mark {
	case 0x3099:
		mark = 0xFF9E
	case 0x309A:
		mark = 0xFF9F
	case 0xFF9E, 0xFF9F:
	default:
		return 0
	}
	if base >= 'ぁ' && base <= 'ゖ' { // hiragana: same layout as katakana
		if v := voiced(base+0x60, mark); v != 0 && v != 'ヷ' && v != 'ヺ' {
			return v - 0x60
		}
		return 0
	}
	return voiced(base, mark)
}

// voiced composes a full-width katakana with a following half-width voiced
// (U+FF9E) or semi-voiced (U+FF9F) sound mark; 0 if they do not compose.
func voiced(base, mark rune) rune {
	switch mark {
	case 0xFF9E:
		switch {
		case base == 'ウ':
			return 'ヴ'
		case base >= 'カ' && base <= 'チ' && (base-'カ')%2 == 0:
			return base + 1
		case base == 'ツ', base == 'テ', base == 'ト':
			return base + 1
		case base >= 'ハ' && base <= 'ホ' && (base-'ハ')%3 == 0:
			return base + 1
		case base == 'ワ':
			return 'ヷ'
		case base == 'ヲ':
			return 'ヺ'
		}
	case 0xFF9F:
		if base >= 'ハ' && base <= 'ホ' && (base-'ハ')%3 == 0 {
			return base + 2
		}
	}
	return 0
}

// Rank orders matches: a memory whose title or tags contain a query term
// ranks above one where the term is only in the content.
const (
	rankContent  = 1
	rankTitleTag = 2
)

// Match returns the memories of ms (given in file order) that match query,
// best first. The query is folded (see Fold) and split at white space; a
// memory matches when every term occurs in its folded title, content or one
// of its tags. Each term found in the title or a tag counts 2, found only in
// the content 1; higher totals come first, then newer dates, then entries
// later in the file. An empty query matches every memory, newest first.
// Match is pure; ms is not modified.
func Match(ms []Memory, query string) []Memory {
	var terms [][]byte
	for _, t := range strings.Fields(Fold(query)) {
		terms = append(terms, []byte(t))
	}
	type hit struct {
		i, score int
	}
	hits := make([]hit, 0, len(ms))
	var sc scorer
	for i := range ms {
		if s := sc.score(&ms[i], terms); s > 0 {
			hits = append(hits, hit{i, s})
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(
			cmp.Compare(b.score, a.score),
			cmp.Compare(ms[b.i].Date, ms[a.i].Date),
			cmp.Compare(b.i, a.i))
	})
	out := make([]Memory, len(hits))
	for k, h := range hits {
		out[k] = ms[h.i]
		out[k].Tags = slices.Clone(out[k].Tags)
	}
	return out
}

// scorer folds into reused buffers, so scanning 40,000 memories does not
// allocate per memory.
type scorer struct {
	title, content []byte
	tags           [][]byte
}

func (sc *scorer) score(m *Memory, terms [][]byte) int {
	if len(terms) == 0 {
		return 1
	}
	sc.title = foldAppend(sc.title[:0], m.Title)
	sc.content = sc.content[:0]
	folded := false
	for len(sc.tags) < len(m.Tags) {
		sc.tags = append(sc.tags, nil)
	}
	tags := sc.tags[:len(m.Tags)]
	for i, t := range m.Tags {
		tags[i] = foldAppend(tags[i][:0], t)
	}
	total := 0
	for _, t := range terms {
		if bytes.Contains(sc.title, t) || slices.ContainsFunc(tags, func(tag []byte) bool { return bytes.Contains(tag, t) }) {
			total += rankTitleTag
			continue
		}
		if !folded {
			sc.content = foldAppend(sc.content, m.Content)
			folded = true
		}
		if !bytes.Contains(sc.content, t) {
			return 0
		}
		total += rankContent
	}
	return total
}

// newestFirst returns the indexes of ms ordered by date, newest first, then
// by position, later first.
func newestFirst(ms []Memory) []int {
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(ms[b].Date, ms[a].Date), cmp.Compare(b, a))
	})
	return idx
}
