package filestore_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/lockfile"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memories/storetest"
)

func TestConformance(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) memories.Store {
		return filestore.New(filepath.Join(t.TempDir(), "memories.md"), nil)
	})
}

func TestConformanceThroughDanglingSymlink(t *testing.T) {
	storetest.TestStore(t, func(t *testing.T) memories.Store {
		primary, wt := worktreeLayout(t)
		require.NoError(t, os.MkdirAll(filepath.Join(primary, ".agent"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(wt, ".agent"), 0o755))
		link := filepath.Join(wt, ".agent", "memories.md")
		require.NoError(t, os.Symlink(filepath.Join(primary, ".agent", "memories.md"), link))
		return filestore.New(link, nil)
	})
}

// The seed's first test as written: it reads the file itself.
func TestSeedAddWritesFile(t *testing.T) {
	ctx := context.Background()
	testDir := filepath.Join(t.TempDir(), ".test-agent")
	memoriesPath := filepath.Join(testDir, "memories.md")
	m, err := memories.New(filestore.New(memoriesPath, nil), &memories.Options{Config: &memories.Config{Enabled: true, Inject: "auto"}})
	require.NoError(t, err)

	_, err = m.Add(ctx, "Always use try-catch", "pattern", "error-handling")
	require.NoError(t, err)

	content, err := os.ReadFile(memoriesPath)
	require.NoError(t, err)
	assert.Contains(t, string(content), "Always use try-catch")
	assert.Contains(t, string(content), "pattern, error-handling")
	assert.True(t, strings.HasPrefix(string(content), memories.Header))
}

func TestSymlinkStaysSymlink(t *testing.T) {
	ctx := context.Background()
	primary, wt := worktreeLayout(t)
	require.NoError(t, filestore.LinkWorktree(primary, wt))
	link := filepath.Join(wt, ".agent", "memories.md")
	target := filepath.Join(primary, ".agent", "memories.md")

	m, err := memories.New(filestore.New(link, nil), nil)
	require.NoError(t, err)
	a, err := m.Add(ctx, "first")
	require.NoError(t, err)
	before, err := os.Stat(target)
	require.NoError(t, err)
	_, err = m.Add(ctx, "second")
	require.NoError(t, err)
	after, err := os.Stat(target)
	require.NoError(t, err)
	assert.True(t, os.SameFile(before, after), "Add appends in place, it does not rewrite the file")

	require.NoError(t, m.Delete(ctx, a.ID))
	fi, err := os.Lstat(link)
	require.NoError(t, err)
	assert.NotZero(t, fi.Mode()&os.ModeSymlink, "after a rewrite the worktree's file is still a link")
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Contains(t, string(data), "second")
	assert.NotContains(t, string(data), "- Content: first")
	_, err = os.Stat(target + ".lock")
	assert.NoError(t, err, "the lock lives beside the resolved target")
	_, err = os.Stat(link + ".lock")
	assert.ErrorIs(t, err, os.ErrNotExist, "no lock beside the link")
}

func TestLinkWorktree(t *testing.T) {
	t.Run("creates primary and link, idempotent", func(t *testing.T) {
		primary, wt := worktreeLayout(t)
		require.NoError(t, filestore.LinkWorktree(primary, wt))
		link := filepath.Join(wt, ".agent", "memories.md")
		dest, err := os.Readlink(link)
		require.NoError(t, err)
		assert.True(t, filepath.IsAbs(dest), "absolute target")
		assert.Equal(t, filepath.Join(primary, ".agent", "memories.md"), dest)
		require.NoError(t, filestore.LinkWorktree(primary, wt), "linking again is a no-op")
	})
	t.Run("keeps an existing primary file", func(t *testing.T) {
		primary, wt := worktreeLayout(t)
		require.NoError(t, os.MkdirAll(filepath.Join(primary, ".agent"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(primary, ".agent", "memories.md"), []byte("# Memories\n\nkept\n"), 0o644))
		require.NoError(t, filestore.LinkWorktree(primary, wt))
		data, err := os.ReadFile(filepath.Join(wt, ".agent", "memories.md"))
		require.NoError(t, err)
		assert.Equal(t, "# Memories\n\nkept\n", string(data))
	})
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, wt string)
		found string
	}{
		{"real file", func(t *testing.T, wt string) {
			require.NoError(t, os.WriteFile(filepath.Join(wt, ".agent", "memories.md"), []byte("worktree's own memories\n"), 0o644))
		}, "a real file of 24 bytes"},
		{"link elsewhere", func(t *testing.T, wt string) {
			require.NoError(t, os.Symlink("/elsewhere/memories.md", filepath.Join(wt, ".agent", "memories.md")))
		}, "a symbolic link to /elsewhere/memories.md"},
		{"directory", func(t *testing.T, wt string) {
			require.NoError(t, os.Mkdir(filepath.Join(wt, ".agent", "memories.md"), 0o755))
		}, "a directory"},
	} {
		t.Run("refuses "+tc.name, func(t *testing.T) {
			primary, wt := worktreeLayout(t)
			require.NoError(t, os.MkdirAll(filepath.Join(wt, ".agent"), 0o755))
			tc.setup(t, wt)
			before := snapshot(t, primary, wt)
			err := filestore.LinkWorktree(primary, wt)
			require.ErrorIs(t, err, filestore.ErrNotLink)
			var le *filestore.LinkError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tc.found, le.Found)
			assert.Contains(t, err.Error(), "Nothing was changed")
			assert.Equal(t, before, snapshot(t, primary, wt), "nothing changed")
		})
	}
	t.Run("refuses the primary itself", func(t *testing.T) {
		primary, _ := worktreeLayout(t)
		err := filestore.LinkWorktree(primary, primary)
		require.ErrorIs(t, err, filestore.ErrNotLink)
		_, err = os.Stat(filepath.Join(primary, ".agent"))
		assert.ErrorIs(t, err, os.ErrNotExist, "nothing created")
	})
}

