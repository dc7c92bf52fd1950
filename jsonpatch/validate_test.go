package jsonpatch

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch/internal/benchgen"
)

var validCases = []string{
	`{}`, `[]`, ` {"a" : [1, -0.5e+3, "x\u00e9\n", true, false, null, {}] } `, `"s"`, `0`, `-1.5E-2`,
	`{"a":1,"a":2}`, `[[],[{}]]`, `"\/\b\f\r\t\\\""`,
	``, ` `, `{`, `}`, `[1,]`, `{"a":1,}`, `{"a"}`, `{"a":}`, `{1:2}`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
	`tru`, `nul`, `"\x"`, `"\u12g4"`, "\"\x01\"", `"abc`, `[1]]`, `{}{}`, `1 2`, `[`, `"\u123"`, `{"a":1 "b":2}`,
}

func TestScanValidAgreesWithEncodingJSON(t *testing.T) {
	for _, c := range validCases {
		ok, compact := scanValid([]byte(c), nil)
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
			ok, _ := scanValid(doc, nil)
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
	saved := spanMin
	spanMin = 4 // index the small containers fuzzing makes
	defer func() { spanMin = saved }()
	f.Fuzz(func(t *testing.T, b []byte) {
		ok, compact := scanValid(b, nil)
		if want := json.Valid(b); ok != want {
			t.Fatalf("scanValid(%q) = %v, json.Valid = %v", b, ok, want)
		}
		if ok && compact != bytes.Equal(appendCompact(nil, b), b) {
			t.Fatalf("scanValid(%q): compact = %v", b, compact)
		}
		var idx spanIndex
		ok2, compact2 := scanValid(b, &idx)
		if ok2 != ok || compact2 != compact {
			t.Fatalf("scanValid(%q) with an index = %v, %v; without %v, %v", b, ok2, compact2, ok, compact)
		}
		if ok {
			checkSpans(t, b, &idx)
		}
	})
}

// checkSpans: every recorded container is one skipValue agrees with, at
// least spanMin long, in order of start.
func checkSpans(t *testing.T, b []byte, idx *spanIndex) {
	t.Helper()
	prev := -1
	for _, s := range idx.spans {
		start, end := int(s.start), int(s.end)
		if start <= prev || (b[start] != '{' && b[start] != '[') || skipValue(b, start) != end || end-start < spanMin {
			t.Fatalf("%q: bad span %d..%d (after %d)", b, start, end, prev)
		}
		if idx.end(start) != end {
			t.Fatalf("%q: end(%d) = %d, want %d", b, start, idx.end(start), end)
		}
		prev = start
	}
	if idx.end(len(b)+1) != -1 {
		t.Fatalf("%q: end past the document found", b)
	}
}

func TestSpanIndex(t *testing.T) {
	saved := spanMin
	spanMin = 4
	defer func() { spanMin = saved }()
	for _, c := range validCases {
		var idx spanIndex
		if ok, _ := scanValid([]byte(c), &idx); ok {
			checkSpans(t, []byte(c), &idx)
		}
	}
	doc := []byte(` {"a" : [ [1, 2], {"b": [3]}, [] ], "c": {"d": {"e": "f"}}, "g": [[[[0]]]]} `)
	var idx spanIndex
	ok, _ := scanValid(trimSpace(doc), &idx)
	assert.True(t, ok)
	checkSpans(t, trimSpace(doc), &idx)
	assert.Len(t, idx.spans, 9)

	// Too many containers for the index: Apply goes on scanning.
	spanMin = 1
	var b strings.Builder
	b.WriteString(`{"l":[`)
	for i := range 300 {
		fmt.Fprintf(&b, `[%d],`, i)
	}
	b.WriteString(`{"x":[1]}]}`)
	idx.reset()
	ok, _ = scanValid([]byte(b.String()), &idx)
	assert.True(t, ok)
	assert.True(t, idx.off)
	out, err := applyWith(nil, []byte(b.String()), []byte(`[{"op":"add","path":"/l/300/x/-","value":2},{"op":"remove","path":"/l/0"}]`))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(out), `[299],{"x":[1,2]}]}`), "%s", out)
	assert.True(t, strings.HasPrefix(string(out), `{"l":[[1],[2],`), "%s", out)
}

// BenchmarkScanValid compares the scanner with json.Valid on a 1 MB
// generated document.
func BenchmarkScanValid(b *testing.B) {
	doc, _ := benchgen.Doc(1 << 20)
	b.Run("impl=scanValid", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		var idx spanIndex
		for b.Loop() {
			idx.reset()
			if ok, _ := scanValid(doc, &idx); !ok {
				b.Fatal("invalid")
			}
		}
	})
	b.Run("impl=json.Valid", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		for b.Loop() {
			if !json.Valid(doc) {
				b.Fatal("invalid")
			}
		}
	})
}
