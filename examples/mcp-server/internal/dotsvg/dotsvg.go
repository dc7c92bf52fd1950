// Package dotsvg lays out a Graphviz DOT graph as SVG with go-graphviz, a
// Graphviz compiled to WebAssembly and run in wazero. It is imported only by
// the mnemobank-dot command: go-graphviz compiles its WebAssembly module in
// its package init, which costs every process that links it about 18 MB of
// memory and 70 ms (1.2 s with the compilation cache in $TMPDIR/go-graphviz
// cold), so the mnemobank server runs that command instead of linking this.
//
// The SVG returned is Graphviz's own, not sanitised: the caller passes it
// through render.SanitizeSVG.
//
// One graph per process: Graphviz's parser keeps state in the module's
// memory from one parse to the next, and some bad inputs leave it broken
// for every later graph (an open string, a NUL, trailing text after a
// graph: "graph {}0", found by fuzzing). render.CheckDOT refuses the first
// two kinds, but no list is complete, so mnemobank-dot renders one graph
// and exits: a bad graph can only fail itself.
package dotsvg

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing/fstest"

	"github.com/goccy/go-graphviz"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// Graphviz's WebAssembly module is not safe for concurrent use: one
// instance is made on first use and every call holds mu.
var (
	once sync.Once
	gv   *graphviz.Graphviz
	err0 error
	mu   sync.Mutex
)

func instance() (*graphviz.Graphviz, error) {
	once.Do(func() {
		// The module's file system would otherwise be the host's: a DOT
		// node with image="/some/file" or an HTML label's <IMG SRC> makes
		// Graphviz open that path. An empty file system makes every such
		// open fail, so a graph cannot read or probe the host's files.
		graphviz.SetFileSystem(fstest.MapFS{})
		gv, err0 = graphviz.New(context.Background())
	})
	return gv, err0
}

// Render lays dot out and returns Graphviz's SVG.
//
// Errors: *render.LimitError (render.ErrTooLarge) above render.MaxDOTBytes
// or render.MaxGraphNodes, both checked before layout; *render.SyntaxError
// (render.ErrSyntax) for DOT Graphviz cannot read, or that render.CheckDOT
// refuses before Graphviz sees it; ctx's error when ctx ends
// before layout (a layout already running finishes first: the WebAssembly
// call cannot be interrupted, which is why the server runs this in a
// process it can kill).
func Render(ctx context.Context, dot []byte) ([]byte, error) {
	if len(dot) > render.MaxDOTBytes {
		return nil, &render.LimitError{What: "DOT graph bytes", Limit: render.MaxDOTBytes, Got: int64(len(dot)), Err: render.ErrTooLarge}
	}
	if err := render.CheckDOT(dot); err != nil { // an open string would break every later parse
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	mu.Lock()
	defer mu.Unlock()
	g, err := instance()
	if err != nil {
		return nil, fmt.Errorf("dotsvg: starting Graphviz: %w", err)
	}
	graph, err := graphviz.ParseBytes(dot)
	if err != nil || graph == nil {
		msg := "Graphviz could not read the graph"
		if err != nil {
			msg = err.Error()
		}
		return nil, &render.SyntaxError{Format: "DOT", Offset: -1, Msg: msg}
	}
	defer graph.Close()
	n, err := countNodes(graph, render.MaxGraphNodes+1)
	if err != nil {
		return nil, fmt.Errorf("dotsvg: counting the graph's nodes: %w", err)
	}
	if n > render.MaxGraphNodes {
		return nil, &render.LimitError{What: "DOT graph nodes", Limit: render.MaxGraphNodes, Got: int64(n), Err: render.ErrTooLarge}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	if err := g.Render(ctx, graph, graphviz.SVG, &raw); err != nil {
		return nil, fmt.Errorf("dotsvg: Graphviz layout: %w", err)
	}
	return raw.Bytes(), nil
}

// countNodes counts the graph's nodes, stopping at stop.
func countNodes(g *graphviz.Graph, stop int) (int, error) {
	n := 0
	node, err := g.FirstNode()
	for ; err == nil && node != nil && n < stop; node, err = g.NextNode(node) {
		n++
	}
	return n, err
}
