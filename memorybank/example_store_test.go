package memorybank_test

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Two agents read the same document; the first compare-and-swap wins and
// the second gets ErrConflict instead of silently overwriting it.
func ExampleMemStore() {
	ctx := context.Background()
	var store memorybank.MemStore // the zero value is ready to use

	first, _ := store.Put(ctx, "global-memory-bank/progress.md", []byte("- started\n"), memorybank.Condition{IfAbsent: true})

	// Agent A and agent B both read version first.Version.
	_, errA := store.Put(ctx, first.Key, []byte("- started\n- A: parser done\n"), memorybank.Condition{IfVersion: first.Version})
	_, errB := store.Put(ctx, first.Key, []byte("- started\n- B: tests done\n"), memorybank.Condition{IfVersion: first.Version})
	fmt.Println("A:", errA)
	fmt.Println("B conflict:", errors.Is(errB, memorybank.ErrConflict))

	// B reads again and retries on the current version.
	cur, _ := store.Get(ctx, first.Key)
	_, errB = store.Put(ctx, cur.Key, append(cur.Data, "- B: tests done\n"...), memorybank.Condition{IfVersion: cur.Version})
	fmt.Println("B retry:", errB)

	final, _ := store.Get(ctx, first.Key)
	fmt.Print(string(final.Data))

	for obj, err := range store.List(ctx, "global-memory-bank/") {
		if err != nil {
			fmt.Println(err)
			break
		}
		fmt.Println("listed:", obj.Key)
	}
	// Output:
	// A: <nil>
	// B conflict: true
	// B retry: <nil>
	// - started
	// - A: parser done
	// - B: tests done
	// listed: global-memory-bank/progress.md
}

func ExampleValidateKey() {
	for _, key := range []string{"branch-memory-bank/main/activeContext.md", "../secrets", "notes/CON.md"} {
		fmt.Println(memorybank.ValidateKey(key))
	}
	// Output:
	// <nil>
	// memorybank: invalid key "../secrets": segment ".." is not allowed; a key is a relative slash-separated path such as "global-memory-bank/notes.md"
	// memorybank: invalid key "notes/CON.md": segment "CON.md" is a reserved device name on Windows (CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0-9, LPT0-9, with or without an extension); a key is a relative slash-separated path such as "global-memory-bank/notes.md"
}