// snapshot lists every path under the dirs with its kind and content.
func snapshot(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		require.NoError(t, filepath.Walk(d, func(p string, fi os.FileInfo, err error) error {
			if err != nil {
				return err
			}
			switch {
			case fi.Mode()&os.ModeSymlink != 0:
				dest, _ := os.Readlink(p)
				out[p] = "link:" + dest
			case fi.IsDir():
				out[p] = "dir"
			default:
				data, _ := os.ReadFile(p)
				out[p] = "file:" + string(data)
			}
			return nil
		}))
	}
	return out
}

func TestLockTimeout(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	s := filestore.New(path, &filestore.Options{LockTimeout: 20 * time.Millisecond})
	_, err := s.Save(ctx, []byte("# Memories\n\n"), "")
	require.NoError(t, err)
	held, err := lockfile.Acquire(ctx, path+".lock", time.Second)
	require.NoError(t, err)
	defer held.Unlock()

	_, _, err = s.Append(ctx, nil, []byte("x\n"))
	require.ErrorIs(t, err, filestore.ErrLockTimeout)
	var fe *filestore.Error
	require.ErrorAs(t, err, &fe)
	assert.Equal(t, "append", fe.Op)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# Memories\n\n", string(data), "a timed-out append writes nothing")

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	_, _, err = filestore.New(path, &filestore.Options{LockTimeout: -1}).Load(cctx)
	assert.ErrorIs(t, err, context.Canceled)
}

func TestHandEditChangesVersion(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	s := filestore.New(path, nil)
	v1, err := s.Save(ctx, []byte("one\n"), "")
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("edited by hand\n"), 0o644))
	_, err = s.Save(ctx, []byte("lost the hand edit\n"), v1)
	assert.ErrorIs(t, err, memories.ErrConflict)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "edited by hand\n", string(data))
}

func TestConcurrentStoresOnOneFile(t *testing.T) {
	ctx := context.Background()
	primary, wt := worktreeLayout(t)
	require.NoError(t, filestore.LinkWorktree(primary, wt))
	paths := []string{filepath.Join(primary, ".agent", "memories.md"), filepath.Join(wt, ".agent", "memories.md")}
	var wg sync.WaitGroup
	for w := range 4 {
		m, err := memories.New(filestore.New(paths[w%2], nil), nil)
		require.NoError(t, err)
		wg.Go(func() {
			for i := range 25 {
				mem, err := m.Add(ctx, fmt.Sprintf("w%d-%d", w, i))
				if !assert.NoError(t, err) {
					return
				}
				if i%5 == 0 {
					assert.NoError(t, m.Delete(ctx, mem.ID))
				}
			}
		})
	}
	wg.Wait()
	m, err := memories.New(filestore.New(paths[0], nil), nil)
	require.NoError(t, err)
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 4*20, "every add survives concurrent deletes through both paths")
}

