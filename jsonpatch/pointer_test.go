package jsonpatch

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseFormatPointer(t *testing.T) {
	cases := []struct {
		ptr    string
		tokens []string
	}{
		{"", nil},
		{"/", []string{""}},
		{"/a/b", []string{"a", "b"}},
		{"/a~1b/~0", []string{"a/b", "~"}},
		{"/~01", []string{"~1"}},
		{"//x/", []string{"", "x", ""}},
		{"/ü/ 0", []string{"ü", " 0"}},
	}
	for _, c := range cases {
		got, err := ParsePointer(c.ptr)
		require.NoError(t, err, c.ptr)
		assert.Equal(t, c.tokens, got, c.ptr)
		assert.Equal(t, c.ptr, FormatPointer(got...), "round trip %q", c.ptr)
	}
	for _, bad := range []string{"a", "#/a", "/a~", "/a~2", "/~x"} {
		_, err := ParsePointer(bad)
		assert.ErrorIs(t, err, ErrInvalidPointer, bad)
	}
}

func TestEscapeToken(t *testing.T) {
	for _, tok := range []string{"", "a", "a/b", "~", "~1", "/~0/"} {
		esc := EscapeToken(tok)
		assert.NotContains(t, esc, "/")
		got, err := UnescapeToken(esc)
		require.NoError(t, err)
		assert.Equal(t, tok, got)
	}
	assert.Equal(t, "~01~1", EscapeToken("~1/"))
	_, err := UnescapeToken("a~")
	assert.ErrorIs(t, err, ErrInvalidPointer)
	_, err = UnescapeToken("a/b")
	assert.ErrorIs(t, err, ErrInvalidPointer)
}

func TestGet(t *testing.T) {
	doc := []byte(` {"a": {"b": [10, {"c": null}, "x\"y"]}, "": 5, "k\u00e9": true, "d":1, "d":2} `)
	cases := []struct {
		ptr  string
		want string
		err  error
	}{
		{"", `{"a": {"b": [10, {"c": null}, "x\"y"]}, "": 5, "k\u00e9": true, "d":1, "d":2}`, nil},
		{"/", `5`, nil},
		{"/a/b/0", `10`, nil},
		{"/a/b/1/c", `null`, nil},
		{"/a/b/2", `"x\"y"`, nil},
		{"/ké", `true`, nil},
		{"/d", `2`, nil}, // the last duplicate wins, as in decoders
		{"/a/b/3", "", ErrInvalidIndex},
		{"/a/b/-", "", ErrInvalidIndex},
		{"/a/b/01", "", ErrInvalidIndex},
		{"/a/x", "", ErrPathNotFound},
		{"/a/b/0/x", "", ErrPathNotFound},
		{"a", "", ErrInvalidPointer},
	}
	for _, c := range cases {
		got, err := Get(doc, c.ptr)
		if c.err != nil {
			assert.ErrorIs(t, err, c.err, c.ptr)
			assert.Nil(t, got)
			continue
		}
		require.NoError(t, err, c.ptr)
		assert.Equal(t, c.want, string(got), c.ptr)
	}
	_, err := Get([]byte("  "), "")
	assert.ErrorIs(t, err, ErrInvalidDocument)
	_, err = Get([]byte(`{"a":`), "/a")
	assert.ErrorIs(t, err, ErrInvalidDocument)
}

func TestEqualJSON(t *testing.T) {
	eq := [][2]string{{`1`, `1.0`}, {`1`, `1e0`}, {`100`, `1E2`}, {`0.5`, `5e-1`}, {`-0`, `0`}, {`0.0e10`, `0`}, {`"\u00e9"`, `"é"`}, {`{"a":1,"b":[2]}`, `{"b":[2.0],"a":1}`}, {`[ ]`, `[]`}, {`1e999999999999999999999`, `10e999999999999999999998`}}
	for _, c := range eq {
		assert.True(t, equalJSON([]byte(c[0]), []byte(c[1])), "%s == %s", c[0], c[1])
	}
	ne := [][2]string{{`1`, `2`}, {`1`, `-1`}, {`1`, `"1"`}, {`null`, `false`}, {`{"a":1}`, `{"a":1,"b":2}`}, {`[1,2]`, `[2,1]`}, {`{}`, `[]`}, {`1e2`, `1e3`}, {`0.1`, `0.10000000000000001`}}
	for _, c := range ne {
		assert.False(t, equalJSON([]byte(c[0]), []byte(c[1])), "%s != %s", c[0], c[1])
	}
}

func TestPatchJSONRoundTrip(t *testing.T) {
	src := `[{"op":"copy","path":"/b","from":""},{"op":"add","path":"/a","value":null},{"op":"remove","path":"/a"}]`
	var req struct {
		Patches Patch `json:"patches"`
	}
	require.NoError(t, json.Unmarshal([]byte(`{"patches":`+src+`}`), &req))
	require.Len(t, req.Patches, 3)
	assert.Equal(t, "", req.Patches[0].From)
	assert.Equal(t, "null", string(req.Patches[1].Value), "null is kept, not absent")
	out, err := json.Marshal(req.Patches)
	require.NoError(t, err)
	assert.Equal(t, `[{"op":"copy","path":"/b","from":""},{"op":"add","path":"/a","value":null},{"op":"remove","path":"/a"}]`, string(out))

	err = json.Unmarshal([]byte(`{"patches":[{"op":"add","op":"remove","path":"/a","value":1}]}`), &req)
	assert.ErrorIs(t, err, ErrInvalidPatch, "encoding/json goes through Decode")
	req.Patches = nil
	require.NoError(t, json.Unmarshal([]byte(`{"patches":null}`), &req))
	assert.Nil(t, req.Patches)
}

func TestGetEscapedMemberNames(t *testing.T) {
	doc := []byte(`{"a\\b":1,"a\u005cb":2,"\"q\"":3}`)
	v, err := Get(doc, `/a\\b`)
	assert.ErrorIs(t, err, ErrPathNotFound, "the member is a\\b, one backslash, got %s", v)
	v, err = Get(doc, `/a\b`)
	require.NoError(t, err)
	assert.Equal(t, "2", string(v), "the last of two equal names")
	v, err = Get(doc, `/"q"`)
	require.NoError(t, err)
	assert.Equal(t, "3", string(v))
}
