//go:build unix

package filestore_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

// The tests below re-run this test binary as a child process that executes
// TestHelperProcess with its job in the environment.
const (
	envJob  = "MEMORIES_FILESTORE_HELPER"
	envPath = "MEMORIES_FILESTORE_PATH"
	envTag  = "MEMORIES_FILESTORE_TAG"
	envN    = "MEMORIES_FILESTORE_N"
)

func TestHelperProcess(t *testing.T) {
	job := os.Getenv(envJob)
	if job == "" {
		return // not a child: nothing to do
	}
	ctx := context.Background()
	m, err := memories.New(filestore.New(os.Getenv(envPath), nil), nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(3)
	}
	tag := os.Getenv(envTag)
	n, _ := strconv.Atoi(os.Getenv(envN))
	switch job {
	case "add":
		for i := range n {
			if _, err := m.Add(ctx, fmt.Sprintf("%s memory %d", tag, i), tag); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
	case "tornkill":
		// Add n entries, then die with SIGKILL halfway through the write of
		// the next: the on-disk tail is torn, as a kill inside write(2) leaves it.
		filestore.SetWriteHook(func(f *os.File, b []byte, off int64) (int, error) {
			if n == 0 {
				f.WriteAt(b[:len(b)/2], off)
				syscall.Kill(os.Getpid(), syscall.SIGKILL)
				select {}
			}
			n--
			return f.WriteAt(b, off)
		})
		for i := 0; ; i++ {
			if _, err := m.Add(ctx, churnContent(i), "churn"); err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
		}
	case "churn":
		// Add big entries (so a write spans many pages and a kill can land
		// inside it) and delete every third one (atomic rewrites), forever;
		// report progress on stdout so the parent knows when to kill.
		for i := 0; ; i++ {
			mem, err := m.Add(ctx, churnContent(i), "churn")
			if err != nil {
				fmt.Fprintln(os.Stderr, err)
				os.Exit(3)
			}
			if i%3 == 0 {
				if err := m.Delete(ctx, mem.ID); err != nil {
					fmt.Fprintln(os.Stderr, err)
					os.Exit(3)
				}
			}
			fmt.Println(i)
		}
	}
	os.Exit(0)
}

func churnContent(i int) string {
	return fmt.Sprintf("churn %d\n%s", i, strings.Repeat(fmt.Sprintf("line of entry %d\n", i), 4000))
}

func helper(t *testing.T, job, path, tag string, n int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), envJob+"="+job, envPath+"="+path, envTag+"="+tag, envN+"="+strconv.Itoa(n))
	cmd.Stderr = os.Stderr
	return cmd
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_SYSTEM=/dev/null",
		"GIT_AUTHOR_NAME=t", "GIT_AUTHOR_EMAIL=t@example.com", "GIT_COMMITTER_NAME=t", "GIT_COMMITTER_EMAIL=t@example.com")
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "git %v: %s", args, out)
}

// Two OS processes, one in the primary checkout and one in a real git
// worktree, each add 200 memories through their own .agent/memories.md (the
// worktree's is the symlink): all 400 end up in the one file.
func TestGitWorktreeTwoProcesses(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed; this test needs a real `git worktree add`")
	}
	base := t.TempDir()
	primary, wt := filepath.Join(base, "repo"), filepath.Join(base, "repo-wt")
	require.NoError(t, os.Mkdir(primary, 0o755))
	git(t, primary, "init", "-q")
	git(t, primary, "commit", "-q", "--allow-empty", "-m", "init")
	git(t, primary, "worktree", "add", "-q", "-b", "loop-1", wt)
	require.NoError(t, filestore.LinkWorktree(primary, wt))

	const n = 200
	var cmds []*exec.Cmd
	for i, dir := range []string{primary, wt} {
		cmd := helper(t, "add", filepath.Join(dir, ".agent", "memories.md"), fmt.Sprint("p", i), n)
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Wait())
	}

	fi, err := os.Lstat(filepath.Join(wt, ".agent", "memories.md"))
	require.NoError(t, err)
	require.NotZero(t, fi.Mode()&os.ModeSymlink, "the worktree's file is still the link")
	m, err := memories.New(filestore.New(filepath.Join(wt, ".agent", "memories.md"), nil), nil)
	require.NoError(t, err)
	list, err := m.List(context.Background())
	require.NoError(t, err)
	require.Len(t, list, 2*n)
	seen := map[string]bool{}
	for _, mem := range list {
		seen[mem.Content] = true
	}
	for p := range 2 {
		for i := range n {
			assert.True(t, seen[fmt.Sprintf("p%d memory %d", p, i)], "p%d memory %d", p, i)
		}
	}
}

// A process killed with SIGKILL in the middle of appends and rewrites never
// leaves a torn file: what the next reader sees is exactly the header plus
// whole entries, each as it was written.
func TestSIGKILLNeverTears(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memories.md")
	for round := range 4 {
		cmd := helper(t, "churn", path, "", 0)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		lines := bufio.NewScanner(out)
		for range 3 + round*2 { // let it get going, then kill it mid-flight
			require.True(t, lines.Scan(), "child stopped early")
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()

		data, _, err := filestore.New(path, nil).Load(context.Background())
		require.NoError(t, err)
		doc := memories.Parse(data)
		want := memories.Header
		for _, mem := range doc.Memories() {
			var i int
			_, err := fmt.Sscanf(mem.Content, "churn %d\n", &i)
			require.NoError(t, err, "round %d: entry %s", round, mem.ID)
			require.Equal(t, memories.NormalizeContent(churnContent(i)), mem.Content, "round %d: entry %d is whole", round, i)
			entry, err := memories.EncodeEntry(mem)
			require.NoError(t, err)
			want += string(entry)
		}
		require.Equal(t, want, string(data), "round %d: the file is the header and whole entries, nothing else", round)
	}
}

// A kill halfway through an append's write leaves a torn tail on disk; the
// next operation through any Store cuts it off before anyone reads it.
func TestSIGKILLHalfwayThroughAppend(t *testing.T) {
	path := filepath.Join(t.TempDir(), "memories.md")
	cmd := helper(t, "tornkill", path, "", 5)
	err := cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, syscall.SIGKILL, ee.Sys().(syscall.WaitStatus).Signal(), "the child died of SIGKILL")

	raw, err := os.ReadFile(path)
	require.NoError(t, err)
	clean := memories.Header
	for i := range 5 {
		entry, err := memories.EncodeEntry(memories.Parse(raw).Memories()[i])
		require.NoError(t, err)
		clean += string(entry)
	}
	require.Greater(t, len(raw), len(clean), "precondition: the kill left a torn tail on disk")

	data, _, err := filestore.New(path, nil).Load(context.Background())
	require.NoError(t, err)
	assert.Equal(t, clean, string(data), "the torn tail is gone, the 5 whole entries stay")
	again, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Equal(t, clean, string(again), "and it is gone from disk")
}
