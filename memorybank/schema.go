package memorybank

import (
	"bytes"
	"embed"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"
)

//go:embed schemas/*.json
var schemaFS embed.FS

// Schema names. SchemaEnvelope validates whole documents; the others
// validate the "content" of JSON documents by metadata.documentType
// (ContentSchemaFor).
const (
	SchemaEnvelope       = "envelope"
	SchemaBranchContext  = "branch_context"
	SchemaActiveContext  = "active_context"
	SchemaProgress       = "progress"
	SchemaSystemPatterns = "system_patterns"
	SchemaGeneric        = "generic"
)

var schemaNames = []string{SchemaEnvelope, SchemaBranchContext, SchemaActiveContext, SchemaProgress, SchemaSystemPatterns, SchemaGeneric}

// SchemaNames lists the embedded JSON Schemas (draft-07).
func SchemaNames() []string { return slices.Clone(schemaNames) }

// Schema returns the text of an embedded JSON Schema (draft-07), for hosts
// that hand it to a language model. ok is false for an unknown name.
func Schema(name string) (schema json.RawMessage, ok bool) {
	if !slices.Contains(schemaNames, name) {
		return nil, false
	}
	b, err := schemaFS.ReadFile("schemas/" + name + ".json")
	if err != nil {
		return nil, false
	}
	return b, true
}

// ContentSchemaFor returns the name of the schema that validates the
// content of a JSON document of the given documentType: the type itself for
// the four core types, SchemaGeneric for every other.
func ContentSchemaFor(documentType string) string {
	switch documentType {
	case SchemaBranchContext, SchemaActiveContext, SchemaProgress, SchemaSystemPatterns:
		return documentType
	}
	return SchemaGeneric
}

var (
	compileOnce sync.Once
	compiled    map[string]*gojsonschema.Schema
	compileErr  error
)

func compiledSchema(name string) (*gojsonschema.Schema, error) {
	compileOnce.Do(func() {
		compiled = map[string]*gojsonschema.Schema{}
		for _, n := range schemaNames {
			text, _ := Schema(n)
			s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(text))
			if err != nil {
				compileErr = fmt.Errorf("memorybank: embedded schema %s: %w", n, err)
				return
			}
			compiled[n] = s
		}
	})
	if compileErr != nil {
		return nil, compileErr
	}
	return compiled[name], nil
}

// validateDocument checks a canonical envelope against the envelope schema
// and, for JSON documents, its content against the schema of its type.
func validateDocument(p string, format Format, e *envelope) error {
	// The envelope schema sees the content only as "an object" or "a
	// string": a stub stands in for it, so a large document is decoded by
	// the validator once, for its content schema.
	content := e.top["content"]
	stub := envelope{top: maps.Clone(e.top), meta: e.meta}
	if c := bytes.TrimSpace(content); len(c) > 0 && (c[0] == '{' || c[0] == '"') {
		if c[0] == '{' {
			stub.top["content"] = json.RawMessage(`{}`)
		} else {
			stub.top["content"] = json.RawMessage(`""`)
		}
	}
	problems, err := validateWith(SchemaEnvelope, stub.canonical(), "")
	if err != nil {
		return err
	}
	name := SchemaEnvelope
	if format == FormatText {
		var s string
		if json.Unmarshal(content, &s) != nil {
			problems = append(problems, Problem{Pointer: "/content", Message: "must be a string: the text of a " + p + " document"})
		}
		for k := range e.top {
			if k != "schema" && k != "content" {
				problems = append(problems, Problem{Pointer: "/" + escapePointer(k), Message: "a text document holds only schema, metadata and content; put extra fields in metadata"})
			}
		}
	} else if len(problems) == 0 {
		dt, _ := e.str("documentType")
		name = ContentSchemaFor(dt)
		problems, err = validateWith(name, content, "/content")
		if err != nil {
			return err
		}
	}
	if len(problems) == 0 {
		return nil
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	return &ValidationError{Path: p, Schema: name, Problems: problems}
}

func validateWith(name string, doc []byte, prefix string) ([]Problem, error) {
	s, err := compiledSchema(name)
	if err != nil {
		return nil, err
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(doc))
	if err != nil {
		return []Problem{{Pointer: prefix, Message: "not valid JSON: " + err.Error()}}, nil
	}
	var out []Problem
	for _, re := range res.Errors() {
		ptr := prefix + pointerOf(re.Context())
		if re.Type() == "required" {
			if prop, ok := re.Details()["property"].(string); ok {
				ptr += "/" + escapePointer(prop)
			}
		}
		out = append(out, Problem{Pointer: ptr, Message: re.Description()})
	}
	return out, nil
}

// pointerOf turns gojsonschema's context "(root).a.0.b" into "/a/0/b",
// splitting on a separator that cannot occur in keys so dotted keys survive.
func pointerOf(ctx *gojsonschema.JsonContext) string {
	if ctx == nil {
		return ""
	}
	parts := strings.Split(ctx.String("\x00"), "\x00")
	var b strings.Builder
	for _, p := range parts[1:] { // parts[0] is "(root)"
		b.WriteString("/" + escapePointer(p))
	}
	return b.String()
}

func escapePointer(s string) string {
	return strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")
}
