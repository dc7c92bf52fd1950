// Package textsearch is the one text-search engine of mnemobank: the
// analyzer that turns text into terms (Analyze), a BM25F index over
// documents of several weighted fields (Index) with a stored form that a
// later process reads back instead of analysing the texts again
// (AppendBinary, DecodeIndex), and snippets (Snippet).
// The memories file's search uses it; it is meant to serve a bank's
// documents as well (fields title and path, tags, text).
package textsearch

import (
	"unicode"
	"unicode/utf8"
)

// Terms.
//
// Text is cut into runs of letters, digits and marks (everything else
// separates). A run is folded (Fold: NFKC and full case folding, so "Ｆｏｏ",
// "FOO" and "foo" are one term) and cut again: letters and digits of
// alphabetic scripts form words; Han, kana and Hangul, written without
// spaces, give overlapping character bigrams ("認証方式" → 認証 証方 方式; a
// lone character is its own term), which find words without a dictionary.
// Words are also cut at lower-to-upper case changes ("activeContext" gives
// activecontext, active and context). English words are stemmed (Stem), so
// "failing", "failed" and "fails" are one term. Words longer than
// MaxTermBytes are cut there. Function words (English ones such as "what",
// "did", "the"; Japanese particles and auxiliaries; Chinese function
// words) are marked Stop: they stay in the index, so a query made only of
// them still finds something, but QueryTerms drops them otherwise.

// MaxTermBytes is the longest term, in bytes.
const MaxTermBytes = 64

// Token is one term of a text.
type Token struct {
	// Term is the folded, stemmed term; it is valid only during the call.
	Term []byte
	// Start and End are the byte range of the text the term comes from:
	// the word, or for a run that needed folding the whole run.
	Start, End int
	// Stop marks a function word.
	Stop bool

	// word is the analysis of the word kept by a scanner that remembers
	// words (an Index's), which the index fills with the term's number.
	word *memoWord
}

// Analyzer cuts text into terms. The zero value is the default: Stem for
// English words. It is safe for concurrent use.
type Analyzer struct {
	// Stemmer, when set, replaces Stem (the test baselines use the
	// identity); it must return w or a prefix-free rewrite it owns, and
	// must not modify w.
	Stemmer func(w []byte) []byte
}

// Analyze calls fn with each term of s, in order, with the default
// Analyzer.
func Analyze(s string, fn func(Token)) { Analyzer{}.Analyze(s, fn) }

// Analyze calls fn with each term of s, in order.
func (a Analyzer) Analyze(s string, fn func(Token)) {
	var sc scanner
	sc.a, sc.fn = a, fn
	sc.scan(s)
}

// QueryTerms returns the distinct terms of a query, in order, without its
// function words, unless it has nothing else.
func (a Analyzer) QueryTerms(q string) []string {
	var all, content []string
	seen := map[string]bool{}
	a.Analyze(q, func(t Token) {
		if seen[string(t.Term)] {
			return
		}
		s := string(t.Term)
		seen[s] = true
		all = append(all, s)
		if !t.Stop {
			content = append(content, s)
		}
	})
	if len(content) == 0 {
		return all
	}
	return content
}

// QueryTerms is Analyzer{}.QueryTerms.
func QueryTerms(q string) []string { return Analyzer{}.QueryTerms(q) }

type scanner struct {
	a    Analyzer
	fn   func(Token)
	stop bool // set by fn: the rest of the text is not wanted
	fold Folder
	buf  []byte
	run  []byte
	// memo, when not nil, remembers the analysis of each word seen (up to
	// maxMemo words): most words of a text recur, and an index analyses
	// text after text of the same vocabulary, so a word costs one lookup
	// instead of the stop-word and exception lookups and the stemming.
	memo map[string]*memoWord
}

// memoWord is a word's analysis: its term, whether it is a function word,
// and the term's number in the index that owns the scanner (-1 until the
// index looks it up).
type memoWord struct {
	term []byte
	stop bool
	id   int32
}

// maxMemo bounds a scanner's memo (a few MB at most): past it, new words
// are analysed each time, as without a memo.
const maxMemo = 1 << 15

func (sc *scanner) scan(s string) {
	i := 0
	for i < len(s) && !sc.stop {
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
				sc.asciiWords(s[i:j], i, j)
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
		sc.run = sc.fold.AppendFold(sc.run[:0], s[i:j])
		sc.foldedTerms(sc.run, i, j)
		i = j
	}
}

func isASCIIAlnum(c byte) bool { return asciiAlnum[c] }

var asciiAlnum = func() (t [256]bool) {
	for c := range 256 {
		t[c] = 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
	}
	return t
}()

func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIAlnum(byte(r))
	}
	if commonBigramRune(r) {
		return true
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r) || r == 'ー'
}

// isBigramRune reports whether r belongs to a script written without
// spaces between words.
func isBigramRune(r rune) bool {
	if r < 0x1100 { // below Hangul Jamo, the first of these scripts
		return false
	}
	if commonBigramRune(r) {
		return true
	}
	return unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) ||
		unicode.Is(unicode.Hangul, r) || r == 'ー' || r == '々'
}

// commonBigramRune is true for the blocks most Chinese, Japanese and
// Korean text is made of, each wholly of one such script: the common
// ideographs, the kana letters and the Hangul syllables. It spares the
// script tables' searches for most characters (TestBigramFastPath).
func commonBigramRune(r rune) bool {
	return 0x4E00 <= r && r <= 0x9FFF || 0x3041 <= r && r <= 0x3096 || 0x30A1 <= r && r <= 0x30FA || 0xAC00 <= r && r <= 0xD7A3
}

// asciiWords emits the terms of an ASCII run of letters and digits: the
// word, and its camel-case parts.
func (sc *scanner) asciiWords(run string, start, end int) {
	camel := false
	for k := 1; k < len(run); k++ {
		if run[k-1] >= 'a' && run[k-1] <= 'z' && run[k] >= 'A' && run[k] <= 'Z' {
			camel = true
			break
		}
	}
	w := sc.buf[:0]
	for k := 0; k < len(run); k++ {
		c := run[k]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		w = append(w, c)
	}
	sc.buf = w
	sc.word(w, start, end)
	if camel {
		from := 0
		for k := 1; k <= len(run); k++ {
			if k == len(run) || run[k-1] >= 'a' && run[k-1] <= 'z' && run[k] >= 'A' && run[k] <= 'Z' {
				sc.word(w[from:k:k], start+from, start+k)
				from = k
			}
		}
	}
}

// foldedTerms emits the terms of a folded run s, which comes from
// [start, end) of the text: words of alphabetic letters and digits,
// bigrams of CJK characters.
func (sc *scanner) foldedTerms(s []byte, start, end int) {
	var prev rune = -1 // previous CJK character of the current CJK run
	cjkLen := 0
	wordFrom := -1
	var pair [2 * utf8.UTFMax]byte
	flushWord := func(to int) {
		if wordFrom >= 0 {
			sc.word(s[wordFrom:to:to], start, end)
			wordFrom = -1
		}
	}
	flushCJK := func() {
		if cjkLen == 1 {
			t := utf8.AppendRune(pair[:0], prev)
			sc.fn(Token{Term: t, Start: start, End: end, Stop: isCJKStop(t)})
		}
		prev, cjkLen = -1, 0
	}
	for k := 0; k < len(s); {
		r, size := utf8.DecodeRune(s[k:])
		switch {
		case isBigramRune(r):
			flushWord(k)
			if prev >= 0 {
				t := utf8.AppendRune(utf8.AppendRune(pair[:0], prev), r)
				sc.fn(Token{Term: t, Start: start, End: end, Stop: isCJKStop(t)})
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
		k += size
	}
	flushWord(len(s))
	flushCJK()
}

// word emits a folded word: cut at MaxTermBytes, marked when it is a stop
// word, stemmed when it is English.
func (sc *scanner) word(w []byte, start, end int) {
	if len(w) > MaxTermBytes {
		w = w[:MaxTermBytes]
		for len(w) > 0 && !utf8.Valid(w) {
			w = w[:len(w)-1]
		}
	}
	if sc.memo != nil {
		if m := sc.memo[string(w)]; m != nil {
			sc.fn(Token{Term: m.term, Start: start, End: end, Stop: m.stop, word: m})
			return
		}
	}
	key := w
	stop := englishStop[string(w)]
	if !stop && asciiLetters(w) {
		if sc.a.Stemmer != nil {
			w = sc.a.Stemmer(w)
		} else {
			w = Stem(w)
		}
	}
	var m *memoWord
	if sc.memo != nil && len(sc.memo) < maxMemo {
		m = &memoWord{term: append([]byte(nil), w...), stop: stop, id: -1}
		sc.memo[string(key)] = m
		w = m.term
	}
	sc.fn(Token{Term: w, Start: start, End: end, Stop: stop, word: m})
}

func asciiLetters(w []byte) bool {
	for _, c := range w {
		if c < 'a' || c > 'z' {
			return false
		}
	}
	return true
}
