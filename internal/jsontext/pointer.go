package jsontext

import "strings"

var (
	escaper   = strings.NewReplacer("~", "~0", "/", "~1")
	unescaper = strings.NewReplacer("~1", "/", "~0", "~")
)

// EscapeToken escapes one reference token of a JSON Pointer (RFC 6901):
// "~" becomes "~0" and "/" becomes "~1".
func EscapeToken(token string) string {
	if !strings.ContainsAny(token, "~/") {
		return token
	}
	return escaper.Replace(token)
}

// UnescapeToken reverses EscapeToken. It reports false for a "~" not
// followed by "0" or "1", or a "/" (which separates tokens).
func UnescapeToken(token string) (string, bool) {
	if strings.IndexByte(token, '/') >= 0 || !validTildes(token) {
		return "", false
	}
	if strings.IndexByte(token, '~') < 0 {
		return token, true
	}
	return unescaper.Replace(token), true
}

// SplitPointer splits a JSON Pointer into its unescaped tokens: "" (the
// whole document) gives none, "/" one empty token. It reports false for a
// pointer that does not start with "/" or holds a bad "~" escape.
func SplitPointer(ptr string) ([]string, bool) {
	if ptr == "" {
		return nil, true
	}
	if ptr[0] != '/' || !validTildes(ptr) {
		return nil, false
	}
	parts := strings.Split(ptr[1:], "/")
	for i, p := range parts {
		if strings.IndexByte(p, '~') >= 0 {
			parts[i] = unescaper.Replace(p)
		}
	}
	return parts, true
}

func validTildes(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] != '~' {
			continue
		}
		if i+1 >= len(s) || (s[i+1] != '0' && s[i+1] != '1') {
			return false
		}
		i++
	}
	return true
}
