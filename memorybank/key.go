package memorybank

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Limits on keys, chosen so that every valid key is also a valid relative
// file path on the common file systems (ext4, APFS, NTFS all cap a name at
// 255 bytes or units).
const (
	// MaxKeyLen is the maximum length of a key in bytes.
	MaxKeyLen = 1024
	// MaxSegmentLen is the maximum length of one slash-separated segment in bytes.
	MaxSegmentLen = 255
)

// KeyError reports why a key was rejected. It wraps ErrInvalidKey.
type KeyError struct {
	Key    string // the rejected key, as given
	Reason string // what is wrong with it, e.g. `segment ".." is not allowed`
}

func (e *KeyError) Error() string {
	return fmt.Sprintf("%s %q: %s; a key is a relative slash-separated path such as \"global-memory-bank/notes.md\"",
		ErrInvalidKey.Error(), e.Key, e.Reason)
}

// Unwrap returns ErrInvalidKey.
func (e *KeyError) Unwrap() error { return ErrInvalidKey }

// ValidateKey reports whether key is a valid Store key. It returns nil or a
// *KeyError wrapping ErrInvalidKey whose Reason says what is wrong.
//
// A valid key is a non-empty, slash-separated, relative path in valid UTF-8,
// at most MaxKeyLen bytes, whose segments are each non-empty and at most
// MaxSegmentLen bytes. Rejected are: a leading or trailing slash, empty
// segments ("a//b"), "." and ".." segments, backslashes, control characters
// (including NUL), the characters < > : " | ? * that Windows forbids in file
// names, Windows device names (CON, PRN, AUX, NUL, CONIN$, CONOUT$,
// COM0-COM9, LPT0-LPT9, in any case and with any extension, such as
// "nul.txt"), and segments ending in
// a dot or a space, which Windows silently strips (so "a." and "a" would be
// the same file there).
//
// The rules make every valid key a safe file path on every common operating
// system, so a store that maps keys to files (such as fsstore) can do so
// directly, and a memory bank written on one system can be copied to another.
// ValidateKey is pure and cheap; every Store implementation calls it.
func ValidateKey(key string) error {
	if reason := keyProblem(key); reason != "" {
		return &KeyError{Key: key, Reason: reason}
	}
	return nil
}

// ValidatePath reports whether p is a valid document path: a valid key
// (ValidateKey) none of whose segments starts with "." (the Bank keeps such
// names for its own records). It returns nil or an error wrapping
// ErrInvalidPath that says what is wrong. Every method taking a path checks
// it this way first; ValidatePath lets a caller check paths it will write
// later, such as the paths of a plan. A bank also refuses (ErrInvalidPath)
// a path whose key, the bank's prefix followed by the path, would be over
// MaxKeyLen bytes: over 1005 bytes in the global bank.
func ValidatePath(p string) error { return validatePath(p) }

func keyProblem(key string) string {
	switch {
	case key == "":
		return "key is empty"
	case len(key) > MaxKeyLen:
		return fmt.Sprintf("key is %d bytes long, the maximum is %d", len(key), MaxKeyLen)
	case key[0] == '/':
		return "key is absolute (starts with a slash); remove the leading slash"
	case key[len(key)-1] == '/':
		return "key ends with a slash; a key names a document, not a directory"
	}
	// One pass, no allocation on the happy path: keys are validated on
	// every Store call.
	segStart := 0
	for i := 0; i < len(key); {
		c := key[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(key[i:])
			if r == utf8.RuneError && size == 1 {
				return fmt.Sprintf("key is not valid UTF-8 (byte %#x at byte %d)", c, i)
			}
			if unicode.IsControl(r) {
				return fmt.Sprintf("control character %U at byte %d", r, i)
			}
			i += size
			continue
		}
		if asciiPlain[c] {
			i++
			continue
		}
		switch {
		case c == '/':
			if reason := segmentProblem(key[segStart:i]); reason != "" {
				return reason
			}
			segStart = i + 1
		case c == '\\':
			return fmt.Sprintf("backslash at byte %d; separate segments with a forward slash", i)
		case c < 0x20 || c == 0x7f:
			return fmt.Sprintf("control character %U at byte %d", rune(c), i)
		case strings.IndexByte(`<>:"|?*`, c) >= 0:
			return fmt.Sprintf("character %q at byte %d is reserved on Windows (reserved: < > : \" | ? *)", c, i)
		}
		i++
	}
	return segmentProblem(key[segStart:])
}

// asciiPlain marks the ASCII bytes that need no further check in a key.
var asciiPlain = func() (t [utf8.RuneSelf]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = !strings.ContainsRune(`/\<>:"|?*`, rune(c))
	}
	return t
}()

func segmentProblem(seg string) string {
	switch {
	case seg == "":
		return "empty segment (two slashes in a row)"
	case seg == "." || seg == "..":
		return fmt.Sprintf("segment %q is not allowed", seg)
	case len(seg) > MaxSegmentLen:
		return fmt.Sprintf("segment %.20q... is %d bytes long, the maximum is %d", seg, len(seg), MaxSegmentLen)
	case seg[len(seg)-1] == '.' || seg[len(seg)-1] == ' ':
		return fmt.Sprintf("segment %q ends with a dot or space, which Windows strips", seg)
	}
	if isWindowsDeviceName(seg) {
		return fmt.Sprintf("segment %q is a reserved device name on Windows (CON, PRN, AUX, NUL, CONIN$, CONOUT$, COM0-9, LPT0-9, with or without an extension)", seg)
	}
	return ""
}

// isWindowsDeviceName reports whether seg names a DOS device: the part
// before the first dot, without trailing spaces, is one of the reserved names
// (Windows treats "nul.txt" and "CON .md" as the device too).
func isWindowsDeviceName(seg string) bool {
	base, _, _ := strings.Cut(seg, ".")
	base = strings.TrimRight(base, " ")
	switch len(base) {
	case 3, 6, 7:
		for _, name := range []string{"CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$"} {
			if strings.EqualFold(base, name) {
				return true
			}
		}
		return false
	case 4, 5: // COM0, LPT9, and COM¹ (superscript digits are 2 bytes)
		if !strings.EqualFold(base[:3], "COM") && !strings.EqualFold(base[:3], "LPT") {
			return false
		}
		switch base[3:] {
		case "0", "1", "2", "3", "4", "5", "6", "7", "8", "9", "¹", "²", "³":
			return true
		}
	}
	return false
}
