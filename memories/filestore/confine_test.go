package filestore_test

import (
	"context"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

// worktreeLayout builds, by hand, what `git worktree add` leaves on disk
// (gitrepository-layout(5)): <primary>/.git/ with a worktrees/<name> entry
// whose gitdir file names <wt>/.git, and <wt>/.git, a file naming that
// entry. TestGitWorktreeTwoProcesses checks the same with a real git.
func worktreeLayout(t *testing.T) (primary, wt string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	primary, wt = filepath.Join(base, "repo"), filepath.Join(base, "repo-wt")
	admin := filepath.Join(primary, ".git", "worktrees", "repo-wt")
	require.NoError(t, os.MkdirAll(admin, 0o755))
	require.NoError(t, os.Mkdir(wt, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(primary, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(admin, "HEAD"), []byte("ref: refs/heads/loop-1\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(wt, ".git")+"\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(wt, ".git"), []byte("gitdir: "+admin+"\n"), 0o644))
	return primary, wt
}

// storeOps runs every operation of a Store and returns their errors.
func storeOps(s *filestore.Store) map[string]error {
	ctx := context.Background()
	errs := map[string]error{}
	_, _, errs["load"] = s.Load(ctx)
	_, errs["save"] = s.Save(ctx, []byte("# Memories\n\nsaved\n"), "")
	_, _, errs["append"] = s.Append(ctx, []byte(memories.Header), []byte("## x\n- Content: appended\n\n"))
	_, errs["size"] = s.Size(ctx)
	_, errs["peek"] = s.Peek(ctx, 10)
	_, errs["resolve"] = s.Resolve()
	return errs
}

// A memories file (or its directory, or its lock file) that is a link
// leading outside the store's directory and the primary worktree is
// refused by every operation with *OutsideError, and nothing outside is
// created, read or written.
func TestLinksOutsideAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, agent, outside string)
	}{
		{"file link to a file elsewhere", func(t *testing.T, agent, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, ".bashrc"), filepath.Join(agent, "memories.md")))
		}},
		{"relative file link climbing out", func(t *testing.T, agent, outside string) {
			rel, err := filepath.Rel(agent, filepath.Join(outside, ".bashrc"))
			require.NoError(t, err)
			require.NoError(t, os.Symlink(rel, filepath.Join(agent, "memories.md")))
		}},
		{"dangling link into missing directories", func(t *testing.T, agent, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "new", "deeper", "memories.md"), filepath.Join(agent, "memories.md")))
		}},
		{"link to a link elsewhere", func(t *testing.T, agent, outside string) {
			require.NoError(t, os.Symlink(filepath.Join(outside, "hop"), filepath.Join(agent, "memories.md")))
			require.NoError(t, os.Symlink(filepath.Join(outside, ".bashrc"), filepath.Join(outside, "hop")))
		}},
		{"link through a directory link", func(t *testing.T, agent, outside string) {
			require.NoError(t, os.Symlink(outside, filepath.Join(agent, "sub")))
			require.NoError(t, os.Symlink("sub/.bashrc", filepath.Join(agent, "memories.md")))
		}},
		{"lock file link", func(t *testing.T, agent, outside string) {
			require.NoError(t, os.WriteFile(filepath.Join(agent, "memories.md"), []byte("# Memories\n\n"), 0o644))
			require.NoError(t, os.Symlink(filepath.Join(outside, ".bashrc"), filepath.Join(agent, "memories.md.lock")))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			agent, outside := filepath.Join(base, "repo", ".agent"), filepath.Join(base, "home")
			require.NoError(t, os.MkdirAll(agent, 0o755))
			require.NoError(t, os.Mkdir(outside, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(outside, ".bashrc"), []byte("export PATH=/usr/bin\n"), 0o644))
			tc.setup(t, agent, outside)
			before := snapshot(t, outside)

			for op, err := range storeOps(filestore.New(filepath.Join(agent, "memories.md"), nil)) {
				if tc.name == "lock file link" && (op == "size" || op == "resolve" || op == "peek") {
					continue // neither touches the lock
				}
				require.ErrorIs(t, err, filestore.ErrOutside, op)
				var oe *filestore.OutsideError
				require.ErrorAs(t, err, &oe, op)
				assert.Contains(t, err.Error(), "nothing was read, created or written", op)
			}
			assert.Equal(t, before, snapshot(t, outside), "nothing outside was created, read into memories or written")
		})
	}
}

