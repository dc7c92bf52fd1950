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
// Cost: importing this package links go-graphviz, whose WebAssembly module
// is compiled and instantiated in that library's init, at the start of every
// process that links it, whether or not a graph is ever drawn (measured on
// the development machine: about 18 MB more RSS and 70 ms with wazero's
// compilation cache warm in $TMPDIR/go-graphviz, about 48 MB and 1.2 s
// cold). GraphSVG only makes the Graphviz context lazily.
//
// What it does not do: no I/O of its own (GraphSVG runs Graphviz in an
// in-process WebAssembly runtime with no file system), no HTTP, no
// templates. The pages that embed this output live in the parent package,
// and they add the second layer of protection: a Content-Security-Policy
// without inline script.
package render
