package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// parseIndented must agree with encoding/json on every input: the same
// value (numbers as json.Number), the same bytes as json.Indent, and an
// error exactly when json.Valid says the input is not JSON or when an object
// holds a name twice, which firstDuplicate finds at the same place.
func checkParseIndented(t *testing.T, data []byte) {
	t.Helper()
	for _, depth := range []int{0, 1} {
		v, out, err := Parse(data, depth, nil, 0)
		if !json.Valid(data) {
			assert.Error(t, err, "%q is not JSON", data)
			continue
		}
		if d := Depth(data); d > MaxDepth {
			var de *DepthError
			var dup *DuplicateError
			require.True(t, errors.As(err, &de) || errors.As(err, &dup), "%q nests %d deep: %v", data, d, err)
			if de != nil {
				assert.Equal(t, d, de.Depth)
			}
			continue
		}
		if ptr, name, dup := FirstDuplicate(data); dup {
			var de *DuplicateError
			require.ErrorAs(t, err, &de, "%q holds %q twice", data, ptr)
			assert.Equal(t, ptr, de.Pointer, "%q", data)
			assert.Equal(t, name, de.Name, "%q", data)
			continue
		}
		require.NoError(t, err, "%q", data)
		d := json.NewDecoder(bytes.NewReader(data))
		d.UseNumber()
		var want any
		require.NoError(t, d.Decode(&want))
		assert.Equal(t, want, v, "%q", data)
		var ind bytes.Buffer
		require.NoError(t, json.Indent(&ind, bytes.TrimSpace(data), strings.Repeat("  ", depth), "  "))
		assert.Equal(t, ind.String(), string(out), "%q at depth %d", data, depth)
	}
}

func TestParseIndented(t *testing.T) {
	for _, s := range []string{
		`{}`, `[]`, ` { "a" : [1, 2.5e-3, -0, "x\"y\\u00e9", true, false, null, {}, []] } `,
		`"plain"`, `"tab\there"`, `"\ud83d\ude00 é"`, "\"bad utf8 \xff\"", `12`, `-1.5E+10`,
		`{"a":1,"a":2}`, `[0,{"b":{"a":1,"\u0061":2}}]`, `{"a":{"x":1},"b":{"x":1}}`, `{"nested":{"deep":[[[{"x":"y"}]]]}}`,
		// Not JSON.
		``, ` `, `{`, `{"a"}`, `{"a":}`, `{"a":1,}`, `[1,]`, `[1 2]`, `01`, `1.`, `.5`, `1e`, `-`, `+1`,
		`tru`, `nul`, `"unterminated`, "\"ctrl \x01\"", `"\x"`, `"\u12"`, `"\u12G4"`, `{"a":1}x`, `[]]`, `{1:2}`,
		strings.Repeat("[", 10001) + strings.Repeat("]", 10001),
		// At the depth limit and one past it.
		strings.Repeat("[", MaxDepth) + strings.Repeat("]", MaxDepth),
		strings.Repeat("[", MaxDepth+1) + strings.Repeat("]", MaxDepth+1),
		`{"s":"[[[[","a":[` + strings.Repeat(`{"x":`, MaxDepth) + `1` + strings.Repeat("}", MaxDepth) + `]}`,
	} {
		checkParseIndented(t, []byte(s))
	}
}

func FuzzParseIndented(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `"x\u00e9"`, `[1e5,-0.5]`, `{"a":1,"a":2}`, "\"\xff\""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		checkParseIndented(t, data)
	})
}

// FuzzMembers: on JSON, Members splits as jsontext.ObjectMembers does and
// finds the repeat FirstDuplicate finds, in one pass.
func FuzzMembers(f *testing.F) {
	for _, s := range []string{`{"a":[1,"b",{"c":null}]}`, `{"a":1,"a":2}`, `{"x":{"a":{"b":1,"b":2}},"x":3}`, `{}`, `[]`, `{"a":`, "{\"\\u0061\":{\"a\":1,\"\\u0061\":2}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var got, want []string
		ok, dup := Members(data, func(k string, v []byte) { got = append(got, k+"="+string(v)) })
		wantOK := jsontext.ObjectMembers(data, func(k string, v []byte) { want = append(want, k+"="+string(v)) })
		if !json.Valid(data) {
			return // what is not JSON is judged later, by whoever decodes it
		}
		require.Equal(t, wantOK, ok, "%q", data)
		require.Equal(t, want, got, "%q", data)
		ptr, name, has := FirstDuplicate(data)
		require.Equal(t, has, dup != nil, "%q", data)
		if has {
			assert.Equal(t, ptr, dup.Pointer, "%q", data)
			assert.Equal(t, name, dup.Name, "%q", data)
		}
	})
}

// Parse stops where the stored form passes maxOut, before indenting the
// rest.
func TestParseStopsAtTheSizeLimit(t *testing.T) {
	data := []byte(strings.Repeat("[", 50) + strings.TrimSuffix(strings.Repeat("0,", 10000), ",") + strings.Repeat("]", 50))
	_, full, err := Parse(data, 1, nil, 0)
	require.NoError(t, err)
	require.Greater(t, len(full), 1000_000)
	_, out, err := Parse(data, 1, nil, 4096)
	var se *SizeError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, 4096, se.Max)
	assert.Greater(t, se.Size, 4096)
	assert.Less(t, se.Size, 4096+200)
	assert.Empty(t, out)
}

func TestDepth(t *testing.T) {
	for in, want := range map[string]int{`1`: 0, `[]`: 1, `{"a":[{}]}`: 3, `"[[["`: 0, `["\"[",[1]]`: 2, `[[]`: 2} {
		assert.Equal(t, want, Depth([]byte(in)), in)
	}
}
