package fsstore_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/lockfile"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/storetest"
)

func open(t testing.TB, dir string, opts *fsstore.Options) *fsstore.Store {
	t.Helper()
	s, err := fsstore.Open(dir, opts)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return s
}

func TestConformance(t *testing.T) {
	t.Parallel() // bound by fsync latency, not CPU
	storetest.TestStore(t, func(t *testing.T) memorybank.Store { return open(t, t.TempDir(), nil) })
}

var ctx = context.Background()

func listKeys(t *testing.T, s memorybank.Store, prefix string) []string {
	t.Helper()
	keys := []string{}
	for obj, err := range s.List(ctx, prefix) {
		require.NoError(t, err)
		keys = append(keys, obj.Key)
	}
	return keys
}

func TestKeysAreFiles(t *testing.T) {
	dir := t.TempDir()
	// An existing memory-bank folder is read as it is.
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "branch-memory-bank", "main"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "branch-memory-bank", "main", "activeContext.md"), []byte("# ctx"), 0o644))
	s := open(t, filepath.Join(dir), nil)

	obj, err := s.Get(ctx, "branch-memory-bank/main/activeContext.md")
	require.NoError(t, err)
	assert.Equal(t, "# ctx", string(obj.Data))

	_, err = s.Put(ctx, "global-memory-bank/projectbrief.md", []byte("# brief"), memorybank.Condition{})
	require.NoError(t, err)
	data, err := os.ReadFile(filepath.Join(dir, "global-memory-bank", "projectbrief.md"))
	require.NoError(t, err)
	assert.Equal(t, "# brief", string(data))
	assert.Equal(t, []string{"branch-memory-bank/main/activeContext.md", "global-memory-bank/projectbrief.md"}, listKeys(t, s, ""))
}

func TestOpenCreatesDirectory(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "not", "yet")
	s := open(t, dir, nil)
	assert.Equal(t, dir, s.Dir())
	_, err := s.Put(ctx, "x", []byte("1"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = os.Stat(filepath.Join(dir, "x"))
	require.NoError(t, err)

	file := filepath.Join(t.TempDir(), "file")
	require.NoError(t, os.WriteFile(file, nil, 0o644))
	_, err = fsstore.Open(file, nil)
	require.Error(t, err, "Open on a regular file")
}

func TestDeleteRemovesEmptyParents(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, nil)
	for _, k := range []string{"a/b/c/doc", "a/keep"} {
		_, err := s.Put(ctx, k, []byte("x"), memorybank.Condition{})
		require.NoError(t, err)
	}
	require.NoError(t, s.Delete(ctx, "a/b/c/doc", memorybank.Condition{}))
	_, err := os.Stat(filepath.Join(dir, "a", "b"))
	assert.ErrorIs(t, err, os.ErrNotExist, "emptied directories are removed")
	_, err = os.Stat(filepath.Join(dir, "a", "keep"))
	assert.NoError(t, err, "a directory that still holds keys stays")
	_, err = os.Stat(dir)
	assert.NoError(t, err, "the store directory itself stays")
	require.NoError(t, s.Delete(ctx, "a/keep", memorybank.Condition{}))
	_, err = os.Stat(dir)
	assert.NoError(t, err, "the store directory itself stays")
}

func TestPathConflicts(t *testing.T) {
	s := open(t, t.TempDir(), nil)
	_, err := s.Put(ctx, "dir/file", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = s.Put(ctx, "plain", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)

	_, err = s.Put(ctx, "dir", []byte("y"), memorybank.Condition{})
	assert.ErrorIs(t, err, fsstore.ErrPathConflict, "a key that is a directory")
	assert.Contains(t, err.Error(), `"dir/"`, "the message says how to see what is there")
	_, err = s.Put(ctx, "plain/sub", []byte("y"), memorybank.Condition{})
	assert.ErrorIs(t, err, fsstore.ErrPathConflict, "a key below a file")
	assert.Contains(t, err.Error(), `"plain"`)
	_, err = s.Put(ctx, "plain/sub/deeper", []byte("y"), memorybank.Condition{})
	assert.ErrorIs(t, err, fsstore.ErrPathConflict, "a key below a file")

	_, err = s.Get(ctx, "dir")
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
	_, err = s.Get(ctx, "plain/sub")
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
	assert.ErrorIs(t, s.Delete(ctx, "dir", memorybank.Condition{}), memorybank.ErrNotFound)
	assert.ErrorIs(t, s.Delete(ctx, "plain/sub", memorybank.Condition{}), memorybank.ErrNotFound)
	assert.Equal(t, []string{"dir/file", "plain"}, listKeys(t, s, ""))
}

func TestReservedNames(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, nil)
	_, err := s.Put(ctx, "doc", []byte("x"), memorybank.Condition{}) // creates the lock file
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".atomicfile-0123456789abcdef.tmp"), []byte("{tor"), 0o644))

	for _, key := range []string{fsstore.LockFileName, ".atomicfile-0123456789abcdef.tmp", "sub/.atomicfile-00.tmp"} {
		_, err := s.Get(ctx, key)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "Get(%q)", key)
		_, err = s.Put(ctx, key, []byte("x"), memorybank.Condition{})
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "Put(%q)", key)
		assert.ErrorIs(t, s.Delete(ctx, key, memorybank.Condition{}), memorybank.ErrInvalidKey, "Delete(%q)", key)
	}
	assert.Equal(t, []string{"doc"}, listKeys(t, s, ""))
	// Keys that merely look similar are fine.
	for _, key := range []string{".memorybank.lock.md", "x/.memorybank.lock", ".atomicfile-notes.md"} {
		_, err := s.Put(ctx, key, []byte("x"), memorybank.Condition{})
		assert.NoError(t, err, "Put(%q)", key)
	}
}

