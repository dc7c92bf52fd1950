package filestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"

	"github.com/agentmemory/agentmemory/memories"
	"github.com/agentmemory/agentmemory/memories/filestore"
)

func ExampleLinkWorktree() {
	ctx := context.Background()
	base, _ := os.MkdirTemp("", "memories-example")
	defer os.RemoveAll(base)
	primary, worktree := filepath.Join(base, "app"), filepath.Join(base, "app-loop-1")

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
