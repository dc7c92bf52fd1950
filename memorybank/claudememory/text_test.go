package claudememory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// Input that decoding would change (bytes that are not UTF-8, a lone
// surrogate escape) is refused, never read as U+FFFD naming another file.
func TestHandleRefusesTextDecodingWouldChange(t *testing.T) {
	files := newMapFiles(map[string]string{"a\uFFFD.md": "keep"})
	h := claudememory.New(files, nil)
	for _, input := range []string{
		`{"command":"create","path":"/memories/a\udc80.md","file_text":"x"}`,
		"{\"command\":\"create\",\"path\":\"/memories/a\xff.md\",\"file_text\":\"x\"}",
		`{"command":"delete","path":"/memories/a\ud800.md"}`,
		`{"command":"create","path":"/memories/b.md","file_text":"x\ud800"}`,
	} {
		t.Run(input, func(t *testing.T) {
			_, err := h.Handle(context.Background(), []byte(input))
			require.ErrorIs(t, err, claudememory.ErrInvalidInput)
			assert.Contains(t, err.Error(), "UTF-8")
			assert.Equal(t, []string{"a\uFFFD.md"}, files.paths(), "nothing changed")
		})
	}
	_, err := h.Do(context.Background(), claudememory.Input{Command: "view", Path: ptr("/memories/a\xff.md")})
	require.ErrorIs(t, err, claudememory.ErrInvalidPath)
	assert.Contains(t, err.Error(), "UTF-8")
}

func ptr[T any](v T) *T { return &v }
