package filestore

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An append journalled in the lock file but cut short by a kill (the state
// a SIGKILL inside write(2) leaves) is undone by the next operation; a
// complete one is kept.
func TestJournalRecovery(t *testing.T) {
	const before = "# Memories\n\n## a\n- Content: a\n\n"
	const entry = "## b\n- Content: b\n\n"
	for _, tc := range []struct {
		name    string
		written int // bytes of entry that reached the file
		want    string
	}{
		{"nothing written", 0, before},
		{"torn", 7, before},
		{"all but one byte", len(entry) - 1, before},
		{"complete", len(entry), before + entry},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "memories.md")
			require.NoError(t, os.WriteFile(path, []byte(before+entry[:tc.written]), 0o644))
			require.NoError(t, os.WriteFile(path+".lock",
				fmt.Appendf(nil, stateFormat, 7, len(before), len(entry)), 0o644))

			s := New(path, nil)
			data, v, err := s.Load(context.Background())
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(data))
			state, err := os.ReadFile(path + ".lock")
			require.NoError(t, err)
			assert.Equal(t, fmt.Sprintf(stateFormat, 8, 0, 0), string(state), "journal cleared, generation bumped")

			_, err = s.Save(context.Background(), []byte("next\n"), v)
			require.NoError(t, err, "the version Load returned after recovery is current")
		})
	}
}
