package filestore_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

func ExampleLinkWorktree() {
	ctx := context.Background()
	base, _ := os.MkdirTemp("", "memories-example")
	defer os.RemoveAll(base)
	primary, worktree := filepath.Join(base, "app"), filepath.Join(base, "app-loop-1")

	// A repository and a linked worktree of it, as an agent loop makes them.
	_ = os.Mkdir(primary, 0o755)
	for _, args := range [][]string{
		{"init", "-q"},
		{"-c", "user.name=a", "-c", "user.email=a@example.com", "-c", "commit.gpgsign=false", "commit", "-q", "--allow-empty", "-m", "init"},
		{"worktree", "add", "-q", "-b", "loop-1", worktree},
	} {
		cmd := exec.Command("git", args...)
		cmd.Dir = primary
		if out, err := cmd.CombinedOutput(); err != nil {
			panic(fmt.Sprint(err, string(out)))
		}
	}

	// The worktree's .agent/memories.md becomes a link to the primary's file.
	if err := filestore.LinkWorktree(primary, worktree); err != nil {
		panic(err)
	}
	inWorktree, _ := memories.New(filestore.New(filepath.Join(worktree, ".agent", filestore.FileName), nil), nil)
	inPrimary, _ := memories.New(filestore.New(filepath.Join(primary, ".agent", filestore.FileName), nil), nil)

	mem, _ := inWorktree.Add(ctx, "Learned in the worktree")
	got, _ := inPrimary.Get(ctx, mem.ID)
	fmt.Println(got.Content)

	fi, _ := os.Lstat(filepath.Join(worktree, ".agent", filestore.FileName))
	fmt.Println(fi.Mode()&os.ModeSymlink != 0)
	// Output:
	// Learned in the worktree
	// true
}
