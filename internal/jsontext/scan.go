package jsontext

import (
	"bytes"
	"strconv"
)

// IsSpace reports whether c is JSON white space.
func IsSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// SkipSpace returns the offset of the first byte at or after i that is not
// JSON white space (len(b) when there is none).
func SkipSpace(b []byte, i int) int {
	for i < len(b) && IsSpace(b[i]) {
		i++
	}
	return i
}

// SkipString returns the offset just past the string whose opening quote is
// at b[i], or -1 when it does not end. It looks for quotes with
// bytes.IndexByte, so a long string costs little more than a memchr.
func SkipString(b []byte, i int) int {
	for i++; i < len(b); {
		k := bytes.IndexByte(b[i:], '"')
		if k < 0 {
			return -1
		}
		q := i + k
		// The quote ends the string unless an odd run of backslashes escapes it.
		n := 0
		for m := q - 1; m >= i && b[m] == '\\'; m-- {
			n++
		}
		if n%2 == 0 {
			return q + 1
		}
		i = q + 1
	}
	return -1
}

// SkipValue returns the offset just past the value starting at b[i], or -1
// when there is none (i at the end, at a delimiter, or a string or
// container that does not end). It matches brackets without checking that
// they pair up or that what lies between them is JSON: for a valid text it
// finds the value's end, for another it finds some end or -1, never panics.
func SkipValue(b []byte, i int) int {
	if i < 0 || i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return SkipString(b, i)
	case '{', '[':
		depth := 0
		for i < len(b) {
			switch b[i] {
			case '"':
				if i = SkipString(b, i); i < 0 {
					return -1
				}
				continue
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return i + 1
				}
			}
			i++
		}
		return -1
	case ',', ':', '}', ']':
		return -1
	}
	start := i
	for i < len(b) {
		switch b[i] {
		case ',', '}', ']', ' ', '\t', '\n', '\r':
			return i
		}
		i++
	}
	if i == start {
		return -1
	}
	return i
}

// ObjectMembers calls fn with each member of the JSON object in data, in
// order, with the member's name decoded (as encoding/json would) and its
// value as raw bytes, and reports whether data is an object (white space
// around it allowed). It finds the members by their delimiters without
// decoding or validating the values, so splitting a large document costs
// one quick pass; whoever uses a value decodes it and so checks it. A name
// that is not a valid JSON string makes it report false.
func ObjectMembers(data []byte, fn func(key string, val []byte)) bool {
	i := SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false
	}
	i = SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return SkipSpace(data, i+1) == len(data)
	}
	for {
		if i >= len(data) || data[i] != '"' {
			return false
		}
		ks := i
		if i = SkipString(data, i); i < 0 {
			return false
		}
		key, ok := Unquote(data[ks:i])
		if !ok {
			return false
		}
		if i = SkipSpace(data, i); i >= len(data) || data[i] != ':' {
			return false
		}
		vs := SkipSpace(data, i+1)
		if i = SkipValue(data, vs); i < 0 {
			return false
		}
		fn(key, data[vs:i])
		if i = SkipSpace(data, i); i >= len(data) {
			return false
		}
		switch data[i] {
		case '}':
			return SkipSpace(data, i+1) == len(data)
		case ',':
			i = SkipSpace(data, i+1)
		default:
			return false
		}
	}
}

// Element returns element n of the JSON array a (white space around it
// allowed), or nil when a is not an array or has no such element.
func Element(a []byte, n int) []byte {
	i := SkipSpace(a, 0)
	if n < 0 || i >= len(a) || a[i] != '[' {
		return nil
	}
	i = SkipSpace(a, i+1)
	for k := 0; i < len(a) && a[i] != ']'; k++ {
		end := SkipValue(a, i)
		if end < 0 {
			return nil
		}
		if k == n {
			return a[i:end]
		}
		i = SkipSpace(a, end)
		if i >= len(a) || a[i] != ',' {
			return nil
		}
		i = SkipSpace(a, i+1)
	}
	return nil
}

// At returns the value at the JSON Pointer ptr in the JSON text doc, found
// by scanning only the containers on the way (the last member of a name
// that repeats, as decoders keep). It reports false when ptr is not a
// pointer or names nothing. Unlike jsonpatch.Get it does not validate doc:
// it is for text known to be valid, such as a stored canonical document.
func At(doc []byte, ptr string) ([]byte, bool) {
	tokens, ok := SplitPointer(ptr)
	if !ok {
		return nil, false
	}
	cur := bytes.TrimSpace(doc)
	for _, tok := range tokens {
		if len(cur) == 0 {
			return nil, false
		}
		var next []byte
		switch cur[0] {
		case '{':
			ObjectMembers(cur, func(k string, v []byte) {
				if k == tok {
					next = v
				}
			})
		case '[':
			if !CanonicalIndex(tok) {
				return nil, false
			}
			n, err := strconv.Atoi(tok)
			if err != nil {
				return nil, false
			}
			next = Element(cur, n)
		}
		if next == nil {
			return nil, false
		}
		cur = next
	}
	return cur, true
}

// CanonicalIndex reports whether s is an array index of RFC 6901: digits
// without a leading zero.
func CanonicalIndex(s string) bool {
	if s == "" || (s[0] == '0' && len(s) > 1) {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