func TestContainment(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("secret"), 0o644))
	dir := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "evil")))                       // absolute link to a directory
	require.NoError(t, os.Symlink("../"+filepath.Base(outside), filepath.Join(dir, "evil2"))) // relative, leaves too
	require.NoError(t, os.Symlink(secret, filepath.Join(dir, "secret.md")))                   // link to a file outside
	s := open(t, dir, nil)

	for _, key := range []string{"evil/secret.md", "evil2/secret.md", "secret.md"} {
		obj, err := s.Get(ctx, key)
		require.Error(t, err, "Get(%q)", key)
		assert.Nil(t, obj.Data)
		assert.NotContains(t, err.Error(), "secret\n")

		_, err = s.Put(ctx, key, []byte("overwritten"), memorybank.Condition{})
		require.Error(t, err, "Put(%q)", key)
		_, err = s.Put(ctx, key, []byte("overwritten"), memorybank.Condition{IfAbsent: true})
		require.Error(t, err, "Put(%q, IfAbsent)", key)
		err = s.Delete(ctx, key, memorybank.Condition{})
		require.Error(t, err, "Delete(%q)", key)
	}
	_, err := s.Put(ctx, "evil/new.md", []byte("x"), memorybank.Condition{})
	require.Error(t, err)

	data, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "secret", string(data), "the file outside is untouched")
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing was created outside")
	assert.Equal(t, []string{}, listKeys(t, s, ""), "links that leave the directory are not listed")
	assert.Equal(t, []string{}, listKeys(t, s, "evil/"))
}

func TestVersionsSeeOutsideEdits(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, nil)
	obj, err := s.Put(ctx, "doc.md", []byte("aaaa"), memorybank.Condition{})
	require.NoError(t, err)
	// Another program rewrites the file in place, same size.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "doc.md"), []byte("bbbb"), 0o644))
	got, err := s.Get(ctx, "doc.md")
	require.NoError(t, err)
	assert.Equal(t, "bbbb", string(got.Data))
	assert.NotEqual(t, obj.Version, got.Version, "an outside edit changes the version")
	_, err = s.Put(ctx, "doc.md", []byte("cccc"), memorybank.Condition{IfVersion: obj.Version})
	assert.ErrorIs(t, err, memorybank.ErrConflict, "a stale compare-and-swap does not overwrite the outside edit")
}

func TestTwoStoresOneDirectory(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir, nil), open(t, dir, nil)
	obj, err := a.Put(ctx, "doc", []byte("1"), memorybank.Condition{})
	require.NoError(t, err)
	got, err := b.Get(ctx, "doc")
	require.NoError(t, err)
	assert.Equal(t, obj.Version, got.Version, "versions agree between stores on one directory")
	_, err = b.Put(ctx, "doc", []byte("2"), memorybank.Condition{IfVersion: got.Version})
	require.NoError(t, err)
	_, err = a.Put(ctx, "doc", []byte("3"), memorybank.Condition{IfVersion: obj.Version})
	assert.ErrorIs(t, err, memorybank.ErrConflict)
}

