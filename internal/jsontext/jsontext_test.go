package jsontext

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
)

func TestCheck(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		at         int // -1: no problem
	}{
		{"plain", `{"path":"a/b.md","n":[1,true,null]}`, -1},
		{"multi-byte", `{"path":"日本/é.md"}`, -1},
		{"escaped pair", `{"p":"\ud83d\ude00"}`, -1},
		{"escaped BMP", `{"p":"\u00e9\u0041\uFFFD"}`, -1},
		{"escaped backslash before u", `{"p":"\\ud800"}`, -1},
		{"U+FFFD itself", `{"p":"` + "\uFFFD" + `"}`, -1},
		{"invalid byte", "{\"p\":\"a\xffb\"}", 7},
		{"truncated sequence", "{\"p\":\"\xe6\x97\"}", 6},
		{"encoded surrogate", "{\"p\":\"\xed\xa0\x80\"}", 6},
		{"lone high surrogate", `{"p":"a\ud800b"}`, 7},
		{"lone high at end", `{"p":"\uD800"}`, 6},
		{"lone low surrogate", `{"p":"\udc00"}`, 6},
		{"two highs", `{"p":"\ud800\ud800"}`, 6},
		{"high then BMP", `{"p":"\ud800\u0041"}`, 6},
		{"in a member name", `{"\udfff":1}`, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, reason := Check([]byte(tc.text))
			assert.Equal(t, tc.at, at, reason)
			if tc.at < 0 {
				assert.Empty(t, reason)
				return
			}
			assert.NotEmpty(t, reason)
		})
	}
}

// Property: Check finds no problem exactly when encoding/json decodes the
// string without replacing anything by U+FFFD, for every string of up to
// three interesting pieces.
func TestCheckAgreesWithDecoding(t *testing.T) {
	pieces := []string{"a", `\ud800`, `\udc00`, `\u0041`, "\xff", "é", `\\`, "\xed\xa0\x80", `\ud83d`, `\ude00`}
	var walk func(prefix string, depth int)
	walk = func(prefix string, depth int) {
		doc := `"` + prefix + `"`
		var s string
		if json.Unmarshal([]byte(doc), &s) == nil {
			at, _ := Check([]byte(doc))
			// No piece spells U+FFFD: one in s replaced something.
			lossless := !strings.ContainsRune(s, utf8.RuneError)
			assert.Equal(t, lossless, at < 0, "%q decodes to %q", doc, s)
		}
		if depth == 0 {
			return
		}
		for _, p := range pieces {
			walk(prefix+p, depth-1)
		}
	}
	walk("", 3)
}

func TestCheckOutside(t *testing.T) {
	line := "{\"id\":\"\xff\",\"params\":{\"arguments\":{\"c\":\"\xfe\\ud800\"},\"x\":\"\\udc00\"}}"
	from := strings.Index(line, `{"c"`)
	to := strings.Index(line, `,"x"`)
	at, reason := CheckOutside([]byte(line), from, to)
	assert.Equal(t, 7, at, "the id's byte, before the part left out: %s", reason)

	clean := strings.Replace(line, "\xff", "a", 1)
	at, reason = CheckOutside([]byte(clean), from, to)
	assert.Equal(t, strings.Index(clean, `\udc00`), at, "the escape after the part left out: %s", reason)
	assert.Contains(t, reason, "surrogate")

	clean = strings.Replace(clean, `\udc00`, "b", 1)
	at, _ = CheckOutside([]byte(clean), from, to)
	assert.Equal(t, -1, at, "the part left out is not looked at")
	at, _ = Check([]byte(clean))
	assert.Equal(t, from+len(`{"c":"`), at, "Check sees it")
}
