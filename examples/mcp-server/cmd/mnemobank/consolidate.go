package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

const consolidateUsage = `Usage: mnemobank consolidate [--root DIR --memories FILE | --postgres DSN --namespace N] [--merged BRANCH,...] [--stale-days 90] [--apply]

Tidies the memories and the memory bank without an agent. Without --apply
it only shows what it would do (a dry run): each duplicate cluster merged
into its newest text with the union of the tags, as a diff; conflicts,
stale memories and what merged branches could promote to the global bank
are listed for a person to decide (an agent does them with the
consolidation tools). --apply applies the merges, all or nothing: a
memory or document changed meanwhile refuses them. Merged memories go to
the trash (restore them in the viewer, or with restore_memory), merged
documents keep their history (revert_document). --merged names the
branches git reports merged into the default branch
(git branch --merged main).

Flags:
`

// consolidateFlags are consolidate's flags, declared by newConsolidateCmd.
type consolidateFlags struct {
	where     *storeConfig
	apply     *bool
	merged    *string
	staleDays *int
}

func newConsolidateCmd() *cobra.Command {
	var f consolidateFlags
	c := newCommand("consolidate", "merge duplicate memories; list conflicts, stale memories and promotions", consolidateUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runConsolidate(ctx, f, args, stdin, stdout, stderr)
	})
	c.Args = noArgs
	fs := c.Flags()
	f.where = storeFlags(fs)
	f.apply = fs.Bool("apply", false, "apply the merges shown (default: a dry run)")
	f.merged = fs.String("merged", "", "comma-separated branches merged into the default branch")
	f.staleDays = fs.Int("stale-days", 90, "days unused after which a memory is listed as stale")
	return c
}

// runConsolidate is "mnemobank consolidate".
func runConsolidate(ctx context.Context, f consolidateFlags, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
	where, apply, merged, staleDays := f.where, f.apply, f.merged, f.staleDays
	if *staleDays <= 0 || *staleDays > 100000 {
		return fmt.Errorf("%w: --stale-days %d must be between 1 and 100000", errUsage, *staleDays)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := openStores(ctx, *where, logger)
	if err != nil {
		return err
	}
	defer st.close()
	bank := memorybank.New(st.bank, &memorybank.Options{Logger: logger, History: history.New(&history.Options{Logger: logger})})
	mem, err := memories.New(st.mem, &memories.Options{Logger: logger, Trash: st.trash, Usage: st.usage,
		TrashEntries: consolidate.MaxSteps})
	if err != nil {
		return err
	}
	var branches []string
	for b := range strings.SplitSeq(*merged, ",") {
		if b = strings.TrimSpace(b); b != "" {
			if err := memorybank.ValidateBranch(b); err != nil {
				return fmt.Errorf("%w: --merged: %w", errUsage, err)
			}
			branches = append(branches, b)
		}
	}
	c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: mem, Bank: bank}, &consolidate.Options{
		MergedBranches: branches, StaleAfter: time.Duration(*staleDays) * 24 * time.Hour})
	if err != nil {
		return err
	}
	t := consolidate.Targets{Memories: mem, Bank: bank, Actor: "mnemobank consolidate"}
	p := consolidate.DefaultPlan(c)
	fmt.Fprintf(stdout, "%d memories and %d documents read; %d candidates.\n", c.Memories, c.Documents, len(c.Items))
	if p.Empty() {
		fmt.Fprintln(stdout, "No duplicates to merge.")
	} else {
		text, err := consolidate.Describe(ctx, t, p)
		if err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nDuplicates to merge (newest text, union of tags):\n%s", text)
	}
	listOthers(stdout, c)
	switch {
	case p.Empty():
		return nil
	case !*apply:
		fmt.Fprintln(stdout, "\nDry run: nothing was changed. Run again with --apply to merge the duplicates above.")
		return nil
	}
	if _, err := consolidate.Apply(ctx, t, p); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "\nApplied: %d merges. The merged memories are in the trash; the documents keep their history.\n", len(p.Merge))
	return nil
}

// listOthers lists the candidates a person decides on.
func listOthers(w io.Writer, c *consolidate.Candidates) {
	titles := map[consolidate.Kind]string{
		consolidate.KindConflict: "Conflicts (decide which is true; the other can be deleted):",
		consolidate.KindStale:    "Stale (not returned by a search or an injection for long):",
		consolidate.KindPromote:  "To promote from merged branches to the global bank:",
	}
	for _, k := range []consolidate.Kind{consolidate.KindConflict, consolidate.KindStale, consolidate.KindPromote} {
		first := true
		for _, it := range c.Items {
			if it.Kind != k {
				continue
			}
			if first {
				fmt.Fprintf(w, "\n%s\n", titles[k])
				first = false
			}
			var refs []string
			for _, e := range it.Entries {
				refs = append(refs, fmt.Sprintf("%s (%q)", e.Ref, e.Title))
			}
			fmt.Fprintf(w, "  %s: %s\n", strings.Join(refs, " / "), it.Reason)
			if len(it.Differs) == 2 {
				fmt.Fprintf(w, "    only in the first: %s; only in the second: %s\n",
					strings.Join(it.Differs[0], " "), strings.Join(it.Differs[1], " "))
			}
		}
	}
}
