package fsstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

func TestPutBatch(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	defer s.Close()
	old, err := s.Put(ctx, "a/old.md", []byte("old"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = s.Put(ctx, "file", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, os.Symlink("target.md", filepath.Join(dir, "a", "link.md")))
	before, err := s.Changes(ctx)
	require.NoError(t, err)

	objs := []memorybank.Object{
		{Key: "a/b/c/new.md", Data: []byte("new")},
		{Key: "a/old.md", Data: []byte("theirs")},
		{Key: "../escape", Data: []byte("x")},
		{Key: "file/under", Data: []byte("x")},
		{Key: "a", Data: []byte("x")},
		{Key: "a/b/c/new.md", Data: []byte("again")},
		{Key: "a/link.md", Data: []byte("through the link")},
		{Key: ".memorybank.lock", Data: []byte("x")},
	}
	errs, err := s.PutBatch(ctx, objs, memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	require.Len(t, errs, len(objs))
	for i, want := range []error{nil, memorybank.ErrConflict, memorybank.ErrInvalidKey, memorybank.ErrPathConflict, memorybank.ErrPathConflict, memorybank.ErrConflict, nil, memorybank.ErrInvalidKey} {
		if want == nil {
			assert.NoError(t, errs[i], objs[i].Key)
		} else {
			assert.ErrorIs(t, errs[i], want, objs[i].Key)
		}
	}
	got, err := s.Get(ctx, "a/b/c/new.md")
	require.NoError(t, err)
	assert.Equal(t, "new", string(got.Data))
	got, err = s.Get(ctx, "a/old.md")
	require.NoError(t, err)
	assert.Equal(t, "old", string(got.Data))
	assert.Equal(t, old.Version, got.Version)
	data, err := os.ReadFile(filepath.Join(dir, "a", "target.md"))
	require.NoError(t, err)
	assert.Equal(t, "through the link", string(data), "a link is kept and its target written")
	fi, err := os.Lstat(filepath.Join(dir, "a", "link.md"))
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink)
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, before.N+2, after.N, "one change per key written")

	// Unconditional: replaces, with a new version.
	errs, err = s.PutBatch(ctx, []memorybank.Object{{Key: "a/old.md", Data: []byte("old")}}, memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	got2, err := s.Get(ctx, "a/old.md")
	require.NoError(t, err)
	assert.NotEqual(t, got.Version, got2.Version, "a rewrite of the same bytes changes the version")

	// IfVersion holds only at that version.
	errs, err = s.PutBatch(ctx, []memorybank.Object{{Key: "a/old.md", Data: []byte("v")}}, memorybank.Condition{IfVersion: got.Version})
	require.NoError(t, err)
	require.ErrorIs(t, errs[0], memorybank.ErrConflict)

	// No temporary files are left.
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		assert.NotContains(t, filepath.Base(p), ".atomicfile-")
		return nil
	}))

	_, err = s.PutBatch(ctx, nil, memorybank.Condition{IfAbsent: true, IfVersion: "x"})
	require.ErrorIs(t, err, memorybank.ErrInvalidCondition)
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, err = s.PutBatch(cctx, objs, memorybank.Condition{})
	require.ErrorIs(t, err, context.Canceled)
}
