package jsonpatch

import (
	"encoding/binary"
	"encoding/json"
)

// maxDepth is the deepest nesting of arrays and objects encoding/json
// accepts; scanValid accepts exactly what json.Valid does.
const maxDepth = 10000

// validJSON is json.Valid, faster.
func validJSON(b []byte) bool {
	if ok, _ := scanValid(b, nil); ok {
		return true
	}
	return json.Valid(b) // the judge, should the two ever disagree
}

// scanValid reports whether b (trimmed of surrounding whitespace or not) is
// exactly one JSON value, as json.Valid decides, and whether it holds no
// whitespace outside strings (then it is already compact). It does not
// check UTF-8. It is a hand-written scanner, several times faster than
// json.Valid's state machine; FuzzScanValid checks that the two agree.
// When idx is not nil, it records where the larger containers end, so
// that expanding their parents later need not scan them again.
func scanValid(b []byte, idx *spanIndex) (ok, compact bool) {
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
			start := i
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
			if idx != nil {
				idx.open(start, len(b))
			}
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
				if idx != nil {
					idx.close(i)
				}
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
// b[i] (a quote), or -1. It skips eight ordinary bytes at a time.
func scanString(b []byte, i int) int {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	n := len(b)
	i++
	for {
		for i+8 <= n {
			x := binary.LittleEndian.Uint64(b[i:])
			q := x ^ (ones * '"')
			e := x ^ (ones * '\\')
			// High bit set in a byte that is '"', '\\' or below 0x20 (and
			// maybe in bytes after it, but never when there is none).
			if ((q-ones)&^q|(e-ones)&^e|(x-ones*0x20)&^x)&highs != 0 {
				break
			}
			i += 8
		}
		for i < n && b[i] >= 0x20 && b[i] != '"' && b[i] != '\\' {
			i++
		}
		if i >= n {
			return -1
		}
		switch b[i] {
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
			i++
		default: // a control character
			return -1
		}
	}
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

// spanIndex records, in order of their start, the containers of a document
// that span spanMin bytes or more, and where they end.
type spanIndex struct {
	spans []span32
	stack []int32 // positions in spans of the containers open while scanning
	off   bool    // too many to be worth it: nothing recorded
}

type span32 struct{ start, end uint32 }

// spanMin: smaller containers are as cheap to scan as to look up. A
// variable only so that tests can index small documents.
var spanMin = 64

func (x *spanIndex) reset() {
	x.spans, x.stack, x.off = x.spans[:0], x.stack[:0], false
}

func (x *spanIndex) open(start, docLen int) {
	if x.off {
		return
	}
	if len(x.spans) > docLen/16+64 || docLen > maxText {
		// At most half the document's size in memory; the scan will do.
		x.off = true
		x.spans = x.spans[:0]
		return
	}
	x.stack = append(x.stack, int32(len(x.spans)))
	x.spans = append(x.spans, span32{start: uint32(start)})
}

func (x *spanIndex) close(end int) {
	if x.off {
		return
	}
	k := x.stack[len(x.stack)-1]
	x.stack = x.stack[:len(x.stack)-1]
	if end-int(x.spans[k].start) < spanMin {
		// Its descendants were smaller still and are gone already.
		x.spans = x.spans[:k]
		return
	}
	x.spans[k].end = uint32(end)
}

// end returns where the container starting at start ends, or -1 when it
// was not recorded.
func (x *spanIndex) end(start int) int {
	s := x.spans
	lo, hi := 0, len(s)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if int(s[m].start) < start {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s) && int(s[lo].start) == start {
		return int(s[lo].end)
	}
	return -1
}
