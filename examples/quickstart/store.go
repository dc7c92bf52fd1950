package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// tourStore shows the Store contract: compare-and-swap turns a silent lost
// update into ErrConflict, on the in-memory default and on a directory.
func tourStore(ctx context.Context, w io.Writer) error {
	var mem memorybank.MemStore // the zero value is ready
	fmt.Fprintln(w, "MemStore: two agents read progress.md, both try to append to it.")
	if err := casDemo(ctx, w, &mem); err != nil {
		return err
	}

	err := memorybank.ValidateKey("../../etc/passwd")
	fmt.Fprintf(w, "Keys are checked before any I/O:\n  %v\n", err)

	dir, err := os.MkdirTemp("", "mnemobank-quickstart-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	disk, err := fsstore.Open(dir, nil)
	if err != nil {
		return err
	}
	defer disk.Close()
	fmt.Fprintln(w, "fsstore: the same on a directory (temporary, removed afterwards); one file per key,")
	fmt.Fprintln(w, "crash-safe writes, and a file lock so the check holds across processes too.")
	if err := casDemo(ctx, w, disk); err != nil {
		return err
	}
	for obj, err := range disk.List(ctx, "") {
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "  file on disk: <dir>/%s\n", obj.Key)
	}
	return nil
}

func casDemo(ctx context.Context, w io.Writer, s memorybank.Store) error {
	const key = "global-memory-bank/progress.md"
	if _, err := s.Put(ctx, key, []byte("- started\n"), memorybank.Condition{IfAbsent: true}); err != nil {
		return err
	}
	a, err := s.Get(ctx, key)
	if err != nil {
		return err
	}
	b := a // agent B read the same version
	_, err = s.Put(ctx, key, []byte(string(a.Data)+"- A: parser done\n"), memorybank.Condition{IfVersion: a.Version})
	fmt.Fprintf(w, "  A writes on the version it read: err=%v\n", err)
	if err != nil {
		return err
	}
	_, err = s.Put(ctx, key, []byte(string(b.Data)+"- B: tests done\n"), memorybank.Condition{IfVersion: b.Version})
	fmt.Fprintf(w, "  B writes on the same, now stale, version: ErrConflict=%v\n", errors.Is(err, memorybank.ErrConflict))
	if err == nil {
		return errors.New("stale write was accepted")
	}
	cur, err := s.Get(ctx, key)
	if err != nil {
		return err
	}
	_, err = s.Put(ctx, key, []byte(string(cur.Data)+"- B: tests done\n"), memorybank.Condition{IfVersion: cur.Version})
	fmt.Fprintf(w, "  B reads again and retries: err=%v\n", err)
	if err != nil {
		return err
	}
	final, err := s.Get(ctx, key)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  progress.md now: %q (nothing lost)\n", strings.TrimSpace(string(final.Data)))
	return nil
}
