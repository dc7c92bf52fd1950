package fsstore

import (
	"bytes"
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// A lazy Put syncs nothing, not even the directories it creates (a Bank's
// history entry then costs no fsync); a durable Put into such a directory
// that is not journalled makes each one durable first, so it is never lost
// with its directory. A journalled one syncs no directory: the journal's
// replay makes the directories again.
func TestLazyPutLeavesItsDirectoriesToTheNextDurablePut(t *testing.T) {
	small, large := []byte("2"), bytes.Repeat([]byte("x"), journalMaxData+1)
	for _, tc := range []struct {
		name       string
		data       []byte
		journalled bool
	}{{"journalled", small, journalSupported}, {"not journalled", large, false}} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			s, err := Open(t.TempDir(), nil)
			require.NoError(t, err)
			defer s.Close()
			var synced []string
			s.syncHook = func(dir string) { synced = append(synced, dir) }
			lazy := s.Lazy()

			_, err = lazy.Put(ctx, "a/b/one.json", []byte("1"), memorybank.Condition{})
			require.NoError(t, err)
			assert.Empty(t, synced, "a lazy Put syncs no directory")

			_, err = s.Put(ctx, "a/b/two.json", tc.data, memorybank.Condition{})
			require.NoError(t, err)
			if tc.journalled {
				assert.Empty(t, synced, "the journalled Put syncs no directory")
			} else {
				assert.Equal(t, []string{"a", "."}, synced, "the durable Put syncs the entries of a/b (in a) and of a (in .)")
			}

			synced = nil
			_, err = s.Put(ctx, "a/b/three.json", tc.data, memorybank.Condition{})
			require.NoError(t, err)
			assert.Empty(t, synced, "once durable, they are not synced again")
		})
	}
}
