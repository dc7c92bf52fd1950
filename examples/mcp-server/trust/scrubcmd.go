package trust

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/mnemobank/mnemobank/screen"
	"github.com/mnemobank/mnemobank/scrub"
)

// ScrubUsage is the usage text of "mnemobank scrub"; the store flags follow.
const ScrubUsage = `mnemobank scrub: find credentials already stored in the memory bank (every
document, every version of its history, tombstones) and in the learned memories
and their trash, list them, and after confirmation replace each with
[REDACTED:<kind>]. Every version of every history stays, without the credential.

Usage:
  mnemobank scrub [--root DIR | --postgres DSN --namespace N] [--memories FILE] [--yes | --dry-run]

Flags:
`

// Scrub lists the credentials src holds and, when yes is true or the
// person types "yes" on stdin, removes them. With dryRun it only lists.
// Run it while no server writes the bank: a key changed meanwhile is left
// alone and reported.
func Scrub(ctx context.Context, src scrub.Source, yes, dryRun bool, stdin io.Reader, stdout io.Writer) error {
	s, err := Scanner()
	if err != nil {
		return err
	}
	hits, err := scrub.Find(ctx, src, s)
	if err != nil {
		return err
	}
	if len(hits) == 0 {
		fmt.Fprintln(stdout, "No credentials found.")
		return nil
	}
	n := 0
	for _, h := range hits {
		for _, f := range h.Findings {
			fmt.Fprintf(stdout, "%s:%d:%d: %s (%s)\n", h.Key, f.Line, f.Column, f.Kind, screen.Mask(f.Secret))
			n++
		}
	}
	fmt.Fprintf(stdout, "%d credential(s) in %d place(s).\n", n, len(hits))
	if dryRun {
		return nil
	}
	if !yes {
		fmt.Fprint(stdout, "Replace them with [REDACTED:<kind>] in every place listed? Type yes to go on: ")
		line, _ := bufio.NewReader(stdin).ReadString('\n')
		if strings.TrimSpace(line) != "yes" {
			fmt.Fprintln(stdout, "Nothing was changed.")
			return nil
		}
	}
	done, err := scrub.Remove(ctx, src, hits)
	fmt.Fprintf(stdout, "Rewrote %d place(s).\n", done)
	return err
}
