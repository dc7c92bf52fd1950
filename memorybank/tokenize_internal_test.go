package memorybank

import (
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func terms(s string) []string {
	var out []string
	scanTerms(s, func(t []byte, _, _ int) { out = append(out, string(t)) })
	return out
}

func TestScanTerms(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"Hello, World!", []string{"hello", "world"}},
		{"read_context v2.1", []string{"read", "context", "v2", "1"}},
		{"activeContext", []string{"activecontext", "active", "context"}},
		{"tokens queries class status", []string{"token", "query", "class", "status"}},
		{"ＦＯＯ ｂａｒ", []string{"foo", "bar"}},
		{"Straße STRASSE", []string{"strasse", "strasse"}},
		{"認証方式", []string{"認証", "証方", "方式"}},
		{"認", []string{"認"}},
		{"ログインはOAuth2で", []string{"ログ", "グイ", "イン", "ンは", "oauth2", "で"}},
		{"数据库，迁移", []string{"数据", "据库", "迁移"}},
		{"カタカナｶﾀｶﾅ", []string{"カタ", "タカ", "カナ", "ナカ", "カタ", "タカ", "カナ"}},
		{"café naïve", []string{"café", "naïve"}},
		{"", nil},
		{"--- ** ..", nil},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, terms(c.in), "%q", c.in)
	}
	long := strings.Repeat("a", 100)
	assert.Equal(t, []string{strings.Repeat("a", maxTermBytes)}, terms(long))
	assert.Equal(t, "ｂａｒ", "ｂａｒ"[0:len("ｂａｒ")], "ranges refer to the original text")
	scanTerms("x ＦＯＯ", func(term []byte, start, end int) {
		if string(term) == "foo" {
			assert.Equal(t, "ＦＯＯ", "x ＦＯＯ"[start:end])
		}
	})
}

func TestFoldTag(t *testing.T) {
	assert.Equal(t, "auth", foldTag("AUTH"))
	assert.Equal(t, "auth", foldTag("ＡＵＴＨ"))
	assert.Equal(t, "auth", foldTag("auth"))
	assert.Equal(t, "認証", foldTag("認証"))
}

func TestMakeSnippet(t *testing.T) {
	text := strings.Repeat("filler words here. ", 30) + "The refresh token rotates on every use. " + strings.Repeat("more filler. ", 30)
	s := makeSnippet(text, queryTerms("refresh token rotation"))
	assert.Contains(t, s, "refresh token rotates")
	assert.True(t, strings.HasPrefix(s, "…") && strings.HasSuffix(s, "…"), s)
	assert.LessOrEqual(t, len(s), snippetBytes+10)
	assert.Equal(t, "short text", makeSnippet("short\ntext", []string{"absent"}))
	cjk := strings.Repeat("無関係な文章です。", 40) + "リフレッシュトークンは三十日で失効する。"
	s = makeSnippet(cjk, queryTerms("失効"))
	assert.Contains(t, s, "失効")
	assert.True(t, utf8.ValidString(s))
}

func FuzzScanTerms(f *testing.F) {
	for _, s := range []string{"Hello, World", "認証方式とＡＰＩ", "activeContextQueries", "ﬁ ǅ ß İ", "\xff\xfe", "数据库，迁移"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		prev := 0
		scanTerms(s, func(term []byte, start, end int) {
			if len(term) == 0 || len(term) > 4*maxTermBytes {
				t.Fatalf("term %q of length %d", term, len(term))
			}
			if start < prev-len(s) || start < 0 || end > len(s) || start >= end {
				t.Fatalf("range [%d,%d) of %d bytes", start, end, len(s))
			}
			prev = start
		})
		_ = makeSnippet(s, queryTerms(s))
		_ = unquote([]byte(s))
		if n := EstimateTokens(s); n < 0 || n > 2*len(s)+1 {
			t.Fatalf("estimate %d for %d bytes", n, len(s))
		}
	})
}

func TestUnquote(t *testing.T) {
	cases := map[string]string{
		`plain`:                 "plain",
		`a\nb\tc`:               "a b c",
		`say \"hi\" \\ \/`:      `say "hi" \ /`,
		`\u8a8d\u8a3c`:          "認証",
		`\ud83d\ude00 smile`:    "😀 smile",
		`\ud83d alone`:          "\uFFFD alone",
		`\uZZZZ`:                "\uFFFDZZZZ",
		`trailing \`:            `trailing \`,
		`\u00e9t\u00e9 \u0041B`: "été AB",
	}
	for in, want := range cases {
		assert.Equal(t, want, unquote([]byte(in)), in)
	}
}
