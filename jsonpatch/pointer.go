package jsonpatch

import (
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// ParsePointer splits an RFC 6901 JSON Pointer into its unescaped reference
// tokens. "" (the whole document) gives no tokens; "/" gives one empty token,
// the member named "". A pointer that is neither "" nor starts with "/", or
// that holds a "~" not followed by "0" or "1", is ErrInvalidPointer.
func ParsePointer(pointer string) ([]string, error) {
	if err := checkPointer(pointer); err != nil {
		return nil, err
	}
	if pointer == "" {
		return nil, nil
	}
	parts := strings.Split(pointer[1:], "/")
	for i, p := range parts {
		if strings.IndexByte(p, '~') >= 0 {
			parts[i] = unescape(p)
		}
	}
	return parts, nil
}

// FormatPointer is the inverse of ParsePointer: it escapes each token and
// joins them into a JSON Pointer. No tokens give "", the whole document.
func FormatPointer(tokens ...string) string {
	var b strings.Builder
	for _, t := range tokens {
		b.WriteByte('/')
		b.WriteString(EscapeToken(t))
	}
	return b.String()
}

var unescaper = strings.NewReplacer("~1", "/", "~0", "~")

// EscapeToken escapes one reference token: "~" becomes "~0" and "/" becomes "~1".
func EscapeToken(token string) string { return jsontext.EscapeToken(token) }

// UnescapeToken reverses EscapeToken. A "~" not followed by "0" or "1" is
// ErrInvalidPointer, as is a "/" (which separates tokens).
func UnescapeToken(token string) (string, error) {
	if strings.IndexByte(token, '/') >= 0 {
		return "", errorf(ErrInvalidPointer, "token %q contains an unescaped \"/\" (write it as \"~1\")", token)
	}
	if err := checkTildes(token, token); err != nil {
		return "", err
	}
	return unescape(token), nil
}

func unescape(t string) string {
	if strings.IndexByte(t, '~') < 0 {
		return t
	}
	return unescaper.Replace(t)
}

// checkPointer validates RFC 6901 syntax without allocating.
func checkPointer(p string) error {
	if p == "" {
		return nil
	}
	if p[0] != '/' {
		return errorf(ErrInvalidPointer, "%q must be \"\" (the whole document) or start with \"/\" (did you mean %q?)", p, "/"+p)
	}
	return checkTildes(p, p)
}

func checkTildes(s, whole string) error {
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			continue
		}
		if i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return errorf(ErrInvalidPointer, "%q has a \"~\" at byte %d not followed by \"0\" or \"1\" (write \"~\" as \"~0\" and \"/\" as \"~1\")", whole, i)
		}
		i++
	}
	return nil
}

// Get returns the value doc holds at pointer, as a copy of its bytes. It
// reads without decoding the rest of the document. Errors: ErrInvalidDocument,
// ErrInvalidPointer, ErrPathNotFound, ErrInvalidIndex. Negative indices are
// not accepted.
func Get(doc []byte, pointer string) (json.RawMessage, error) {
	tokens, err := ParsePointer(pointer)
	if err != nil {
		return nil, err
	}
	d, err := checkDocument(doc)
	if err != nil {
		return nil, err
	}
	loc, err := resolve(d, nil, tokens, false)
	if err != nil {
		return nil, err
	}
	v := d[loc.start:loc.end]
	out := make(json.RawMessage, len(v))
	copy(out, v)
	return out, nil
}

// checkDocument trims insignificant whitespace and checks doc is one JSON value.
func checkDocument(doc []byte) ([]byte, error) {
	d := trimSpace(doc)
	if len(d) == 0 {
		return nil, errorf(ErrInvalidDocument, "the document is empty; a JSON document needs at least one value such as {} or []")
	}
	if !utf8.Valid(d) {
		return nil, errUTF8(d, ErrInvalidDocument)
	}
	if !validJSON(d) {
		var v any
		err := json.Unmarshal(d, &v)
		if err == nil {
			return nil, errorf(ErrInvalidDocument, "not valid JSON")
		}
		return nil, errorf(ErrInvalidDocument, "not valid JSON: %v", err)
	}
	return d, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	return b
}

// errUTF8 reports where b stops being UTF-8, which RFC 8259 requires.
func errUTF8(b []byte, sentinel error) error {
	off := 0
	for off < len(b) {
		r, n := utf8.DecodeRune(b[off:])
		if r == utf8.RuneError && n == 1 {
			break
		}
		off += n
	}
	return errorf(sentinel, "not valid UTF-8 at byte %d; JSON text must be UTF-8 (RFC 8259)", off)
}
