package render_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestJSONKeepsMemberOrderAsInTheSource(t *testing.T) {
	out, err := render.JSON([]byte(`{"zeta": 1, "alpha": 2, "mid": {"b": true, "a": null}, "zeta": 3}`))
	require.NoError(t, err)
	s := string(out)
	var at []int
	for _, k := range []string{`"zeta"`, `"alpha"`, `"mid"`, `"b"`, `"a"`} {
		i := strings.Index(s, `<span class="json-key">`+k+`</span>`)
		require.GreaterOrEqual(t, i, 0, "key %s is shown: %s", k, s)
		at = append(at, i)
	}
	for i := 1; i < len(at); i++ {
		assert.Less(t, at[i-1], at[i], "keys appear in source order")
	}
	assert.Equal(t, 2, strings.Count(s, `<span class="json-key">"zeta"</span>`), "a duplicate key is shown, not merged")
}

func TestJSONEscapesKeysAndStrings(t *testing.T) {
	out, err := render.JSON([]byte(`{"<script>alert(1)</script>": "<img src=x onerror=alert(1)>", "q": "\"&'"}`))
	require.NoError(t, err)
	s := string(out)
	assert.Empty(t, executableMarkup(s), s)
	assert.NotContains(t, s, "<script")
	assert.NotContains(t, s, "<img")
	assert.Contains(t, s, `&lt;script&gt;alert(1)&lt;/script&gt;`, "the key's text is kept, escaped")
	assert.Contains(t, s, `&lt;img src=x onerror=alert(1)&gt;`)
	assert.Contains(t, s, `"\"&amp;'"`, "quotes inside a string stay JSON-escaped, then HTML-escaped")
}

func TestJSONShowsATreeWithClasses(t *testing.T) {
	out, err := render.JSON([]byte(`{"s": "x", "n": 1.5e3, "b": false, "z": null, "list": [1, 2], "empty": {}, "none": []}`))
	require.NoError(t, err)
	s := string(out)
	for _, want := range []string{
		`<details open><summary>{ 7 keys }</summary>`,
		`<details open><summary>[ 2 items ]</summary>`,
		`<span class="json-string">"x"</span>`,
		`<span class="json-number">1.5e3</span>`,
		`<span class="json-bool">false</span>`,
		`<span class="json-null">null</span>`,
		`<span class="json-empty">{}</span>`,
		`<span class="json-empty">[]</span>`,
	} {
		assert.Contains(t, s, want)
	}
	assert.Equal(t, strings.Count(s, "<details"), strings.Count(s, "</details>"))
}

func TestJSONScalarDocument(t *testing.T) {
	out, err := render.JSON([]byte(` "just a string" `))
	require.NoError(t, err)
	assert.Contains(t, string(out), `<span class="json-string">"just a string"</span>`)
}

func TestJSONRefusesBadInputWithClearErrors(t *testing.T) {
	tests := []struct {
		name, src string
		want      error
		msg       string
	}{
		{"syntax", `{"a": 1,}`, render.ErrSyntax, "invalid JSON at byte"},
		{"truncated", `{"a": [1, 2`, render.ErrSyntax, "unexpected end of input"},
		{"trailing", `{"a": 1} {"b": 2}`, render.ErrSyntax, "more data after the JSON value"},
		{"empty", ``, render.ErrSyntax, "invalid JSON"},
		{"too deep", strings.Repeat("[", render.MaxJSONDepth+1) + strings.Repeat("]", render.MaxJSONDepth+1), render.ErrTooDeep, "JSON nesting depth"},
		{"too large", `"` + strings.Repeat("a", render.MaxJSONBytes) + `"`, render.ErrTooLarge, "JSON document bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out, err := render.JSON([]byte(tt.src))
			require.Error(t, err)
			assert.Empty(t, out)
			assert.ErrorIs(t, err, tt.want)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
	_, err := render.JSON([]byte(strings.Repeat("[", render.MaxJSONDepth) + strings.Repeat("]", render.MaxJSONDepth)))
	assert.NoError(t, err, "exactly MaxJSONDepth levels are allowed")

	_, err = render.JSON([]byte(`{"a": 1,}`))
	var se *render.SyntaxError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "JSON", se.Format)
	assert.Equal(t, int64(8), se.Offset, "the offset points at the stray }")
}

func FuzzJSON(f *testing.F) {
	f.Add(`{"a": [1, "x", {"b": null}], "c": true}`)
	f.Add(`"<script>"`)
	f.Add(`[[[[]]]]`)
	f.Fuzz(func(t *testing.T, src string) {
		out, err := render.JSON([]byte(src))
		if err != nil {
			if !errors.Is(err, render.ErrSyntax) && !errors.Is(err, render.ErrTooDeep) && !errors.Is(err, render.ErrTooLarge) {
				t.Fatalf("error outside the contract: %v", err)
			}
			return
		}
		if bad := executableMarkup(string(out)); bad != "" {
			t.Fatalf("%s from %q", bad, src)
		}
		if strings.Count(string(out), "<details") != strings.Count(string(out), "</details>") {
			t.Fatalf("unbalanced details from %q", src)
		}
	})
}
