package main

import (
	"context"
	"flag"
	"fmt"
	"io"

	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
	"github.com/mnemobank/mnemobank/scrub"
)

// runScrub is "mnemobank scrub": the store flags, then trust.Scrub.
func runScrub(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mnemobank scrub", flag.ContinueOnError)
	fs.SetOutput(stderr)
	where := storeFlags(fs)
	yes := fs.Bool("yes", false, "remove without asking")
	dryRun := fs.Bool("dry-run", false, "only list what would be removed")
	if err := parseFlags(fs, args, trust.ScrubUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q", errUsage, fs.Arg(0))
	}
	side, err := openSide(ctx, *where)
	if err != nil {
		return err
	}
	defer side.close()
	src := scrub.Source{Store: side.bank.Store(), Memories: []scrub.NamedMemories{{Name: "memories", Store: side.mem.File}, {Name: "memories trash", Store: side.mem.Trash}}}
	return trust.Scrub(ctx, src, *yes, *dryRun, stdin, stdout)
}
