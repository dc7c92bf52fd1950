package jsonpatch

import (
	"bytes"
	"math/big"
	"strings"
)

// equalJSON reports whether two valid JSON values are equal in the sense of
// RFC 6902 "test": numbers by their numeric value (1, 1.0 and 1e0 are
// equal), strings after unescaping, objects as unordered sets of members,
// arrays element by element, null only to null.
func equalJSON(a, b []byte) bool {
	a, b = trimSpace(a), trimSpace(b)
	if len(a) == 0 || len(b) == 0 {
		return false
	}
	switch a[0] {
	case '{':
		if b[0] != '{' {
			return false
		}
		ma := members(a)
		mb := members(b)
		if len(ma) != len(mb) {
			return false
		}
		for k, va := range ma {
			vb, ok := mb[k]
			if !ok || !equalJSON(va, vb) {
				return false
			}
		}
		return true
	case '[':
		if b[0] != '[' {
			return false
		}
		ca := children(a, span{0, len(a)})
		cb := children(b, span{0, len(b)})
		if len(ca) != len(cb) {
			return false
		}
		for i := range ca {
			if !equalJSON(a[ca[i].val.start:ca[i].val.end], b[cb[i].val.start:cb[i].val.end]) {
				return false
			}
		}
		return true
	case '"':
		if b[0] != '"' {
			return false
		}
		if bytes.Equal(a, b) {
			return true
		}
		return decodeKey(a, 0, len(a)) == decodeKey(b, 0, len(b))
	case 't', 'f', 'n':
		return bytes.Equal(a, b)
	default:
		if b[0] != '-' && (b[0] < '0' || b[0] > '9') {
			return false
		}
		if bytes.Equal(a, b) {
			return true
		}
		return canonicalNumber(a) == canonicalNumber(b)
	}
}

// members maps the member names of the object a to their values; a later
// duplicate wins, as in decoders.
func members(a []byte) map[string][]byte {
	cs := children(a, span{0, len(a)})
	m := make(map[string][]byte, len(cs))
	for _, c := range cs {
		m[c.key] = a[c.val.start:c.val.end]
	}
	return m
}

// canonicalNumber rewrites a JSON number as sign, significant digits and a
// decimal exponent ("1.50e2" -> "15e1"), exactly, so equal values compare equal
// however they are written and whatever their size.
func canonicalNumber(n []byte) string {
	s := string(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	mant, exp := s, "0"
	if i := strings.IndexAny(s, "eE"); i >= 0 {
		mant, exp = s[:i], s[i+1:]
	}
	intPart, frac := mant, ""
	if i := strings.IndexByte(mant, '.'); i >= 0 {
		intPart, frac = mant[:i], mant[i+1:]
	}
	digits := strings.TrimLeft(intPart+frac, "0")
	if digits == "" {
		return "0"
	}
	e := new(big.Int)
	e.SetString(strings.TrimPrefix(exp, "+"), 10)
	e.Sub(e, big.NewInt(int64(len(frac))))
	trimmed := strings.TrimRight(digits, "0")
	e.Add(e, big.NewInt(int64(len(digits)-len(trimmed))))
	sign := ""
	if neg {
		sign = "-"
	}
	return sign + trimmed + "e" + e.String()
}
