// Command mnemobank-dot draws a Graphviz DOT graph as SVG: DOT on standard
// input, sanitised SVG on standard output. The mnemobank viewer runs it to
// draw skill graphs, so that the Graphviz it carries (go-graphviz, Graphviz
// compiled to WebAssembly, about 18 MB of memory once loaded) is never part
// of the mnemobank server's own process.
//
// Install it beside mnemobank:
//
//	go install github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank-dot@latest
//
// Input is at most render.MaxDOTBytes (256 KiB) and render.MaxGraphNodes
// (1,000) nodes. Graphviz runs with an empty file system: a graph naming an
// image or a shape file cannot read the host's files. The SVG keeps only
// the elements Graphviz writes, without script, event handlers or links
// other than http, https, mailto and #fragments (render.SanitizeSVG).
//
// Exit status: 0 with the SVG on standard output; 1 on any other failure;
// 2 when the input is above a limit; 3 when it is not DOT Graphviz can
// read. A failure writes one line saying why on standard error and nothing
// on standard output.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/dotsvg"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// Exit statuses besides 0 (drawn) and 1 (failed).
const (
	exitTooLarge = 2
	exitSyntax   = 3
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	if len(args) > 0 {
		fmt.Fprintf(stderr, "mnemobank-dot: unexpected argument %q; it takes no arguments: DOT on standard input, SVG on standard output\n", args[0])
		return 1
	}
	dot, err := io.ReadAll(io.LimitReader(stdin, render.MaxDOTBytes+1))
	if err != nil {
		fmt.Fprintf(stderr, "mnemobank-dot: reading standard input: %v\n", err)
		return 1
	}
	if len(dot) > render.MaxDOTBytes {
		fmt.Fprintf(stderr, "mnemobank-dot: the DOT on standard input is above the limit of %d bytes; nothing was drawn\n", render.MaxDOTBytes)
		return exitTooLarge
	}
	raw, err := dotsvg.Render(ctx, dot)
	if err == nil {
		var svg []byte
		if svg, err = render.SanitizeSVG(raw); err == nil {
			if _, err = stdout.Write(svg); err != nil {
				fmt.Fprintf(stderr, "mnemobank-dot: writing the SVG: %v\n", err)
				return 1
			}
			return 0
		}
	}
	fmt.Fprintf(stderr, "mnemobank-dot: %v\n", err)
	switch {
	case errors.Is(err, render.ErrTooLarge):
		return exitTooLarge
	case errors.Is(err, render.ErrSyntax):
		return exitSyntax
	}
	return 1
}
