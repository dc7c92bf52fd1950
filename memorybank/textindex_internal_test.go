package memorybank

import (
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

func TestFoldTag(t *testing.T) {
	assert.Equal(t, "auth", foldTag("AUTH"))
	assert.Equal(t, "auth", foldTag("ＡＵＴＨ"))
	assert.Equal(t, "auth", foldTag("auth"))
	assert.Equal(t, "認証", foldTag("認証"))
	assert.Equal(t, "strasse", foldTag("Straße"))
	assert.Equal(t, "café", foldTag("cafe\u0301"), "decomposed and composed alike")
}

func FuzzUnquote(f *testing.F) {
	for _, s := range []string{"Hello, World", `a\nb`, `\ud83d alone`, "\xff\xfe", "数据库，迁移"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		_ = unquote([]byte(s))
		if n := EstimateTokens(s); n < 0 || n > 2*len(s)+1 {
			t.Fatalf("estimate %d for %d bytes", n, len(s))
		}
	})
}

func TestUnquote(t *testing.T) {
	cases := map[string]string{
		`plain`:                 "plain",
		`a\nb\tc`:               "a\nb\tc",
		`a\bb\nc`:               "a b c",
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

// A text document's searchable text read without its JSON round trip
// gives the terms, offsets and snippets the round trip gives: bytes that
// are not UTF-8, control characters, characters JSON escapes, front
// matter or none.
func TestDecodeForSearchAsBodyText(t *testing.T) {
	docs := map[string]string{
		"a.md":    "---\ntitle: T\ntags: [x]\n---\n# Head\n\nbad \xff\xfe bytes <b>&amp;</b> \u2028 line\bback\ttab\x01ctl caf\xc3",
		"b.md":    "# Bare\n\nactiveContext failing 認証方式の期限\r\n\fform feed",
		"c.txt":   strings.Repeat("word ", 100) + "\xed\xa0\x80 surrogate",
		"d.json":  `{"metadata":{"title":"J"},"content":{"a":"x\\by\\nz","b":["\\u00e9t\\u00e9"]}}`,
		"e.md":    "",
		"f.md":    "---\nnot: [closed\n---\nbroken front matter",
		"g.md":    "---\n- a list\n---\nnot front matter",
		"h/i.txt": "\"quoted\" \\ back\\slash",
	}
	terms := []string{"bad", "byte", "line", "back", "tab", "activecontext", "fail", "認証", "word", "surrog", "y", "z", "été", "quot", "slash"}
	for p, data := range docs {
		old, oldErr := decodeStored(codec.FormatOf(p), p, []byte(data))
		e, text, err := decodeForSearch(p, []byte(data))
		if oldErr != nil {
			require.ErrorIs(t, err, ErrCorrupt, p)
			continue
		}
		require.NoError(t, err, p)
		want := bodyText(old)
		assert.Equal(t, entryOf(old, len(data), time.Time{}), entryOf(e, len(data), time.Time{}), p)
		assert.Equal(t, flagsOf(old), flagsOf(e), p)
		var wantTok, gotTok []textsearch.Token
		textsearch.Analyze(want, func(tok textsearch.Token) {
			tok.Term = append([]byte(nil), tok.Term...)
			wantTok = append(wantTok, tok)
		})
		textsearch.Analyze(text, func(tok textsearch.Token) {
			tok.Term = append([]byte(nil), tok.Term...)
			gotTok = append(gotTok, tok)
		})
		assert.Equal(t, wantTok, gotTok, p)
		for _, tm := range terms {
			assert.Equal(t, textsearch.Snippet(want, []string{tm}, 40, -1), textsearch.Snippet(text, []string{tm}, 40, -1), "%s: %s", p, tm)
		}
	}
}
