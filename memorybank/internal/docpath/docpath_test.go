package docpath_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/memorybank/internal/docpath"
)

func TestIsJSON(t *testing.T) {
	for p, want := range map[string]bool{
		"activeContext.json": true, "notes/A.JSON": true, "MEMORY.md": false, "json": false, "a.json.md": false, "a.jsonl": false,
	} {
		assert.Equal(t, want, docpath.IsJSON(p), p)
	}
}

func TestCollide(t *testing.T) {
	cases := []struct {
		a, b string
		want docpath.Collision
	}{
		{"notes.md", "Notes.md", docpath.SameFile},
		{"caf\u00e9.md", "cafe\u0301.md", docpath.SameFile},
		{"\u00c9t\u00e9.md", "e\u0301te\u0301.md", docpath.SameFile},
		{"a/b.md", "A", docpath.UnderDocument},
		{"a", "A/b.md", docpath.OverDocuments},
		{"a.md", "b.md", docpath.NoCollision},
		{"ab/c.md", "a", docpath.NoCollision},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, docpath.Collide(docpath.Fold(tc.a), docpath.Fold(tc.b)), "%q %q", tc.a, tc.b)
	}
}
