// Package jsontext is the one JSON toolkit of the module: it reads JSON text
// by its bytes, without building values, for jsonpatch, the memory bank and
// its tools and server.
//
//   - Scanning (scan.go): SkipSpace, SkipString, SkipValue find where a
//     value ends; ObjectMembers and Element walk one container; At follows
//     a JSON Pointer. They do not validate what they skip: callers either
//     hold text already known valid or decode the values they use.
//   - Strings (unquote.go): Unquote decodes a JSON string exactly as
//     encoding/json does (invalid UTF-8 and lone surrogates become U+FFFD).
//   - Pointers (pointer.go): EscapeToken, UnescapeToken, SplitPointer.
//   - Check finds what encoding/json would silently change in a JSON text:
//     bytes that are not UTF-8, and \u escapes of lone UTF-16 surrogates.
//     Decoding replaces both with U+FFFD, so a path or a name carrying them
//     would name something else; the boundaries that read JSON from
//     clients refuse such a text instead; CheckOutside leaves out a part
//     that another of them checks.
//
// It does not validate JSON syntax (encoding/json.Valid does, and jsonpatch
// has a faster validator of its own) and does not decode numbers or build
// trees. Every function is fuzzed against encoding/json (fuzz_test.go).
package jsontext

import (
	"fmt"
	"unicode/utf8"
)

// Check returns the byte offset of the first problem in the JSON text data
// and what it is, or -1 and "". It does not check JSON syntax.
func Check(data []byte) (at int, reason string) { return check(data, 0) }

// CheckOutside is Check of data except data[from:to], a whole value whose
// text another layer checks: the stdio transport leaves a tool call's
// arguments to the tools that decode them. The offset is data's.
func CheckOutside(data []byte, from, to int) (at int, reason string) {
	if at, reason := check(data[:from], 0); at >= 0 {
		return at, reason
	}
	return check(data, to)
}

// check is Check from data[start], which is outside a string.
func check(data []byte, start int) (at int, reason string) {
	inString := false
	for i := start; i < len(data); {
		c := data[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(data[i:])
			if r == utf8.RuneError && size == 1 {
				return i, fmt.Sprintf("byte %#x at byte %d is not UTF-8", c, i)
			}
			i += size
			continue
		}
		switch {
		case c == '"':
			inString = !inString
		case c == '\\' && inString && i+1 < len(data):
			if data[i+1] != 'u' {
				i += 2
				continue
			}
			u, ok := hex4(data, i+2)
			switch {
			case !ok || u < 0xd800 || u > 0xdfff:
				i += 2
				continue
			case u <= 0xdbff:
				if i+7 < len(data) && data[i+6] == '\\' && data[i+7] == 'u' {
					if lo, ok := hex4(data, i+8); ok && lo >= 0xdc00 && lo <= 0xdfff {
						i += 12
						continue
					}
				}
			}
			return i, fmt.Sprintf("the escape %s at byte %d is half of a UTF-16 surrogate pair, which no UTF-8 text holds", data[i:i+6], i)
		}
		i++
	}
	return -1, ""
}

// hex4 reads the four hex digits at data[i:].
func hex4(data []byte, i int) (rune, bool) {
	if i+4 > len(data) {
		return 0, false
	}
	var r rune
	for _, c := range data[i : i+4] {
		switch {
		case '0' <= c && c <= '9':
			r = r<<4 | rune(c-'0')
		case 'a' <= c && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case 'A' <= c && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return r, true
}
