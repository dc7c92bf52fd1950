package memorybank

import (
	"encoding/json"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// Schema names. SchemaEnvelope validates whole documents; the others
// validate the "content" of JSON documents by metadata.documentType.
const (
	// SchemaV2 is the value of "schema" in every document the Bank writes.
	SchemaV2             = "memory_document_v2"
	SchemaEnvelope       = "envelope"
	SchemaBranchContext  = "branch_context"
	SchemaActiveContext  = "active_context"
	SchemaProgress       = "progress"
	SchemaSystemPatterns = "system_patterns"
	SchemaGeneric        = "generic"
)

// Schema returns the text of an embedded JSON Schema (draft-07), for hosts
// that hand it to a language model. ok is false for an unknown name.
func Schema(name string) (schema json.RawMessage, ok bool) { return codec.Schema(name) }
