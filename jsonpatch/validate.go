package jsonpatch

import "encoding/json"

// maxDepth is the deepest nesting of arrays and objects encoding/json
// accepts; scanValid accepts exactly what json.Valid does.
const maxDepth = 10000

// validJSON is json.Valid, faster.
func validJSON(b []byte) bool {
	if ok, _ := scanValid(b); ok {
		return true
	}
	return json.Valid(b) // the judge, should the two ever disagree
}

// scanValid reports whether b (already trimmed of surrounding whitespace
// or not) is exactly one JSON value, as json.Valid decides, and whether it
// holds no whitespace outside strings (then it is already compact). It does
// not check UTF-8. It is a hand-written scanner, several times faster than
// json.Valid's state machine; FuzzScanValid checks that the two agree.
func scanValid(b []byte) (ok, compact bool) {
	compact = true
	var stackBuf [64]byte
	stack := stackBuf[:0] // '{' or '[' per open container
	n := len(b)
	i := 0
	for {
		// A value starts at b[i] (after whitespace).
		if i < n && isSpace(b[i]) {
			i, compact = skipWS(b, i), false
		}
		if i >= n {
			return false, compact
		}
		switch c := b[i]; c {
		case '{', '[':
			if len(stack) >= maxDepth {
				return false, compact
			}
			i++
			if i < n && isSpace(b[i]) {
				i, compact = skipWS(b, i), false
			}
			if i >= n {
				return false, compact
			}
			if (c == '{' && b[i] == '}') || (c == '[' && b[i] == ']') {
				i++
				break // an empty container is a complete value
			}
			stack = append(stack, c)
			if c == '{' {
				if i = scanKey(b, i); i < 0 {
					return false, compact
				}
				if i < n && isSpace(b[i]) {
					i, compact = skipWS(b, i), false
				}
				if i >= n || b[i] != ':' {
					return false, compact
				}
				i++
			}
			continue // the first member's value or element
		case '"':
			if i = scanString(b, i); i < 0 {
				return false, compact
			}
		case 't':
			if !hasLiteral(b, i, "true") {
				return false, compact
			}
			i += 4
		case 'f':
			if !hasLiteral(b, i, "false") {
				return false, compact
			}
			i += 5
		case 'n':
			if !hasLiteral(b, i, "null") {
				return false, compact
			}
			i += 4
		default:
			if i = scanNumber(b, i); i < 0 {
				return false, compact
			}
		}
		// A value ended at b[i]: close containers, or go on to the next one.
		for {
			if i < n && isSpace(b[i]) {
				i, compact = skipWS(b, i), false
			}
			if len(stack) == 0 {
				return i == n, compact
			}
			if i >= n {
				return false, compact
			}
			top := stack[len(stack)-1]
			c := b[i]
			if c == ',' {
				i++
				if top == '{' {
					if i < n && isSpace(b[i]) {
						i, compact = skipWS(b, i), false
					}
					if i = scanKey(b, i); i < 0 {
						return false, compact
					}
					if i < n && isSpace(b[i]) {
						i, compact = skipWS(b, i), false
					}
					if i >= n || b[i] != ':' {
						return false, compact
					}
					i++
				}
				break
			}
			if (top == '{' && c == '}') || (top == '[' && c == ']') {
				stack = stack[:len(stack)-1]
				i++
				continue
			}
			return false, compact
		}
	}
}

// scanKey scans a member name at b[i] (which must be a string) and returns
// the offset past it, or -1.
func scanKey(b []byte, i int) int {
	if i >= len(b) || b[i] != '"' {
		return -1
	}
	return scanString(b, i)
}

// scanString returns the offset just past the valid JSON string starting at
// b[i] (a quote), or -1.
func scanString(b []byte, i int) int {
	n := len(b)
	for i++; i < n; i++ {
		c := b[i]
		if c >= 0x20 && c != '"' && c != '\\' {
			continue
		}
		switch c {
		case '"':
			return i + 1
		case '\\':
			i++
			if i >= n {
				return -1
			}
			switch b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= n {
					return -1
				}
				for _, h := range b[i+1 : i+5] {
					if !isHex(h) {
						return -1
					}
				}
				i += 4
			default:
				return -1
			}
		default: // a control character
			return -1
		}
	}
	return -1
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hasLiteral(b []byte, i int, lit string) bool {
	return len(b)-i >= len(lit) && string(b[i:i+len(lit)]) == lit
}

// scanNumber returns the offset just past the JSON number at b[i], or -1.
func scanNumber(b []byte, i int) int {
	n := len(b)
	if b[i] == '-' {
		i++
	}
	switch {
	case i < n && b[i] == '0':
		i++
	case i < n && b[i] >= '1' && b[i] <= '9':
		for i++; i < n && isDigit(b[i]); i++ {
		}
	default:
		return -1
	}
	if i < n && b[i] == '.' {
		i++
		if i >= n || !isDigit(b[i]) {
			return -1
		}
		for i++; i < n && isDigit(b[i]); i++ {
		}
	}
	if i < n && (b[i] == 'e' || b[i] == 'E') {
		i++
		if i < n && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= n || !isDigit(b[i]) {
			return -1
		}
		for i++; i < n && isDigit(b[i]); i++ {
		}
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }
