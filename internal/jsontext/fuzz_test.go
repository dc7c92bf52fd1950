package jsontext

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Each function of the toolkit is checked against encoding/json, the judge.

var seeds = []string{
	`{}`, `[]`, `""`, `"a\"b\\"`, `{"a":1,"b":[true,null,{"c":"d"}]}`, ` { "x" : "\u00e9\ud83d\ude00" } `,
	`[1, 2 ,3]`, `{"a":{"b":[1,{"c":[]}]},"a":2}`, `"\ud800"`, `"\ud800\u0041"`, "\"\xff\"", `"\x"`, `"a\`,
	`{"\u0061":1}`, `[1,]`, `{"a" 1}`, `-1.5e3`, `tru`, `{"a":"}"}`, "\"\t\"", `"\uZZZZ"`,
}

// FuzzSkipValue: for a valid text, SkipValue ends exactly where the value
// does; for any text it never panics and stays in range.
func FuzzSkipValue(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		i := SkipSpace(data, 0)
		end := SkipValue(data, i)
		require.True(t, end == -1 || (end > i && end <= len(data)), "end %d", end)
		if json.Valid(data) {
			require.Equal(t, len(bytes.TrimRight(data, " \t\n\r")), end, "%q", data)
			require.Equal(t, len(data), SkipSpace(data, end))
		}
	})
}

// FuzzUnquote: Unquote agrees with json.Unmarshal into a string, on what it
// accepts and what it gives.
func FuzzUnquote(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		got, ok := Unquote(data)
		var want string
		err := json.Unmarshal(data, &want)
		isString := len(data) >= 2 && data[0] == '"' && data[len(data)-1] == '"' && SkipString(data, 0) == len(data)
		if !isString {
			return // not one string token: json may accept it with white space, or refuse it for other reasons
		}
		require.Equal(t, err == nil, ok, "%q: json says %v", data, err)
		if ok {
			require.Equal(t, want, got, "%q", data)
		}
	})
}

// FuzzObjectMembers: for a valid text, ObjectMembers reports an object
// exactly when it is one, and gives its members in order, with the names
// and values encoding/json's decoder gives.
func FuzzObjectMembers(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var keys []string
		var vals [][]byte
		isObj := ObjectMembers(data, func(k string, v []byte) {
			keys = append(keys, k)
			vals = append(vals, v)
		})
		if !json.Valid(data) {
			return
		}
		trimmed := bytes.TrimSpace(data)
		require.Equal(t, trimmed[0] == '{', isObj, "%q", data)
		if !isObj {
			return
		}
		dec := json.NewDecoder(bytes.NewReader(data))
		_, err := dec.Token() // {
		require.NoError(t, err)
		for i := 0; dec.More(); i++ {
			tok, err := dec.Token()
			require.NoError(t, err)
			var raw json.RawMessage
			require.NoError(t, dec.Decode(&raw))
			require.Less(t, i, len(keys))
			assert.Equal(t, tok.(string), keys[i])
			assert.JSONEq(t, string(raw), string(vals[i]))
		}
	})
}

// FuzzAt: At finds what decoding the document and following the pointer
// by hand finds.
func FuzzAt(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), "/a")
		f.Add([]byte(s), "/a/b/1/c")
		f.Add([]byte(s), "")
	}
	f.Add([]byte(`{"a/b":{"~":[0,1]}}`), "/a~1b/~0/1")
	f.Fuzz(func(t *testing.T, data []byte, ptr string) {
		got, ok := At(data, ptr)
		if !json.Valid(data) {
			return
		}
		// UseNumber: a valid document may hold numbers no float64 holds.
		v, err := decodeNumbers(data)
		require.NoError(t, err)
		tokens, valid := SplitPointer(ptr)
		found := valid
		for _, tok := range tokens {
			if !found {
				break
			}
			switch c := v.(type) {
			case map[string]any:
				v, found = c[tok]
			case []any:
				n, err := strconv.Atoi(tok)
				found = err == nil && CanonicalIndex(tok) && n < len(c)
				if found {
					v = c[n]
				}
			default:
				found = false
			}
		}
		require.Equal(t, found, ok, "%q at %q", data, ptr)
		if ok {
			g, err := decodeNumbers(got)
			require.NoError(t, err)
			assert.Equal(t, v, g)
		}
	})
}

// FuzzPointer: SplitPointer inverts escaping, and EscapeToken and
// UnescapeToken are inverses.
func FuzzPointer(f *testing.F) {
	for _, s := range []string{"", "a", "~", "/", "a/b~c", "~0~1", "~2"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, tok string) {
		esc := EscapeToken(tok)
		back, ok := UnescapeToken(esc)
		require.True(t, ok)
		require.Equal(t, tok, back)
		parts, ok := SplitPointer("/" + esc + "/" + esc)
		require.True(t, ok)
		require.Equal(t, []string{tok, tok}, parts)
		if _, ok := SplitPointer(tok); ok {
			require.True(t, tok == "" || strings.HasPrefix(tok, "/"))
		}
	})
}

func TestDecodeStringLenient(t *testing.T) {
	for in, want := range map[string]string{
		`plain`:              "plain",
		`a\nb`:               "a\nb",
		`\ud83d\ude00 smile`: "😀 smile",
		`\ud83d alone`:       "\uFFFD alone",
		`\uZZZZ`:             "\uFFFDZZZZ",
		`trailing \`:         `trailing \`,
		`\q`:                 "q",
	} {
		got, _ := DecodeString([]byte(in))
		assert.Equal(t, want, got, in)
	}
}

// decodeNumbers decodes JSON keeping numbers as json.Number.
func decodeNumbers(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	err := dec.Decode(&v)
	return v, err
}
