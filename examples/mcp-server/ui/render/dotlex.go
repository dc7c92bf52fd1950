package render

import "fmt"

// CheckDOT refuses DOT whose quoted string, HTML string or /* comment is
// still open at the end, with a *SyntaxError (ErrSyntax) giving the offset
// where it starts. GraphSVG calls it before running a renderer, and a
// program that runs Graphviz in its own process (go-graphviz) must call it
// before every parse: Graphviz's lexer keeps its state in the WebAssembly
// module's memory from one parse to the next, and after an unterminated
// string every later graph of that process fails to parse (seen with
// `"111`). The rules are those of Graphviz's scanner: a quoted string ends
// at a '"' not escaped by a backslash, an HTML string at the '>' that
// balances its '<', a comment at "*/"; "//" and a '#' at the start of a
// line comment out the rest of the line. A NUL byte is refused anywhere:
// the lexer takes it for the end of input.
func CheckDOT(dot []byte) error {
	const (
		initial = iota
		quoted
		html
		comment
	)
	state, start, nest := initial, 0, 0
	lineStart := true
	for i := 0; i < len(dot); i++ {
		c := dot[i]
		if c == 0 {
			// Graphviz's lexer takes a NUL for the end of its input, so
			// a NUL inside a string leaves that string open for the next
			// parse: refused wherever it is.
			return &SyntaxError{Format: "DOT", Offset: int64(i), Msg: "DOT cannot hold a NUL byte"}
		}
		switch state {
		case initial:
			switch {
			case c == '"':
				state, start = quoted, i
			case c == '<':
				state, start, nest = html, i, 1
			case c == '/' && i+1 < len(dot) && dot[i+1] == '*':
				state, start = comment, i
				i++
			case c == '/' && i+1 < len(dot) && dot[i+1] == '/', c == '#' && lineStart:
				for i+1 < len(dot) && dot[i+1] != '\n' {
					i++
				}
			}
		case quoted:
			switch c {
			case '\\':
				i++ // an escaped character, '"' included
			case '"':
				state = initial
			}
		case html:
			switch c {
			case '<':
				nest++
			case '>':
				if nest--; nest == 0 {
					state = initial
				}
			}
		case comment:
			if c == '*' && i+1 < len(dot) && dot[i+1] == '/' {
				state = initial
				i++
			}
		}
		lineStart = c == '\n'
	}
	what := map[int]string{quoted: "quoted string", html: "HTML string (<...>)", comment: "comment (/* ... */)"}[state]
	if what == "" {
		return nil
	}
	return &SyntaxError{Format: "DOT", Offset: int64(start), Msg: fmt.Sprintf("the %s starting here is never closed", what)}
}
