package textsearch

import (
	"strings"
	"testing"
	"unicode"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A scanner that remembers words gives the terms, offsets and stop marks
// of one that does not, the first time a word is seen and every time
// after, with the default stemmer and with another.
func TestMemoGivesTheSameTokens(t *testing.T) {
	text := "Failing adapters failed; the activeContext and ActiveContext. 認証方式は認証 Straße strasse " +
		strings.Repeat("x", MaxTermBytes+5) + " " + strings.Repeat("x", MaxTermBytes+9) + " notes noted not"
	for _, an := range []Analyzer{{}, {Stemmer: func(w []byte) []byte { return w }}} {
		var want []Token
		an.Analyze(text+" "+text, func(tok Token) {
			tok.Term = append([]byte(nil), tok.Term...)
			want = append(want, tok)
		})
		sc := scanner{a: an, memo: map[string]*memoWord{}}
		var got []Token
		sc.fn = func(tok Token) {
			tok.Term = append([]byte(nil), tok.Term...)
			tok.word = nil
			got = append(got, tok)
		}
		sc.scan(text + " " + text)
		require.Equal(t, want, got)
	}
}

// The index numbers a term once, whether it comes through the memo or
// not: documents added after the memo is full still score alike.
func TestIndexTermsThroughTheMemo(t *testing.T) {
	ix, err := NewIndex[int](DocumentParams, Analyzer{})
	require.NoError(t, err)
	require.NoError(t, ix.Add(1, "", "", "retry the failing adapter"))
	require.NoError(t, ix.Add(2, "", "", "adapters fail; retrying"))
	st := ix.Stats([]string{"adapter", "fail", "retry"})
	assert.Equal(t, []int{2, 2, 2}, st.DF)
	assert.Len(t, ix.termID, len(ix.post))

	full, err := NewIndex[int](DocumentParams, Analyzer{})
	require.NoError(t, err)
	for i := range maxMemo + 10 {
		require.NoError(t, full.Add(i, "", "", "w"+strings.Repeat("q", i%7)+string(rune('a'+i%26))+string(rune('a'+i/26%26))+string(rune('a'+i/676%26))))
	}
	assert.Len(t, full.sc.memo, maxMemo)
	require.NoError(t, full.Add(-1, "", "", "retry adapter"))
	require.NoError(t, full.Add(-2, "", "", "retry adapter"))
	assert.Equal(t, []int{2, 2}, full.Stats([]string{"retry", "adapter"}).DF)
}

// The fast ranges of the bigram scripts hold only characters of those
// scripts, and only letters.
func TestBigramFastPath(t *testing.T) {
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !commonBigramRune(r) {
			continue
		}
		slow := unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r)
		if !slow || !unicode.IsLetter(r) {
			t.Errorf("U+%04X is in a fast range but is not a letter of Han, kana or Hangul", r)
		}
	}
	for r := rune(0); r < 0x1100; r++ {
		if unicode.Is(unicode.Han, r) || unicode.Is(unicode.Hiragana, r) || unicode.Is(unicode.Katakana, r) || unicode.Is(unicode.Hangul, r) {
			t.Errorf("U+%04X is below 0x1100 but in a bigram script", r)
		}
	}
}

// The stop test of CJK terms agrees with the plain set lookups on every
// stop term, on each character alone and on bigrams of stop characters.
func TestCJKStopAgrees(t *testing.T) {
	plain := func(s string) bool {
		if cjkStop[s] {
			return true
		}
		for _, r := range s {
			if cjkStopChars[string(r)] {
				return true
			}
		}
		return false
	}
	var cases []string
	for s := range cjkStop {
		cases = append(cases, s)
		for _, r := range s {
			cases = append(cases, string(r), string(r)+"証", "証"+string(r))
		}
	}
	cases = append(cases, "認証", "方式", "数据", "エラ", "𠀋𠀋")
	for _, s := range cases {
		assert.Equal(t, plain(s), isCJKStop([]byte(s)), "%q", s)
	}
}
