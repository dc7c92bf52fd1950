package jsonpatch

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

var validCases = []string{
	`{}`, `[]`, ` {"a" : [1, -0.5e+3, "x\u00e9\n", true, false, null, {}] } `, `"s"`, `0`, `-1.5E-2`,
	`{"a":1,"a":2}`, `[[],[{}]]`, `"\/\b\f\r\t\\\""`,
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
	`tru`, `nul`, `"\x"`, `"\u12g4"`, "\"\x01\"", `"abc`, `[1]]`, `{}{}`, `1 2`, `[`, `"\u123"`, `{"a":1 "b":2}`,
}

func TestScanValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		ok, compact := scanValid([]byte(c))
		assert.Equal(t, json.Valid([]byte(c)), ok, "%q", c)
		if ok {
			assert.Equal(t, !strings.ContainsAny(c, " \n"), compact, "%q", c)
		}
	}
	// encoding/json accepts 10000 levels of nesting and no more.
	for _, depth := range []int{maxDepth, maxDepth + 1} {
		for _, pair := range []string{"[]", "{}"} {
			open := strings.Repeat(pair[:1], depth)
			if pair == "{}" {
				open = strings.Repeat(`{"a":`, depth-1) + "{"
			}
			doc := []byte(open + strings.Repeat(pair[1:], depth))
			ok, _ := scanValid(doc)
			assert.Equal(t, json.Valid(doc), ok, "depth %d of %s", depth, pair)
			assert.Equal(t, depth <= maxDepth, ok, "depth %d of %s", depth, pair)
		}
	}
}

// FuzzScanValid: the hand-written scanner accepts exactly what json.Valid
// accepts, and calls compact exactly the texts without whitespace outside
// strings.
func FuzzScanValid(f *testing.F) {
	for _, c := range validCases {
		f.Add([]byte(c))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		ok, compact := scanValid(b)
		if want := json.Valid(b); ok != want {
			t.Fatalf("scanValid(%q) = %v, json.Valid = %v", b, ok, want)
		}
		if ok && compact != bytes.Equal(appendCompact(nil, b), b) {
			t.Fatalf("scanValid(%q): compact = %v", b, compact)
		}
	})
}