// TestLoadReadOnlyDirectory checks the read-without-lock fallback of Load.
// A directory without write access fails the creation of the lock file with
// a permission error; root ignores permissions, so the failure is injected
// where lockfile.Acquire would report it, in the same shape (an
// *fs.PathError with EACCES, wrapped).
func TestLoadReadOnlyDirectory(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	path := filepath.Join(dir, "memories.md")
	require.NoError(t, os.WriteFile(path, []byte("# Memories\n\n"), 0o644))

	calls := 0
	filestore.SetAcquireHook(func(_ context.Context, _ *os.Root, lockPath string, _ time.Duration) (*lockfile.Lock, error) {
		calls++
		return nil, fmt.Errorf("lockfile: open lock file: %w", &fs.PathError{Op: "open", Path: lockPath, Err: syscall.EACCES})
	})
	t.Cleanup(func() { filestore.SetAcquireHook(nil) })

	data, v, err := filestore.New(path, nil).Load(ctx)
	require.NoError(t, err, "a checkout without write access can still be read")
	assert.Equal(t, 1, calls, "Load tried to take the lock first")
	assert.Equal(t, "# Memories\n\n", string(data))
	assert.NotEmpty(t, v)
	_, err = os.Stat(path + ".lock")
	assert.ErrorIs(t, err, fs.ErrNotExist, "the fallback creates no lock file")

	// Only a permission failure falls back: any other failure to lock is
	// reported, not read through.
	other := errors.New("injected: flock failed")
	filestore.SetAcquireHook(func(context.Context, *os.Root, string, time.Duration) (*lockfile.Lock, error) { return nil, other })
	data, v, err = filestore.New(path, nil).Load(ctx)
	require.ErrorIs(t, err, other)
	assert.Nil(t, data)
	assert.Empty(t, v)

	// Writes never fall back: a Save that cannot lock fails and leaves the file.
	filestore.SetAcquireHook(func(_ context.Context, _ *os.Root, lockPath string, _ time.Duration) (*lockfile.Lock, error) {
		return nil, &fs.PathError{Op: "open", Path: lockPath, Err: syscall.EACCES}
	})
	_, err = filestore.New(path, nil).Save(ctx, []byte("lost\n"), "")
	require.ErrorIs(t, err, fs.ErrPermission)
	got, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, "# Memories\n\n", string(got))
}

func TestRelativeSymlinkChain(t *testing.T) {
	ctx := context.Background()
	primary, wt := worktreeLayout(t)
	require.NoError(t, os.MkdirAll(filepath.Join(primary, ".agent"), 0o755))
	require.NoError(t, os.MkdirAll(filepath.Join(wt, ".agent"), 0o755))
	// wt/.agent/memories.md -> ../../repo/hop.md -> .agent/memories.md (missing yet)
	require.NoError(t, os.Symlink(".agent/memories.md", filepath.Join(primary, "hop.md")))
	require.NoError(t, os.Symlink("../../repo/hop.md", filepath.Join(wt, ".agent", "memories.md")))

	s := filestore.New(filepath.Join(wt, ".agent", "memories.md"), nil)
	resolved, err := s.Resolve()
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(primary, ".agent", "memories.md"), resolved)

	v, err := s.Save(ctx, []byte("one\n"), "")
	require.NoError(t, err)
	_, err = s.Save(ctx, []byte("two\n"), v)
	require.NoError(t, err)
	for _, link := range []string{filepath.Join(primary, "hop.md"), filepath.Join(wt, ".agent", "memories.md")} {
		fi, err := os.Lstat(link)
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode()&os.ModeSymlink, "%s is still a link", link)
	}
	data, err := os.ReadFile(filepath.Join(primary, ".agent", "memories.md"))
	require.NoError(t, err)
	assert.Equal(t, "two\n", string(data))
}

// A read-only file system fails the lock file with EROFS, not a permission
// error; it reads like a read-only directory, and writes still fail.
func TestLoadReadOnlyFileSystem(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	require.NoError(t, os.WriteFile(path, []byte("# Memories\n\n"), 0o644))
	filestore.SetAcquireHook(func(_ context.Context, _ *os.Root, lockPath string, _ time.Duration) (*lockfile.Lock, error) {
		return nil, fmt.Errorf("lockfile: open lock file: %w", &fs.PathError{Op: "open", Path: lockPath, Err: syscall.EROFS})
	})
	t.Cleanup(func() { filestore.SetAcquireHook(nil) })

	data, v, err := filestore.New(path, nil).Load(ctx)
	require.NoError(t, err, "a read-only file system can still be read")
	assert.Equal(t, "# Memories\n\n", string(data))
	assert.NotEmpty(t, v)
	_, _, err = filestore.New(path, nil).Append(ctx, nil, []byte("x\n"))
	require.ErrorIs(t, err, syscall.EROFS)
}

