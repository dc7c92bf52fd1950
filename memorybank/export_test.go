package memorybank

import "github.com/mnemobank/mnemobank/memorybank/internal/codec"

// IndexCount returns how many bank indexes b holds, to show the map stays
// bounded.
func IndexCount(b *Bank) int {
	b.mu.Lock()
	defer b.mu.Unlock()
	return len(b.catalogs)
}

// TextVersion is the version of a text document without front matter.
var TextVersion = codec.TextVersion

// Names only the tests use.
var (
	RulesPath        = rulesPath
	ContentSchemaFor = codec.ContentSchemaFor
	SchemaNames      = codec.SchemaNames
	Template         = coreTemplate
)
