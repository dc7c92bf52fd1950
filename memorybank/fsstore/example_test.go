package fsstore_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

func Example() {
	dir, err := os.MkdirTemp("", "fsstore-example-")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)

	store, err := fsstore.Open(dir, nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer store.Close()
	ctx := context.Background()

	// Keys are files under dir.
	obj, err := store.Put(ctx, "global-memory-bank/progress.md", []byte("- started\n"), memorybank.Condition{IfAbsent: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	data, _ := os.ReadFile(filepath.Join(dir, "global-memory-bank", "progress.md"))
	fmt.Printf("on disk: %q\n", data)

	// A compare-and-swap on a stale version fails, whichever process made
	// the version stale.
	_, _ = store.Put(ctx, obj.Key, []byte("- started\n- done\n"), memorybank.Condition{IfVersion: obj.Version})
	_, err = store.Put(ctx, obj.Key, []byte("- lost update\n"), memorybank.Condition{IfVersion: obj.Version})
	fmt.Println("stale write:", errors.Is(err, memorybank.ErrConflict))

	// Files that are not keys, such as a path outside the directory, are refused.
	_, err = store.Get(ctx, "../outside.md")
	fmt.Println("escape:", errors.Is(err, memorybank.ErrInvalidKey))

	for obj, err := range store.List(ctx, "") {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println("listed:", obj.Key)
	}
	// Output:
	// on disk: "- started\n"
	// stale write: true
	// escape: true
	// listed: global-memory-bank/progress.md
}
