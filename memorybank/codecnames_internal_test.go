package memorybank

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// The exported names spell out their values for readers of the
// documentation; the codec, which validates and stores documents by them,
// must use the same.
func TestExportedNamesAreTheCodecs(t *testing.T) {
	for exported, internal := range map[string]string{
		SchemaV2: codec.SchemaV2, SchemaEnvelope: codec.SchemaEnvelope, SchemaBranchContext: codec.SchemaBranchContext,
		SchemaActiveContext: codec.SchemaActiveContext, SchemaProgress: codec.SchemaProgress,
		SchemaSystemPatterns: codec.SchemaSystemPatterns, SchemaGeneric: codec.SchemaGeneric,
		string(FormatJSON): string(codec.FormatJSON), string(FormatText): string(codec.FormatText),
	} {
		assert.Equal(t, exported, internal)
	}
}
