package docpath

import (
	"strings"
	"unicode/utf8"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"
)

// Fold is the form two names share when a case-insensitive,
// normalisation-insensitive file system (macOS, Windows) would take them
// for one: Unicode case folding, then NFC.
//
// It differs on purpose from the search fold (internal/textsearch Fold,
// NFKC and case folding): it says which paths a file system stores as one
// file, and those file systems keep compatibility characters apart ("ﬁ"
// and "fi", "①" and "1", full-width and ASCII letters are different
// files), so folding them here would refuse paths that can coexist. Search
// wants the opposite: any form a user may type finds the word.
func Fold(s string) string {
	ascii := true
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if ascii {
		return strings.ToLower(s)
	}
	return norm.NFC.String(cases.Fold().String(norm.NFC.String(s)))
}

// Collision is how two distinct document paths of one bank collide.
type Collision int

const (
	// NoCollision: both can be documents at once, on every file system.
	NoCollision Collision = iota
	// SameFile: they differ only by letter case or Unicode normalisation,
	// so macOS and Windows would store them as one file.
	SameFile
	// UnderDocument: the first would put a document under the second,
	// which is a document, not a folder.
	UnderDocument
	// OverDocuments: the first is a folder holding the second, so it
	// cannot also be a document.
	OverDocuments
)

// Collide reports how documents at paths a and b (a != b) collide, given
// their folded forms fa = Fold(a) and fb = Fold(b).
func Collide(fa, fb string) Collision {
	switch {
	case fa == fb:
		return SameFile
	case strings.HasPrefix(fa, fb+"/"):
		return UnderDocument
	case strings.HasPrefix(fb, fa+"/"):
		return OverDocuments
	}
	return NoCollision
}
