package textsearch

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

func terms(s string) []string {
	var out []string
	Analyze(s, func(t Token) { out = append(out, string(t.Term)) })
	return out
}

func TestAnalyze(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"Failing adapters", []string{"fail", "adapter"}},
		{"activeContext", []string{"activecontext", "activ", "context"}}, // stemmed: "active" and "actives" are one,
		{"ＦＯＯ bar", []string{"foo", "bar"}},
		{"認証方式", []string{"認証", "証方", "方式"}},
		{"数", []string{"数"}},
		{"Straße", []string{"strass"}}, // folded, then stemmed,
		{"café-menu", []string{"café", "menu"}},
		{"E0042 v2", []string{"e0042", "v2"}},
		{"エラー処理", []string{"エラ", "ラー", "ー処", "処理"}},
		{"", nil},
		{"... !!", nil},
	} {
		assert.Equal(t, tc.want, terms(tc.in), "Analyze(%q)", tc.in)
	}
}

func TestAnalyzeOffsets(t *testing.T) {
	text := "Always wrap adapter calls"
	var got []string
	Analyze(text, func(tok Token) { got = append(got, text[tok.Start:tok.End]) })
	assert.Equal(t, []string{"Always", "wrap", "adapter", "calls"}, got)
}

func TestQueryTermsDropsFunctionWords(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want []string
	}{
		{"how should I handle errors from adapters", []string{"handl", "error", "adapter"}},
		{"What did the team decide?", []string{"team", "decid"}},
		{"what did the", []string{"what", "did", "the"}}, // nothing else: kept
		{"エラー処理はどうしますか", []string{"エラ", "ラー", "ー処", "処理", "うし"}},
		{"数据库连接池是什么", []string{"数据", "据库", "库连", "连接", "接池"}},
		{"adapter adapters ADAPTER", []string{"adapter"}},
	} {
		assert.Equal(t, tc.want, QueryTerms(tc.in), "QueryTerms(%q)", tc.in)
	}
}

func TestStem(t *testing.T) {
	groups := [][]string{
		{"fail", "fails", "failed", "failing"},
		{"adapter", "adapters"},
		{"query", "queries", "queried"},
		{"try", "tries", "tried"},
		{"use", "uses", "used", "using"},
		{"cache", "caches", "cached", "caching"},
		{"stop", "stops", "stopped", "stopping"},
		{"run", "runs", "running", "ran"},
		{"match", "matches", "matched"},
		{"hope", "hoped", "hoping"},
		{"meet", "meeting", "meetings", "met"},
		{"class", "classes"},
		{"add", "adds", "added", "adding"},
		{"call", "calls", "called"},
		{"die", "dies", "died"},
		{"note", "notes", "noted", "noting"},
	}
	for _, g := range groups {
		want := string(Stem([]byte(g[0])))
		for _, w := range g[1:] {
			assert.Equal(t, want, string(Stem([]byte(w))), "%q and %q", g[0], w)
		}
	}
	apart := [][2]string{{"string", "str"}, {"status", "statu"}, {"thing", "th"}, {"news", "new"}, {"add", "ad"}, {"one", "on"}, {"notes", "not"}, {"noted", "not"}, {"analysis", "analysi"}}
	for _, p := range apart {
		assert.NotEqual(t, p[1], string(Stem([]byte(p[0]))), "%q must not stem to %q", p[0], p[1])
	}
}

func TestStemDoesNotModifyItsInput(t *testing.T) {
	for _, w := range []string{"queries", "tried", "used", "stopped", "caching", "went"} {
		b := []byte(w)
		Stem(b)
		assert.Equal(t, w, string(b))
	}
}

func TestSnippet(t *testing.T) {
	text := strings.Repeat("filler words here. ", 30) + "Always wrap adapter calls in try-catch so one failing adapter does not stop the loop. " + strings.Repeat("more filler. ", 30)
	s := Snippet(text, QueryTerms("adapter failing"), 80, -1)
	assert.Contains(t, s, "failing adapter")
	assert.True(t, strings.HasPrefix(s, "…") && strings.HasSuffix(s, "…"), s)
	assert.LessOrEqual(t, len(s), 80+2*len("…"))
	assert.Equal(t, "short text", Snippet("short  text", []string{"none"}, 80, -1))
	at := strings.Index(text, "try-catch")
	assert.Contains(t, Snippet(text, nil, 80, at), "try-catch", "without terms: around the substring match")
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
	var f Folder
	for c := 'A'; c <= 'z'; c++ {
		for m := rune(0x300); m <= 0x36F; m++ {
			s := string(c) + string(m) + "記"
			if got, want := string(f.AppendFold(nil, s)), norm.NFKC.String(cases.Fold().String(norm.NFKC.String(s))); got != want {
				t.Errorf("%q: got %q, want %q", s, got, want)
			}
		}
	}
}

// FuzzAnalyze: the analyzer never panics; every term is valid UTF-8, non
// empty, at most MaxTermBytes, already folded (folding it again changes
// nothing), within the text's bounds; and folding is idempotent.
func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{"how should I handle errors from adapters", "activeContext", "ＦＯＯ", "認証方式はどう", "Straße ﬁle ①",
		"ｴﾗｰﾊﾝﾄﾞﾘﾝｸﾞ", "\xff\xfe", "a\u0301", "ǅ", "ΐ", strings.Repeat("x", 100), "tries queried"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		folded := Fold(s)
		require.Equal(t, folded, Fold(folded), "Fold is idempotent")
		Analyze(s, func(tok Token) {
			require.NotEmpty(t, tok.Term)
			require.True(t, utf8.Valid(tok.Term), "term %q", tok.Term)
			require.LessOrEqual(t, len(tok.Term), MaxTermBytes+1) // a stem may add one letter
			require.Equal(t, string(tok.Term), Fold(string(tok.Term)), "term %q is folded", tok.Term)
			require.True(t, 0 <= tok.Start && tok.Start < tok.End && tok.End <= len(s), "range [%d,%d) of %d", tok.Start, tok.End, len(s))
		})
		QueryTerms(s)
	})
}

// Cherokee folds to its capitals, and folding is idempotent on every
// Cherokee letter (golang.org/x/text alone swaps the cases).
func TestFoldCherokee(t *testing.T) {
	for _, r := range []rune{0x13A0, 0x13C9, 0x13F5, 0x13F0, 0x13F8, 0x13FD, 0xAB70, 0xAB99, 0xABBF} {
		once := Fold(string(r))
		assert.Equal(t, once, Fold(once), "U+%04X", r)
		for _, c := range once {
			assert.True(t, c >= 0x13A0 && c <= 0x13F5, "U+%04X folds to U+%04X, a capital", r, c)
		}
	}
}
