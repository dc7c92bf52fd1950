package main

import (
	"context"
	"io"

	"github.com/spf13/cobra"

	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
	"github.com/mnemobank/mnemobank/scrub"
)

// scrubFlags are scrub's flags, declared by newScrubCmd.
type scrubFlags struct {
	where       *storeConfig
	yes, dryRun *bool
}

func newScrubCmd() *cobra.Command {
	var f scrubFlags
	c := newCommand("scrub", "find credentials stored in the bank and redact them", trust.ScrubUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runScrub(ctx, f, args, stdin, stdout, stderr)
	})
	c.Args = noArgs
	fs := c.Flags()
	f.where = storeFlags(fs)
	f.yes = fs.Bool("yes", false, "remove without asking")
	f.dryRun = fs.Bool("dry-run", false, "only list what would be removed")
	return c
}

// runScrub is "mnemobank scrub": the store flags, then trust.Scrub.
func runScrub(ctx context.Context, f scrubFlags, _ []string, stdin io.Reader, stdout, stderr io.Writer) error {
	where, yes, dryRun := f.where, f.yes, f.dryRun
	side, err := openSide(ctx, *where)
	if err != nil {
		return err
	}
	defer side.close()
	src := scrub.Source{Store: side.bank.Store(), Memories: []scrub.NamedMemories{{Name: "memories", Store: side.mem.File}, {Name: "memories trash", Store: side.mem.Trash}}}
	return trust.Scrub(ctx, src, *yes, *dryRun, stdin, stdout)
}
