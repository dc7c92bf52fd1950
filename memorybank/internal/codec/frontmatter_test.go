package codec

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/require"
)

// FuzzFrontMatter: any text either is refused as front matter that is not
// YAML, or decodes to metadata and text that the front matter the Bank
// writes reads back exactly.
func FuzzFrontMatter(f *testing.F) {
	for _, s := range []string{"", "x", "---\n---\n", "---\ntitle: a\ntags: [a, b]\n---\nbody",
		"---\nmetadata:\n  title: |\n    two\n    lines\n  tags:\n    - a # comment\n  owner: {name: x, ids: [1, 2]}\n---\n",
		"---\ntitle: 2024\nversion: 9223372036854775807\ncreatedAt: 2024-01-02\n---\n", "---\na: &x [1]\nb: *x\n---\n",
		"---\ntitle: a\ntitle: b\n---\n", "---\n\nA paragraph between rules\n\n---\n", "---\nk: [\"a\\\"b\", c]\n---\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		e, err := DecodeText("f.md", []byte(text))
		if err != nil {
			var fe *FrontMatterError
			require.True(t, errors.As(err, &fe), "%q: %v", text, err)
			return
		}
		e.Normalize()
		body, ok := e.Text()
		require.True(t, ok)
		if e.Bare {
			var want string // text is a JSON string: invalid UTF-8 reads as U+FFFD
			require.NoError(t, json.Unmarshal(RawString(text), &want))
			require.Equal(t, want, body, "text without front matter is all text")
			return
		}
		again, err := DecodeText("f.md", EncodeText(e))
		require.NoError(t, err, "%q encodes to %q", text, EncodeText(e))
		again.Normalize()
		body2, _ := again.Text()
		require.Equal(t, body, body2)
		var m1, m2 any
		require.NoError(t, json.Unmarshal(e.CanonicalMeta(), &m1))
		require.NoError(t, json.Unmarshal(again.CanonicalMeta(), &m2))
		require.Equal(t, m1, m2, "%q encodes to %q", text, EncodeText(e))
	})
}