// The directory the store is opened on may itself be a link that a
// repository ships (".agent -> ~"): that is leaving it too.
func TestAgentDirectoryLinkOutsideIsRefused(t *testing.T) {
	base := t.TempDir()
	repo, outside := filepath.Join(base, "repo"), filepath.Join(base, "home")
	require.NoError(t, os.Mkdir(repo, 0o755))
	require.NoError(t, os.Mkdir(outside, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(outside, "memories.md"), []byte("# Memories\n\n## private\n- Content: secret\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(repo, ".agent")))
	before := snapshot(t, outside)
	for op, err := range storeOps(filestore.New(filepath.Join(repo, ".agent", "memories.md"), nil)) {
		require.ErrorIs(t, err, filestore.ErrOutside, op)
	}
	assert.Equal(t, before, snapshot(t, outside))
}

// Links inside the store's directory, and links from a linked worktree into
// its primary worktree, are followed; the file is written where they lead.
func TestLinksInsideAreFollowed(t *testing.T) {
	ctx := context.Background()
	t.Run("inside the directory", func(t *testing.T) {
		agent := filepath.Join(t.TempDir(), ".agent")
		require.NoError(t, os.MkdirAll(filepath.Join(agent, "notes"), 0o755))
		require.NoError(t, os.Symlink("notes/memories.md", filepath.Join(agent, "memories.md")))
		s := filestore.New(filepath.Join(agent, "memories.md"), nil)
		_, _, err := s.Append(ctx, []byte(memories.Header), []byte("## a\n- Content: a\n\n"))
		require.NoError(t, err)
		data, err := os.ReadFile(filepath.Join(agent, "notes", "memories.md"))
		require.NoError(t, err)
		assert.Equal(t, memories.Header+"## a\n- Content: a\n\n", string(data))
	})
	t.Run("into the primary worktree, through a hop in it", func(t *testing.T) {
		primary, wt := worktreeLayout(t)
		require.NoError(t, os.MkdirAll(filepath.Join(primary, ".agent"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(wt, ".agent"), 0o755))
		require.NoError(t, os.Symlink(".agent/memories.md", filepath.Join(primary, "hop.md")))
		require.NoError(t, os.Symlink(filepath.Join(primary, "hop.md"), filepath.Join(wt, ".agent", "memories.md")))
		s := filestore.New(filepath.Join(wt, ".agent", "memories.md"), nil)
		v, err := s.Save(ctx, []byte("one\n"), "")
		require.NoError(t, err, "a dangling link into an existing directory of the primary creates the file")
		_, err = s.Save(ctx, []byte("two\n"), v)
		require.NoError(t, err)
		data, err := os.ReadFile(filepath.Join(primary, ".agent", "memories.md"))
		require.NoError(t, err)
		assert.Equal(t, "two\n", string(data))
	})
}

// The primary worktree is a worktree only if git says so: the repository's
// record of the linked worktree must point back at it. A ".git" file that
// merely claims a repository, and links into the primary's .git directory,
// are refused.
func TestPrimaryWorktreeIsVerified(t *testing.T) {
	for _, tc := range []struct {
		name   string
		target func(primary string) string
		setup  func(t *testing.T, primary, wt string)
	}{
		{"back-link missing", func(p string) string { return filepath.Join(p, ".agent", "memories.md") },
			func(t *testing.T, primary, wt string) {
				require.NoError(t, os.Remove(filepath.Join(primary, ".git", "worktrees", "repo-wt", "gitdir")))
			}},
		{"back-link to another worktree", func(p string) string { return filepath.Join(p, ".agent", "memories.md") },
			func(t *testing.T, primary, wt string) {
				require.NoError(t, os.WriteFile(filepath.Join(primary, ".git", "worktrees", "repo-wt", "gitdir"), []byte("/elsewhere/.git\n"), 0o644))
			}},
		{"into the primary's .git directory", func(p string) string { return filepath.Join(p, ".git", "config") },
			func(t *testing.T, primary, wt string) {}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			primary, wt := worktreeLayout(t)
			require.NoError(t, os.MkdirAll(filepath.Join(primary, ".agent"), 0o755))
			require.NoError(t, os.MkdirAll(filepath.Join(wt, ".agent"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(primary, ".git", "config"), []byte("[core]\n"), 0o644))
			tc.setup(t, primary, wt)
			require.NoError(t, os.Symlink(tc.target(primary), filepath.Join(wt, ".agent", "memories.md")))
			before := snapshot(t, primary)
			for op, err := range storeOps(filestore.New(filepath.Join(wt, ".agent", "memories.md"), nil)) {
				require.ErrorIs(t, err, filestore.ErrOutside, op)
			}
			assert.Equal(t, before, snapshot(t, primary))
		})
	}
}

// Only a linked worktree's store may follow a link into its primary. In a
// primary checkout (or any directory below a .git directory, such as a
// home directory kept in git) a link may only stay in the store's own
// directory.
func TestPrimaryCheckoutLinksStayInTheDirectory(t *testing.T) {
	primary, _ := worktreeLayout(t)
	home := filepath.Join(primary, "Downloads", "project")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".agent"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(primary, ".bashrc"), []byte("export PATH=/usr/bin\n"), 0o644))
	require.NoError(t, os.Symlink(filepath.Join(primary, ".bashrc"), filepath.Join(home, ".agent", "memories.md")))
	before := snapshot(t, primary)
	for op, err := range storeOps(filestore.New(filepath.Join(home, ".agent", "memories.md"), nil)) {
		require.ErrorIs(t, err, filestore.ErrOutside, op)
	}
	assert.Equal(t, before, snapshot(t, primary))
}

// A Store creates at most its own directory, never a tree of missing
// parents (a typo in --dir must not create directories all over the disk).
func TestStoreCreatesOnlyItsOwnDirectory(t *testing.T) {
	ctx := context.Background()
	base := t.TempDir()
	s := filestore.New(filepath.Join(base, "typo", "deeper", ".agent", "memories.md"), nil)
	_, _, err := s.Append(ctx, []byte(memories.Header), []byte("## a\n- Content: a\n\n"))
	require.ErrorIs(t, err, fs.ErrNotExist)
	_, err = os.Stat(filepath.Join(base, "typo"))
	assert.ErrorIs(t, err, fs.ErrNotExist, "no parent was created")
	data, v, err := s.Load(ctx)
	require.NoError(t, err, "reading a missing directory is reading no memories")
	assert.Nil(t, data)
	assert.Empty(t, v)

	s = filestore.New(filepath.Join(base, ".agent", "memories.md"), nil)
	_, _, err = s.Append(ctx, []byte(memories.Header), []byte("## a\n- Content: a\n\n"))
	require.NoError(t, err, "the store's own directory is created")
	_, err = os.Stat(filepath.Join(base, ".agent", "memories.md"))
	require.NoError(t, err)
}

func TestLinkWorktreeChecksAndCreatesOnlyAgentDirs(t *testing.T) {
	t.Run("not a worktree of the primary's repository", func(t *testing.T) {
		primary, other := t.TempDir(), t.TempDir()
		before := snapshot(t, primary, other)
		err := filestore.LinkWorktree(primary, other)
		require.ErrorIs(t, err, filestore.ErrNotWorktree)
		var we *filestore.WorktreeError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, before, snapshot(t, primary, other), "nothing created")
	})
	t.Run("missing primary directory", func(t *testing.T) {
		primary, wt := worktreeLayout(t)
		require.NoError(t, os.RemoveAll(primary))
		err := filestore.LinkWorktree(primary, wt)
		require.ErrorIs(t, err, fs.ErrNotExist)
		_, err = os.Stat(primary)
		assert.ErrorIs(t, err, fs.ErrNotExist, "no tree of parents created")
	})
	t.Run("creates the two .agent directories", func(t *testing.T) {
		primary, wt := worktreeLayout(t)
		require.NoError(t, filestore.LinkWorktree(primary, wt))
		dest, err := os.Readlink(filepath.Join(wt, ".agent", "memories.md"))
		require.NoError(t, err)
		assert.Equal(t, filepath.Join(primary, ".agent", "memories.md"), dest)
	})
}

// A project can ship a ".git" file and a whole worktree record of its own:
// git's records are believed only in the primary repository's .git
// directory, never in files of the project. Here a home directory is kept
// in git (dotfiles), and a project below it forges a linked worktree whose
// primary would be the home directory, so that .agent/memories.md could
// lead to ~/.bashrc. Every operation is refused and ~/.bashrc is untouched.
func TestForgedWorktreeRecordsAreRefused(t *testing.T) {
	for _, tc := range []struct {
		name  string
		forge func(t *testing.T, home, project string)
	}{
		{"record inside the project, commondir naming the home's .git", func(t *testing.T, home, project string) {
			admin := filepath.Join(project, "admin")
			require.NoError(t, os.Mkdir(admin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: admin\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte(filepath.Join(home, ".git")+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(project, ".git")+"\n"), 0o644))
		}},
		{"relative commondir", func(t *testing.T, home, project string) {
			admin := filepath.Join(project, "admin")
			require.NoError(t, os.Mkdir(admin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: admin\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte("../../../.git\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte("../.git\n"), 0o644))
		}},
		{"record shaped like git's, in a .git directory the project ships", func(t *testing.T, home, project string) {
			admin := filepath.Join(project, "vendor", ".git", "worktrees", "x")
			require.NoError(t, os.MkdirAll(admin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: "+admin+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte(filepath.Join(home, ".git")+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(project, ".git")+"\n"), 0o644))
		}},
		{"a real record's name, in a worktrees directory the project ships", func(t *testing.T, home, project string) {
			admin := filepath.Join(project, "worktrees", "x")
			require.NoError(t, os.MkdirAll(admin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(project, ".git"), []byte("gitdir: "+admin+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "commondir"), []byte(filepath.Join(home, ".git")+"\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(admin, "gitdir"), []byte(filepath.Join(project, ".git")+"\n"), 0o644))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			require.NoError(t, os.MkdirAll(filepath.Join(home, ".git", "worktrees"), 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(home, ".git", "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(home, ".bashrc"), []byte("export PATH=/usr/bin\n"), 0o644))
			project := filepath.Join(home, "src", "project")
			require.NoError(t, os.MkdirAll(filepath.Join(project, ".agent"), 0o755))
			tc.forge(t, home, project)
			require.NoError(t, os.Symlink("../../../.bashrc", filepath.Join(project, ".agent", "memories.md")))
			before := snapshot(t, home)
			for op, err := range storeOps(filestore.New(filepath.Join(project, ".agent", "memories.md"), nil)) {
				require.ErrorIs(t, err, filestore.ErrOutside, op)
			}
			assert.Equal(t, before, snapshot(t, home))
			err = filestore.LinkWorktree(home, project)
			require.ErrorIs(t, err, filestore.ErrNotWorktree)
		})
	}
}
