package fsstore_test

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// A Store keeps its lock file open between writes; when another program
// deletes it, the Store locks the new one at the name, so writers still
// exclude each other.
func TestDeletedLockFileStillExcludes(t *testing.T) {
	dir := t.TempDir()
	s1 := open(t, dir, &fsstore.Options{LockTimeout: 50 * time.Millisecond})
	_, err := s1.Put(ctx, "a.json", []byte(`1`), memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, fsstore.LockFileName)))

	s2 := open(t, dir, nil)
	finish, err := fsstore.MidWrite(ctx, s2)
	require.NoError(t, err)
	_, err = s1.Put(ctx, "a.json", []byte(`2`), memorybank.Condition{})
	assert.ErrorIs(t, err, fsstore.ErrLockTimeout, "the other Store holds the lock at the name")
	finish()
	_, err = s1.Put(ctx, "a.json", []byte(`3`), memorybank.Condition{})
	require.NoError(t, err)
}

// A Store keeps its change counter open between writes; when another
// program deletes it, the next write counts in a new one that readers see.
func TestDeletedChangeCounterCountsAgain(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, nil)
	_, err := s.Put(ctx, "a.json", []byte(`1`), memorybank.Condition{})
	require.NoError(t, err)
	before, err := s.Changes(ctx)
	require.NoError(t, err)
	require.NoError(t, os.Remove(filepath.Join(dir, fsstore.ChangesFileName)))

	_, err = s.Put(ctx, "a.json", []byte(`2`), memorybank.Condition{})
	require.NoError(t, err)
	after, err := open(t, dir, nil).Changes(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, "none", after.Epoch, "the write counted in a counter at the name")
	assert.NotEqual(t, before, after)
}
