package claudememory

import (
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Root is the directory the memory tool's paths live in.
const Root = "/memories"

// resolve turns a path as the model gives it ("/memories/notes.md") into
// the path Files uses ("notes.md"; "" for /memories itself), or a
// *ToolError saying what is wrong with it. Nothing is normalised: a path
// with "." or ".." segments, doubled slashes or percent-encoded separators
// is refused, so one file has one name and no name reaches outside the root.
func (h *Handler) resolve(cmd, p string) (string, error) {
	bad := func(sentinel error, format string, args ...any) error {
		return &ToolError{Command: cmd, Path: p, Err: sentinel, Text: fmt.Sprintf(format, args...)}
	}
	if len(p) > len(Root)+1+h.opts.MaxPathBytes {
		return "", bad(ErrLimit, "The path %.60s... is %d bytes long; paths under /memories are at most %d bytes after the /memories/ prefix.",
			p, len(p), h.opts.MaxPathBytes)
	}
	if p == Root || p == Root+"/" {
		return "", nil
	}
	rest, ok := strings.CutPrefix(p, Root+"/")
	if !ok {
		if strings.HasPrefix(p, Root) {
			return "", bad(ErrInvalidPath, "The path %s is outside /memories; memory paths look like /memories/notes.md.", p)
		}
		// Worded as the reference backends word it.
		return "", bad(ErrInvalidPath, "Path must start with /memories, got: %s", p)
	}
	rest = strings.TrimSuffix(rest, "/") // "/memories/dir/" names the directory
	lower := strings.ToLower(rest)
	for _, enc := range []string{"%2e", "%2f", "%5c", "%25", "%00"} {
		if strings.Contains(lower, enc) {
			return "", bad(ErrInvalidPath, "The path %s contains the percent-encoded character %q; paths are taken literally, so write names without percent-encoding.", p, enc)
		}
	}
	for _, seg := range strings.Split(rest, "/") {
		if seg == "" {
			return "", bad(ErrInvalidPath, "The path %s has an empty segment (two slashes in a row); write each directory name once, between single slashes.", p)
		}
		if seg == "." || seg == ".." {
			clean := path.Clean(Root + "/" + rest)
			if clean != Root && !strings.HasPrefix(clean, Root+"/") {
				// Worded as the reference backends word it.
				return "", bad(ErrInvalidPath, "Path %s would escape /memories directory", p)
			}
			return "", bad(ErrInvalidPath, "The path %s contains a %q segment; give it without . or .. segments, as %s.", p, seg, clean)
		}
		if dotsOnly(seg) {
			return "", bad(ErrInvalidPath, "The path %s contains the segment %q, which some systems read as . or ..; choose another name.", p, seg)
		}
		if strings.HasPrefix(seg, ".") {
			return "", bad(ErrInvalidPath, "The path %s names the hidden entry %q; names starting with a dot are not kept in /memories.", p, seg)
		}
	}
	if err := memorybank.ValidateKey(rest); err != nil {
		reason := err.Error()
		if ke := (*memorybank.KeyError)(nil); errors.As(err, &ke) {
			reason = ke.Reason
		}
		return "", bad(ErrInvalidPath, "The path %s is not allowed: %s.", p, reason)
	}
	return rest, nil
}

// dotsOnly reports whether seg is made only of dots, counting the Unicode
// look-alikes some file systems and normalisers fold into "." (so "．．" is
// refused like "..").
func dotsOnly(seg string) bool {
	if seg == "" {
		return false
	}
	for _, r := range seg {
		switch r {
		case '.', '\uff0e', '\u2024', '\ufe52', '\u3002', '\uff61':
		default:
			return false
		}
	}
	return true
}

// display is the model-facing name of a Files path.
func display(rel string) string {
	if rel == "" {
		return Root
	}
	return Root + "/" + rel
}

// dirPrefix is the List prefix of the directory rel.
func dirPrefix(rel string) string {
	if rel == "" {
		return ""
	}
	return rel + "/"
}
