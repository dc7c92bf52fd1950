package jsonpatch

import (
	"strconv"
)

// compactLen is the length of v without insignificant whitespace.
func compactLen(v []byte) int64 {
	var n int64
	inStr := false
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch {
		case inStr:
			if c == '\\' {
				n++
				i++
			} else if c == '"' {
				inStr = false
			}
		case c == '"':
			inStr = true
		case isSpace(c):
			continue
		}
		n++
	}
	return n
}

// snippet shows a value in an error message, shortened.
func snippet(v []byte) string {
	const max = 80
	v = appendCompact(nil, v)
	if len(v) > max {
		return string(v[:max]) + "... (" + strconv.Itoa(len(v)) + " bytes)"
	}
	return string(v)
}

// appendCompact appends a fragment of valid JSON that starts outside any
// string, without insignificant whitespace.
func appendCompact(dst, src []byte) []byte {
	inStr := false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		} else if isSpace(c) {
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
