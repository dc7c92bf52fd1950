// Package docpath holds the rule that tells a memory bank's JSON documents
// from its text documents by their path.
package docpath

import "strings"

// IsJSON reports whether p names a JSON document: its path ends in ".json",
// in any case. Every other path names a text document.
func IsJSON(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".json") }