// A memories.md that is a directory is unreadable: Load says so with
// memories.ErrUnreadable, the Manager's reads see no memories and log a
// warning, and its writes report the error and change nothing.
func TestUnreadableFileReadsAsEmpty(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), ".agent")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "memories.md"), 0o755))
	s := filestore.New(filepath.Join(dir, "memories.md"), nil)
	_, _, err := s.Load(ctx)
	require.ErrorIs(t, err, memories.ErrUnreadable)
	var ue *filestore.UnreadableError
	require.ErrorAs(t, err, &ue)
	assert.Contains(t, err.Error(), "not a regular file (a directory)")

	var logs strings.Builder
	m, err := memories.New(s, &memories.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	found, err := m.Search(ctx, "x")
	require.NoError(t, err)
	assert.Empty(t, found)
	inj, err := m.InjectionContent(ctx)
	require.NoError(t, err)
	assert.Empty(t, inj)
	_, err = m.Get(ctx, "mem-1-a")
	require.ErrorIs(t, err, memories.ErrNotFound)
	assert.Contains(t, logs.String(), "level=WARN")
	assert.Contains(t, logs.String(), "not a regular file")

	_, err = m.Add(ctx, "lost?")
	require.Error(t, err, "a write reports the file it cannot use")
	err = m.Delete(ctx, "mem-1-a")
	require.ErrorIs(t, err, memories.ErrUnreadable)
	fi, err := os.Stat(filepath.Join(dir, "memories.md"))
	require.NoError(t, err)
	assert.True(t, fi.IsDir(), "nothing changed")
}

// Through the file store too, a memory added to a file in
// ralph-orchestrator's format goes into its section in ralph's format.
func TestAddToRalphFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	const ralph = "# Memories\n\n## Patterns\n\n## Decisions\n\n## Fixes\n\n## Context\n"
	require.NoError(t, os.WriteFile(path, []byte(ralph), 0o644))
	m, err := memories.New(filestore.New(path, nil), nil)
	require.NoError(t, err)
	mem, err := m.Add(ctx, "Run compose first", "fix", "docker")
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(ralph, "## Fixes\n", "## Fixes\n\n### "+mem.ID+"\n> Run compose first\n<!-- tags: docker | created: "+mem.Date+" -->\n", 1), string(data))
	got, err := m.Get(ctx, mem.ID)
	require.NoError(t, err)
	assert.Equal(t, mem, got)
}

// A memories.md without read permission reads as no memories too (the
// denial is injected where opening reports it: root ignores permissions).
func TestPermissionDeniedReadsAsEmpty(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	require.NoError(t, os.WriteFile(path, []byte("# Memories\n\n## a\n- Content: a\n"), 0o644))
	filestore.SetOpenHook(func(_ *os.Root, name string) (*os.File, error) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: syscall.EACCES}
	})
	t.Cleanup(func() { filestore.SetOpenHook(nil) })
	var logs strings.Builder
	m, err := memories.New(filestore.New(path, nil), &memories.Options{Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	require.NoError(t, err)
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	assert.Contains(t, logs.String(), "permission denied")
	_, err = m.Add(ctx, "x")
	require.ErrorIs(t, err, memories.ErrUnreadable, "Add reads the start of the file first and reports it")
	assert.ErrorIs(t, m.Delete(ctx, "mem-1-a"), memories.ErrUnreadable)
}

// A Manager skips reading a file whose Version it has indexed, so an edit
// by another program must change the Version: the next search sees it.
func TestHandEditIsSeenBySearch(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	s := filestore.New(path, nil)
	m, err := memories.New(s, nil)
	require.NoError(t, err)
	_, err = m.Add(ctx, "Use pgx for PostgreSQL")
	require.NoError(t, err)
	res, err := m.Find(ctx, memories.SearchRequest{Query: "sqlite"})
	require.NoError(t, err)
	require.Zero(t, res.Total)
	before, err := s.Version(ctx)
	require.NoError(t, err)

	data, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, append(data, "## Use SQLite in tests\n- Content: Use SQLite in tests\n\n"...), 0o644))
	after, err := s.Version(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, before, after)
	res, err = m.Find(ctx, memories.SearchRequest{Query: "sqlite"})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Total, "the hand-written memory is found")
}
