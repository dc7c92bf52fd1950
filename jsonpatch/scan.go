package jsonpatch

import (
	"strconv"
	"strings"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// This file reads JSON text that is already known to be valid: it finds
// values by their byte offsets without decoding them, so a lookup costs one
// pass over the containers it walks through and nothing else.

type span struct{ start, end int }

type child struct {
	keyStart int    // objects: offset of the key's opening quote; arrays: val.start
	key      string // objects: the decoded member name
	val      span
}

// The scanning itself is the module's one JSON toolkit (internal/jsontext);
// these wrappers keep this package's convention for text known to be
// valid: a value that does not end ends at the end of b.

func skipWS(b []byte, i int) int { return jsontext.SkipSpace(b, i) }

// skipString returns the offset just past the string starting at b[i].
func skipString(b []byte, i int) int {
	if e := jsontext.SkipString(b, i); e >= 0 {
		return e
	}
	return len(b)
}

// skipValue returns the offset just past the value starting at b[i].
func skipValue(b []byte, i int) int {
	if e := jsontext.SkipValue(b, i); e >= 0 {
		return e
	}
	return len(b)
}

// decodeKey returns the member name of the quoted string b[s:e] (its raw
// text when it is not a valid string).
func decodeKey(b []byte, s, e int) string {
	if k, ok := jsontext.Unquote(b[s:e]); ok {
		return k
	}
	return string(b[s+1 : e-1])
}

// children lists the members or elements of the container at v.
func children(b []byte, v span) []child {
	var out []child
	isObj := b[v.start] == '{'
	i := skipWS(b, v.start+1)
	if b[i] == '}' || b[i] == ']' {
		return out
	}
	for {
		var c child
		if isObj {
			ke := skipString(b, i)
			c.keyStart = i
			c.key = decodeKey(b, i, ke)
			i = skipWS(b, ke) + 1 // past ':'
			i = skipWS(b, i)
		} else {
			c.keyStart = i
		}
		e := skipValue(b, i)
		c.val = span{i, e}
		out = append(out, c)
		i = skipWS(b, e)
		if b[i] != ',' {
			return out
		}
		i = skipWS(b, i+1)
	}
}

// lookup finds the value of member key (the last one, as decoders keep) in
// the object at v, scanning without building a list.
func lookupMember(b []byte, v span, key string) (span, bool) {
	var found span
	ok := false
	i := skipWS(b, v.start+1)
	if b[i] == '}' {
		return found, false
	}
	for {
		ke := skipString(b, i)
		raw := b[i+1 : ke-1]
		match := false
		if len(raw) >= len(key) && hasBackslash(raw) {
			match = decodeKey(b, i, ke) == key // an escape is never shorter than what it encodes
		} else if len(raw) == len(key) {
			match = string(raw) == key
		}
		i = skipWS(b, skipWS(b, ke)+1)
		e := skipValue(b, i)
		if match {
			found, ok = span{i, e}, true
		}
		i = skipWS(b, e)
		if b[i] != ',' {
			return found, ok
		}
		i = skipWS(b, i+1)
	}
}

func hasBackslash(b []byte) bool {
	for _, c := range b {
		if c == '\\' {
			return true
		}
	}
	return false
}

// lookupElement finds element idx of the array at v and counts the elements
// when it is out of range.
func lookupElement(b []byte, v span, idx int) (span, int) {
	i := skipWS(b, v.start+1)
	if b[i] == ']' {
		return span{}, 0
	}
	n := 0
	for {
		e := skipValue(b, i)
		if n == idx {
			return span{i, e}, n + 1
		}
		n++
		i = skipWS(b, e)
		if b[i] != ',' {
			return span{}, n
		}
		i = skipWS(b, i+1)
	}
}

// countElements returns the length of the array at v.
func countElements(b []byte, v span) int {
	_, n := lookupElement(b, v, -1)
	return n
}

// arrayIndex interprets token tok against an array of n elements. forAdd
// allows "-" and n itself (the end). at is the array's pointer, turned into
// text only for an error.
func arrayIndex(tok string, n int, forAdd, negOK bool, at []string) (int, error) {
	if tok == "-" {
		if forAdd {
			return n, nil
		}
		return 0, errorf(ErrInvalidIndex, "\"-\" (past the end of the array at %s) can only be the last token of an \"add\" path; the array has %d elements", where(at), n)
	}
	neg := false
	digits := tok
	if negOK && len(tok) > 1 && tok[0] == '-' {
		neg, digits = true, tok[1:]
	}
	if !jsontext.CanonicalIndex(digits) || (neg && digits == "0") {
		return 0, errorf(ErrInvalidIndex, "%q is not an array index for the array at %s: use 0, 1, 2, ... without leading zeros or signs, or \"-\" to add at the end", tok, where(at))
	}
	v, err := strconv.Atoi(digits)
	size := n
	if forAdd {
		size = n + 1
	}
	if err != nil || (!neg && v >= size) || (neg && v > size) {
		valid := "none, it is empty"
		if n > 0 {
			valid = "0 to " + strconv.Itoa(n-1)
		}
		if forAdd {
			valid = "0 to " + strconv.Itoa(n) + ` or "-"`
		}
		return 0, errorf(ErrInvalidIndex, "index %s is out of range for the array at %s, which has %d elements (valid: %s)", tok, where(at), n, valid)
	}
	if neg {
		v = size - v
	}
	return v, nil
}

// kindName names the JSON type of a value for messages.
func kindName(c byte) string {
	switch c {
	case '{':
		return "an object"
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

func where(tokens []string) string {
	if len(tokens) == 0 {
		return "the document root"
	}
	return strconv.Quote(FormatPointer(tokens...))
}

func joinTokens(base, tokens []string) []string {
	if len(base) == 0 {
		return tokens
	}
	return append(base[:len(base):len(base)], tokens...)
}

// resolve finds the value at tokens in the valid JSON b (trimmed), which is
// the subtree at base of a larger document (for messages only).
func resolve(b []byte, base, tokens []string, negOK bool) (span, error) {
	at := func(t []string) string { return where(joinTokens(base, t)) }
	cur := span{0, len(b)}
	for i, tok := range tokens {
		switch b[cur.start] {
		case '{':
			next, ok := lookupMember(b, cur, tok)
			if !ok {
				return span{}, errorf(ErrPathNotFound, "%s has no member %q%s", at(tokens[:i]), tok, memberList(b, cur))
			}
			cur = next
		case '[':
			n := -1
			if tok == "-" || !jsontext.CanonicalIndex(tok) {
				n = countElements(b, cur)
			} else if v, err := strconv.Atoi(tok); err == nil {
				next, count := lookupElement(b, cur, v)
				if v < count {
					cur = next
					continue
				}
				n = count
			} else {
				n = countElements(b, cur)
			}
			idx, err := arrayIndex(tok, n, false, negOK, joinTokens(base, tokens[:i]))
			if err != nil {
				return span{}, err
			}
			cur, _ = lookupElement(b, cur, idx)
		default:
			return span{}, errorf(ErrPathNotFound, "%s is %s, not an object or array, so it has no member %q", at(tokens[:i]), kindName(b[cur.start]), tok)
		}
	}
	return cur, nil
}

// memberList describes the members an object has, for error messages.
func memberList(b []byte, v span) string {
	cs := children(b, v)
	if len(cs) == 0 {
		return " (it is empty)"
	}
	const max = 20
	names := make([]string, 0, max)
	for i, c := range cs {
		if i == max {
			names = append(names, "...")
			break
		}
		names = append(names, strconv.Quote(c.key))
	}
	return " (members: " + strings.Join(names, ", ") + ")"
}
