// Command quickstart is a guided tour of mnemobank on its in-memory
// defaults: it needs no set-up, writes nothing to disk and prints each step.
//
//	go run ./examples/quickstart
package main

import (
	"context"
	"fmt"
	"io"
	"os"
)

// A tour is one package's part of the walk-through. Each lives in its own
// file and writes what it does to w.
type tour struct {
	title string
	run   func(ctx context.Context, w io.Writer) error
}

var tours = []tour{
	{"jsonpatch: strict, atomic RFC 6902 patches", tourJSONPatch},
	{"memorybank stores: compare-and-swap, in memory and on disk", tourStore},
	{"memorybank Bank: read_context, validated writes, patches, tag search", tourBank},
	{"memorybank/tools: the agent tools a host serves, lenient with model-written arguments", tourTools},
	{"memorybank/plan and memorymd: budgeted file selection, confirmed write plans, MEMORY.md blocks", tourPlans},
	{"skillgraph: all-or-nothing graph edits from a model's JSON", tourSkillGraph},
	{"memories: learned memories in memories.md, searched and injected", tourMemories},
}

func main() {
	if err := run(context.Background(), os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "quickstart:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, w io.Writer) error {
	for i, t := range tours {
		fmt.Fprintf(w, "\n== %d. %s ==\n", i+1, t.title)
		if err := t.run(ctx, w); err != nil {
			return fmt.Errorf("%s: %w", t.title, err)
		}
	}
	fmt.Fprintln(w, "\nDone.")
	return nil
}
