package memorybank

import (
	"testing"

	"github.com/stretchr/testify/assert"
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
