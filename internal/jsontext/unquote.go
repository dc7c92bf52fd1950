package jsontext

import (
	"unicode/utf16"
	"unicode/utf8"
)

// Unquote decodes the JSON string quoted (its quotes included) as
// json.Unmarshal into a string does: escapes decoded, bytes that are not
// UTF-8 and lone surrogate escapes replaced by U+FFFD. ok is false exactly
// when json.Unmarshal would refuse it; the string is then still decoded as
// far as it goes (see DecodeString), never a panic.
func Unquote(quoted []byte) (s string, ok bool) {
	if len(quoted) < 2 || quoted[0] != '"' || quoted[len(quoted)-1] != '"' {
		return "", false
	}
	return DecodeString(quoted[1 : len(quoted)-1])
}

// DecodeString decodes the inside of a JSON string (without its quotes),
// as Unquote. When the text is not a valid string inside (a raw control
// character or quote, a bad or cut escape), ok is false and the result is
// a best effort, for readers such as search that would rather see a word
// than nothing: a bad \u escape is U+FFFD followed by what came after it,
// another bad escape is the escaped byte, a trailing backslash is itself.
func DecodeString(in []byte) (s string, ok bool) {
	k := 0
	for k < len(in) {
		c := in[k]
		if c == '\\' || c == '"' || c < ' ' || c >= utf8.RuneSelf {
			break
		}
		k++
	}
	if k == len(in) {
		return string(in), true
	}
	out := make([]byte, k, len(in)+2*utf8.UTFMax)
	copy(out, in[:k])
	ok = true
	for i := k; i < len(in); {
		c := in[i]
		switch {
		case c == '\\':
			if i+1 == len(in) {
				out = append(out, c)
				return string(out), false
			}
			switch e := in[i+1]; e {
			case '"', '\\', '/':
				out = append(out, e)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, good := hex4(in, i+2)
				if !good {
					out = utf8.AppendRune(out, utf8.RuneError)
					ok = false
					i += 2
					continue
				}
				i += 6
				if utf16.IsSurrogate(r) {
					if lo, good := u4(in, i); good {
						if dec := utf16.DecodeRune(r, lo); dec != utf8.RuneError {
							out = utf8.AppendRune(out, dec)
							i += 6
							continue
						}
					}
					r = utf8.RuneError
				}
				out = utf8.AppendRune(out, r)
				continue
			default:
				out = append(out, e)
				ok = false
			}
			i += 2
		case c == '"' || c < ' ':
			out = append(out, c)
			ok = false
			i++
		case c < utf8.RuneSelf:
			out = append(out, c)
			i++
		default:
			r, size := utf8.DecodeRune(in[i:])
			out = utf8.AppendRune(out, r) // RuneError for a byte that is not UTF-8, as encoding/json
			i += size
		}
	}
	return string(out), ok
}

// u4 reads a \uXXXX escape at in[i:].
func u4(in []byte, i int) (rune, bool) {
	if i+1 >= len(in) || in[i] != '\\' || in[i+1] != 'u' {
		return 0, false
	}
	return hex4(in, i+2)
}
