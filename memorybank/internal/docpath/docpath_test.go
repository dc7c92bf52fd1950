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
