package consolidate

import (
	"strings"
	"unicode"

	"github.com/mnemobank/mnemobank/memories"
)

// differs returns the words of a that b lacks and those of b that a lacks,
// in order of first appearance, compared folded: the parts on which two
// entries about one subject disagree.
func differs(a, b string) (onlyA, onlyB []string) {
	wa, wb := words(a), words(b)
	fa, fb := foldAll(wa), foldAll(wb)
	in := func(fs []string) map[string]bool {
		s := make(map[string]bool, len(fs))
		for _, f := range fs {
			s[f] = true
		}
		return s
	}
	sa, sb := in(fa), in(fb)
	pick := func(ws, fs []string, other map[string]bool) []string {
		out := []string{}
		seen := map[string]bool{}
		for k, w := range ws {
			if f := fs[k]; !other[f] && !seen[f] {
				seen[f] = true
				out = append(out, w)
			}
		}
		return out
	}
	return pick(wa, fa, sb), pick(wb, fb, sa)
}

// foldAll folds each word.
func foldAll(ws []string) []string {
	out := make([]string, len(ws))
	for k, w := range ws {
		out[k] = memories.Fold(w)
	}
	return out
}

// words splits s into words, keeping dotted, dashed and slashed tokens
// (v1.2, make-itest, cmd/x) whole but for trailing punctuation.
func words(s string) []string {
	ws := strings.FieldsFunc(s, func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r) && r != '.' && r != '_' && r != '-' && r != '/'
	})
	out := ws[:0]
	for _, w := range ws {
		if w = strings.TrimRight(w, "./-"); w != "" {
			out = append(out, w)
		}
	}
	return out
}
