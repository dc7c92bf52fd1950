package main

import (
	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// errorSchema is the structured content of a failed call: the
// tools.Error.
var errorSchema = &jsonschema.Schema{
	Type:     "object",
	Required: []string{"code", "message"},
	Properties: map[string]*jsonschema.Schema{
		"code":    {Type: "string", Description: "NOT_FOUND, INVALID_ARGUMENT, INVALID_PATCH, PATCH_TEST_FAILED, CONFLICT, VALIDATION_FAILED, LIMIT_EXCEEDED or INTERNAL."},
		"message": {Type: "string", Description: "What was wrong and how to fix the call."},
		"details": {Type: "object", Description: "The facts: problems, the current version, the documents that exist, ..."},
	},
	AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
}

// orError is the output schema of a tool whose result is described by s:
// a result, or (with isError set) the error. Clients check the structured
// content of failed calls against the output schema too.
func orError(s *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "object", AnyOf: []*jsonschema.Schema{s, errorSchema}}
}

// bankOutputSchemas returns the output schemas of the memory bank tools,
// inferred from the memorybank types their results marshal, so they say
// what the tools return. The top-level objects stay open: the server adds
// branchFromRoots to a result whose branch came from the client's roots.
func bankOutputSchemas() map[string]*jsonschema.Schema {
	must := func(s *jsonschema.Schema, err error) *jsonschema.Schema {
		if err != nil {
			panic("output schema: " + err.Error())
		}
		return s
	}
	open := func(s *jsonschema.Schema) *jsonschema.Schema {
		s.Types, s.Type = nil, "object"
		s.AdditionalProperties = nil
		return s
	}
	object := func(required []string, props map[string]*jsonschema.Schema) *jsonschema.Schema {
		return &jsonschema.Schema{Type: "object", Required: required, Properties: props}
	}
	str := &jsonschema.Schema{Type: "string"}

	write := open(must(jsonschema.For[memorybank.WriteResult](schemaOptions)))
	write.Properties["document"] = must(jsonschema.For[memorybank.Document](schemaOptions))
	read := open(must(jsonschema.For[memorybank.Document](schemaOptions)))
	m := map[string]*jsonschema.Schema{
		tools.WriteBranchMemoryBank: write,
		tools.WriteGlobalMemoryBank: write,
		tools.ReadBranchMemoryBank:  read,
		tools.ReadGlobalMemoryBank:  read,
		tools.ReadContext:           open(must(jsonschema.For[memorybank.ReadContextResult](schemaOptions))),
		tools.ReadRules:             object([]string{"language", "content"}, map[string]*jsonschema.Schema{"language": str, "content": str}),
		tools.SearchDocumentsByTags: object([]string{"documents"}, map[string]*jsonschema.Schema{
			"documents": {Type: "array", Items: must(jsonschema.For[memorybank.SearchHit](schemaOptions))},
		}),
		tools.ListDocuments: object([]string{"scope", "documents"}, map[string]*jsonschema.Schema{
			"scope":     str,
			"branch":    str,
			"documents": {Type: "array", Items: must(jsonschema.For[memorybank.ListEntry](schemaOptions))},
		}),
		tools.DeleteDocument: object([]string{"deleted", "scope", "path"}, map[string]*jsonschema.Schema{
			"deleted": {Type: "boolean"}, "scope": str, "branch": str, "path": str,
		}),
		tools.DocumentHistory: object([]string{"entries"}, map[string]*jsonschema.Schema{
			"entries": {Type: "array", Items: object([]string{"version", "time", "patch"}, map[string]*jsonschema.Schema{
				"version": {Type: "integer"}, "time": str, "actor": str, "reason": str, "deleted": {Type: "boolean"},
				"patch": {Type: "array", Items: &jsonschema.Schema{Type: "object"}}, "note": str,
			})},
		}),
		tools.RevertDocument: write,
		tools.SearchDocuments: object([]string{"results"}, map[string]*jsonschema.Schema{
			"results": {Type: "array", Items: must(jsonschema.For[memorybank.TextHit](schemaOptions))},
		}),
	}
	for name, s := range m {
		m[name] = orError(s)
	}
	return m
}