func TestLockTimeout(t *testing.T) {
	dir := t.TempDir()
	s := open(t, dir, &fsstore.Options{LockTimeout: 20 * time.Millisecond})
	old, err := s.Put(ctx, "doc", []byte("old"), memorybank.Condition{})
	require.NoError(t, err)

	// Another process would hold the same flock.
	held, err := lockfile.Acquire(ctx, filepath.Join(dir, fsstore.LockFileName), time.Second)
	require.NoError(t, err)

	_, err = s.Put(ctx, "doc", []byte("new"), memorybank.Condition{})
	require.ErrorIs(t, err, fsstore.ErrLockTimeout)
	assert.ErrorIs(t, err, lockfile.ErrTimeout)
	assert.Contains(t, err.Error(), fsstore.LockFileName)
	assert.Contains(t, err.Error(), "LockTimeout")
	err = s.Delete(ctx, "doc", memorybank.Condition{})
	require.ErrorIs(t, err, fsstore.ErrLockTimeout)

	// A cancelled wait reports the context, not a timeout.
	unbounded := open(t, dir, &fsstore.Options{LockTimeout: -1})
	cctx, cancel := context.WithCancel(ctx)
	done := make(chan error)
	go func() {
		_, err := unbounded.Put(cctx, "doc", []byte("new"), memorybank.Condition{})
		done <- err
	}()
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	assert.NotErrorIs(t, err, fsstore.ErrLockTimeout)

	// Reads take no lock.
	got, err := s.Get(ctx, "doc")
	require.NoError(t, err)
	assert.Equal(t, "old", string(got.Data))
	assert.Equal(t, old.Version, got.Version)
	assert.Equal(t, []string{"doc"}, listKeys(t, s, ""))

	require.NoError(t, held.Unlock())
	_, err = s.Put(ctx, "doc", []byte("new"), memorybank.Condition{IfVersion: old.Version})
	require.NoError(t, err, "the lock is free again")
}

func TestUseAfterClose(t *testing.T) {
	s, err := fsstore.Open(t.TempDir(), nil)
	require.NoError(t, err)
	require.NoError(t, s.Close())
	_, err = s.Get(ctx, "doc")
	assert.Error(t, err)
	assert.NotErrorIs(t, err, memorybank.ErrNotFound)
	_, err = s.Put(ctx, "doc", []byte("x"), memorybank.Condition{})
	assert.Error(t, err)
}

// Open removes, in the background, the temporary files killed writers left
// behind, once they are old enough that no write can still be using them;
// newer ones stay.
func TestOpenRemovesStaleTempFiles(t *testing.T) {
	fsstore.SweepAtOnce(t)
	dir := t.TempDir()
	old := time.Now().Add(-2 * time.Minute)
	stale := []string{".atomicfile-00000000000000aa.tmp", "global-memory-bank/.atomicfile-00000000000000bb.tmp", "branch-memory-bank/main/deep/.atomicfile-00000000000000cc.tmp"}
	fresh := "global-memory-bank/.atomicfile-00000000000000dd.tmp"
	for _, p := range append([]string{fresh, "global-memory-bank/keep.md"}, stale...) {
		full := filepath.Join(dir, filepath.FromSlash(p))
		require.NoError(t, os.MkdirAll(filepath.Dir(full), 0o755))
		require.NoError(t, os.WriteFile(full, []byte("torn"), 0o644))
	}
	for _, p := range append([]string{"global-memory-bank/keep.md"}, stale...) {
		require.NoError(t, os.Chtimes(filepath.Join(dir, filepath.FromSlash(p)), old, old))
	}
	s := open(t, dir, nil)
	<-fsstore.SweepDone(s)
	for _, p := range stale {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		assert.ErrorIs(t, err, os.ErrNotExist, "stale %s removed", p)
	}
	for _, p := range []string{fresh, "global-memory-bank/keep.md"} {
		_, err := os.Stat(filepath.Join(dir, filepath.FromSlash(p)))
		assert.NoError(t, err, "%s kept", p)
	}
	assert.Equal(t, []string{"global-memory-bank/keep.md"}, listKeys(t, s, ""))
}

// The Lazy view keeps the whole Store contract (only durability differs,
// which no test short of a power cut can see), shares the change count, and
// closing it leaves the Store open.
func TestLazyConformance(t *testing.T) {
	t.Parallel()
	storetest.TestStore(t, func(t *testing.T) memorybank.Store { return open(t, t.TempDir(), nil).Lazy() })
}

func TestLazySharesCountAndStore(t *testing.T) {
	s := open(t, t.TempDir(), nil)
	lazy := s.Lazy()
	before, err := s.Changes(ctx)
	require.NoError(t, err)
	_, err = lazy.Put(ctx, "a.json", []byte(`{}`), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	_, err = lazy.Put(ctx, "a.json", []byte(`{}`), memorybank.Condition{IfAbsent: true})
	require.ErrorIs(t, err, memorybank.ErrConflict)
	require.NoError(t, lazy.Delete(ctx, "a.json", memorybank.Condition{}))
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, before.N+2, after.N)
	require.NoError(t, lazy.(interface{ Close() error }).Close())
	_, err = s.Put(ctx, "b.json", []byte(`{}`), memorybank.Condition{})
	require.NoError(t, err, "closing the view leaves the Store open")
}
