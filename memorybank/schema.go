package memorybank

import (
	"encoding/json"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// Schema names. SchemaEnvelope validates whole documents; the others
// validate the "content" of JSON documents by metadata.documentType.
const (
	// SchemaV2 is the value of "schema" in every document the Bank writes.
	SchemaV2             = codec.SchemaV2
	SchemaEnvelope       = codec.SchemaEnvelope
	SchemaBranchContext  = codec.SchemaBranchContext
	SchemaActiveContext  = codec.SchemaActiveContext
	SchemaProgress       = codec.SchemaProgress
	SchemaSystemPatterns = codec.SchemaSystemPatterns
	SchemaGeneric        = codec.SchemaGeneric
)

// Schema returns the text of an embedded JSON Schema (draft-07), for hosts
// that hand it to a language model. ok is false for an unknown name.
func Schema(name string) (schema json.RawMessage, ok bool) { return codec.Schema(name) }
