package memorybank

import (
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Search terms.
//
// Text is cut into runs of letters, digits and marks (everything else
// separates). A run is folded (Unicode compatibility composition, NFKC,
// then case folding, so "Ｆｏｏ", "FOO" and "foo" are one term) and cut
// again: letters and digits of alphabetic scripts form words; Han, kana and
// Hangul, written without spaces, give overlapping character bigrams
// ("認証方式" → 認証 証方 方式; a lone character is its own term), which
// find words without a dictionary. Words are also cut at lower-to-upper
// case changes ("activeContext" gives activecontext, active, context), and
// an English plural "s" is dropped, so "tokens" finds "token". Words longer
// than maxTermBytes are cut there.

const maxTermBytes = 64

// scanTerms calls fn with each term of s and the byte range [start, end)
// of the run of s it comes from. term is valid only during the call.
func scanTerms(s string, fn func(term []byte, start, end int)) {
	var buf []byte
	var fold cases.Caser
	folderReady := false
	i := 0
	for i < len(s) {
		c := s[i]
		if c < utf8.RuneSelf {
			if !isASCIIAlnum(c) {
				i++
				continue
			}
			// An ASCII run, unless it continues into other letters.
			j := i
			for j < len(s) && s[j] < utf8.RuneSelf && isASCIIAlnum(s[j]) {
				j++
			}
			if j == len(s) || s[j] < utf8.RuneSelf {
				buf = asciiWords(buf[:0], s[i:j], i, j, fn)
				i = j
				continue
			}
		}
		// A run holding other characters: find its end, fold it, cut it.
		j := i
		for j < len(s) {
			r, size := utf8.DecodeRuneInString(s[j:])
			if !isWordRune(r) {
				break
			}
			j += size
		}
		if j == i { // a separator outside ASCII
			_, size := utf8.DecodeRuneInString(s[i:])
			i += size
			continue
		}
		if !folderReady {
			fold, folderReady = cases.Fold(), true
		}
		folded := fold.String(norm.NFKC.String(s[i:j]))
		buf = foldedTerms(buf[:0], folded, i, j, fn)
		i = j
	}
}

func isASCIIAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIAlnum(byte(r))
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == 'ー'
}

// isBigramRune reports whether r belongs to a script written without
// spaces between words.
func isBigramRune(r rune) bool {
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || r == 'ー' || r == '々'
}

// asciiWords emits the terms of an ASCII run of letters and digits.
func asciiWords(buf []byte, run string, start, end int, fn func([]byte, int, int)) []byte {
	camel := false
	for k := 1; k < len(run); k++ {
		if run[k-1] >= 'a' && run[k-1] <= 'z' && run[k] >= 'A' && run[k] <= 'Z' {
			camel = true
			break
		}
	}
	for k := 0; k < len(run); k++ {
		c := run[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	emitWord(buf, start, end, fn)
	if camel {
		from := 0
		for k := 1; k <= len(run); k++ {
			if k == len(run) || run[k-1] >= 'a' && run[k-1] <= 'z' && run[k] >= 'A' && run[k] <= 'Z' {
				emitWord(buf[from:k], start, end, fn)
				from = k
			}
		}
	}
	return buf
}

// foldedTerms emits the terms of a folded run: words of alphabetic letters
// and digits, bigrams of CJK characters.
func foldedTerms(buf []byte, s string, start, end int, fn func([]byte, int, int)) []byte {
	var prev rune = -1 // previous CJK character of the current CJK run
	cjkLen := 0
	wordFrom := -1
	flushWord := func(to int) {
		if wordFrom >= 0 {
			buf = append(buf[:0], s[wordFrom:to]...)
			emitWord(buf, start, end, fn)
			wordFrom = -1
		}
	}
	flushCJK := func() {
		if cjkLen == 1 {
			buf = utf8.AppendRune(buf[:0], prev)
			fn(buf, start, end)
		}
		prev, cjkLen = -1, 0
	}
	for k, r := range s {
		switch {
		case isBigramRune(r):
			flushWord(k)
			if prev >= 0 {
				buf = utf8.AppendRune(utf8.AppendRune(buf[:0], prev), r)
				fn(buf, start, end)
			}
			prev = r
			cjkLen++
		case isWordRune(r):
			flushCJK()
			if wordFrom < 0 {
				wordFrom = k
			}
		default:
			flushWord(k)
			flushCJK()
		}
	}
	flushWord(len(s))
	flushCJK()
	return buf
}

// emitWord emits a word, cut at maxTermBytes, without an English plural s.
func emitWord(w []byte, start, end int, fn func([]byte, int, int)) {
	if len(w) > maxTermBytes {
		w = w[:maxTermBytes]
		for len(w) > 0 && !utf8.Valid(w) {
			w = w[:len(w)-1]
		}
	}
	fn(stem(w), start, end)
}

// stem drops an English plural ending: "tokens" → "token", "queries" →
// "query"; "class", "status" and "analysis" stay.
func stem(w []byte) []byte {
	n := len(w)
	if n < 4 || w[n-1] != 's' {
		return w
	}
	switch w[n-2] {
	case 's', 'u', 'i':
		return w
	}
	if n > 4 && w[n-3] == 'i' && w[n-2] == 'e' {
		return append(w[:n-3:n-3], 'y') // a copy: w is shared
	}
	return w[:n-1]
}

// queryTerms returns the distinct terms of a query, in order.
func queryTerms(q string) []string {
	var out []string
	seen := map[string]bool{}
	scanTerms(q, func(t []byte, _, _ int) {
		if !seen[string(t)] {
			s := string(t)
			seen[s] = true
			out = append(out, s)
		}
	})
	return out
}

// foldTag is the form tags are compared in: NFKC and case folded.
func foldTag(t string) string {
	ascii := true
	for i := 0; i < len(t); i++ {
		if t[i] >= utf8.RuneSelf || 'A' <= t[i] && t[i] <= 'Z' {
			ascii = false
			break
		}
	}
	if ascii {
		return t
	}
	return cases.Fold().String(norm.NFKC.String(t))
}
