// Package render turns what a memory bank holds into something a person can
// read in a browser: Markdown as sanitised HTML, JSON as a collapsible tree,
// a skill graph's DOT as an SVG picture, and two versions of a document as a
// line diff.
//
// Everything rendered here was written by a language model or by whoever
// wrote a repository's files, so every function treats its input as hostile:
// the output never carries markup that runs script, and every input has a
// size limit checked before the work starts. Oversized or malformed input
// gives an error wrapping ErrTooLarge, ErrTooDeep or ErrSyntax (checked with
// errors.Is; *LimitError and *SyntaxError carry the facts), never a panic.
//
// Graphs: GraphSVG does not draw in this process. Graphviz in Go
// (go-graphviz, Graphviz compiled to WebAssembly) compiles its module in its
// package init, which would cost every process linking this package about
// 18 MB of memory and 70 ms at start (1.2 s with its compilation cache cold)
// whether or not a graph is ever drawn, the MCP server included. GraphSVG
// runs a renderer program instead: cmd/mnemobank-dot (go-graphviz in a
// process of its own, from MNEMOBANK_DOT, beside the running executable, or
// on PATH) or Graphviz's dot, killed when its context ends, and sanitises
// what it writes (SanitizeSVG). Without one it returns ErrNoRenderer and
// the viewer shows the DOT source instead of a picture.
//
// What it does not do: no I/O of its own besides running that program, no
// HTTP, no templates. The pages that embed this output live in the parent
// package, and they add the second layer of protection: a
// Content-Security-Policy without inline script.
package render
