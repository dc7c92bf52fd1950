package codec

import (
	"bytes"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/xeipuuv/gojsonschema"

	"github.com/mnemobank/mnemobank/memorybank/internal/pointer"
)

//go:embed schemas/*.json
var schemaFS embed.FS

// Schema names. SchemaEnvelope validates whole documents; the others
// validate the "content" of JSON documents by metadata.documentType
// (ContentSchemaFor).
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

var schemaNames = []string{SchemaEnvelope, SchemaBranchContext, SchemaActiveContext, SchemaProgress, SchemaSystemPatterns, SchemaGeneric}

// SchemaNames lists the embedded JSON Schemas (draft-07).
func SchemaNames() []string { return slices.Clone(schemaNames) }

// Problem is one schema violation (memorybank.Problem has the same fields).
type Problem struct {
	Pointer string
	Message string
}

// SchemaError lists the problems that refuse a document under the schema
// it names; the Bank reports it as a memorybank.ValidationError.
type SchemaError struct {
	Schema   string
	Problems []Problem
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("schema %s: %d problems", e.Schema, len(e.Problems))
}

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

// validationError reports problems; when the envelope has some, only those
// (the content's follow once the envelope is right).
func (e *Envelope) validationError(name string, problems []Problem) *SchemaError {
	if name == SchemaEnvelope && e.Format == FormatJSON {
		env := make([]Problem, 0, len(problems))
		for _, p := range problems {
			if !strings.HasPrefix(p.Pointer, "/content/") {
				env = append(env, p)
			}
		}
		if len(env) > 0 {
			problems = env
		}
	}
	return &SchemaError{Schema: name, Problems: problems}
}

// SealKeeping validates the envelope a write over the stored document old
// (nil for a new one) is about to store and returns its stored form: a result may keep problems old already had (a document that
// breaks its schema stays writable) but not add any. It returns the stored
// form and the problems it keeps; a new problem is a *SchemaError
// naming only the new ones. A value nested deeper than MaxDepth is a
// *DepthError, and a stored form longer than maxBytes (> 0) a *SizeError,
// each returned as soon as the parse gets there, before the rest expands.
func (e *Envelope) SealKeeping(old *Envelope, maxBytes int) ([]byte, []Problem, error) {
	data, problems, name, err := e.sealProblems(maxBytes)
	if err != nil || len(problems) == 0 {
		return data, nil, err
	}
	had := map[Problem]bool{}
	if old != nil {
		_, oldProblems, _, oerr := old.sealProblems(maxBytes)
		var de *DepthError
		var se *SizeError
		if oerr != nil && !errors.As(oerr, &de) && !errors.As(oerr, &se) {
			return nil, nil, oerr
		}
		// A stored document over a limit keeps no problems: the write's
		// are all new.
		for _, p := range oldProblems {
			had[p] = true
		}
	}
	var added []Problem
	for _, p := range problems {
		if !had[p] {
			added = append(added, p)
		}
	}
	if len(added) > 0 || data == nil {
		if len(added) == 0 {
			added = problems
		}
		return nil, nil, e.validationError(name, added)
	}
	return data, problems, nil
}

// sealProblems validates an envelope and returns its stored form and its
// problems, sorted by pointer, under the schema named name. data is nil
// when a value could not be decoded (so there is no stored form). Each
// value is decoded once (Parse), for the schemas and, in the same
// pass, written as stored: the envelope schema checks the whole envelope
// with a stub for the content, then, for a JSON document, the content
// schema of its documentType checks the content.
func (e *Envelope) sealProblems(maxBytes int) (data []byte, problems []Problem, name string, err error) {
	isJSON := e.Format == FormatJSON
	var out []byte
	if isJSON {
		hint := len(e.Content) + len(e.Content)/2
		if maxBytes > 0 {
			hint = min(hint, maxBytes)
		}
		out = make([]byte, 0, hint+512)
		out = append(out, "{\n  \"schema\": "...)
	}
	var limitErr error // a limit reached: no further value is decoded
	decode := func(ptr string, raw json.RawMessage) any {
		if limitErr != nil {
			return nil
		}
		v, next, err := Parse(raw, 1, out, maxBytes)
		var de *DepthError
		var se *SizeError
		if errors.As(err, &de) || errors.As(err, &se) {
			limitErr = err
			return nil
		}
		if de, ok := err.(*DuplicateError); ok {
			problems = append(problems, DuplicateProblem(ptr+de.Pointer, de.Name, "keep the value you mean and resend"))
			return nil
		}
		if err != nil {
			problems = append(problems, Problem{Pointer: ptr, Message: "not valid JSON: " + err.Error()})
			return nil
		}
		if isJSON {
			out = next
		} else {
			out = out[:0]
		}
		return v
	}
	env := map[string]any{"schema": decode("/schema", e.Schema)}
	if isJSON {
		out = append(out, ",\n  \"metadata\": "...)
	}
	env["metadata"] = decode("/metadata", e.CanonicalMeta())
	var content any
	if c := bytes.TrimSpace(e.Content); len(c) > 0 {
		if isJSON {
			out = append(out, ",\n  \"content\": "...)
			content = decode("/content", c)
		}
		switch c[0] {
		case '{':
			env["content"] = map[string]any{}
		case '"':
			env["content"] = ""
		default:
			if !isJSON {
				content = decode("/content", c)
			}
			env["content"] = content
		}
	}
	for _, k := range sortedKeys(e.Extra) {
		if isJSON {
			out = append(out, ",\n  "...)
			out = append(out, RawString(k)...)
			out = append(out, ": "...)
		}
		env[k] = decode("/"+pointer.Escape(k), e.Extra[k])
	}
	if limitErr != nil {
		return nil, nil, "", limitErr
	}
	decoded := len(problems) == 0
	if decoded {
		if problems, err = validateValue(SchemaEnvelope, env, ""); err != nil {
			return nil, nil, "", err
		}
		problems = append(problems, tagProblems(env["metadata"])...)
	}
	envelopeOK := len(problems) == 0
	name = SchemaEnvelope
	if !isJSON {
		if _, ok := e.Text(); !ok {
			problems = append(problems, Problem{Pointer: "/content", Message: "must be a string: the text of a " + e.Path + " document"})
		}
		for k := range e.Extra {
			problems = append(problems, Problem{Pointer: "/" + pointer.Escape(k), Message: "a text document holds only schema, metadata and content; put extra fields in metadata"})
		}
	} else if decoded {
		// The content is checked even when the envelope has problems, so
		// that a write is compared with its stored document on all of them.
		dt, _ := e.Str("documentType")
		cname := ContentSchemaFor(dt)
		cp, err := validateValue(cname, content, "/content")
		if err != nil {
			return nil, nil, "", err
		}
		if envelopeOK {
			name = cname
		}
		problems = append(problems, cp...)
	}
	slices.SortStableFunc(problems, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
	if !decoded {
		return nil, problems, name, nil
	}
	if !isJSON {
		if e.Bare {
			// Stored as bare text: the result shows what a read will
			// (no id or createdAt; lastModified from the store).
			delete(e.Meta, "id")
			delete(e.Meta, "createdAt")
			delete(e.Meta, "lastModified")
		}
		return EncodeText(e), problems, name, nil
	}
	return append(out, "\n}\n"...), problems, name, nil
}

func validateValue(name string, doc any, prefix string) ([]Problem, error) {
	s, err := compiledSchema(name)
	if err != nil {
		return nil, err
	}
	res, err := s.Validate(gojsonschema.NewRawLoader(doc))
	if err != nil {
		return []Problem{{Pointer: prefix, Message: "cannot validate: " + err.Error()}}, nil
	}
	var out []Problem
	for _, re := range res.Errors() {
		ptr := prefix + pointer.FromContext(re.Context())
		if re.Type() == "required" {
			if prop, ok := re.Details()["property"].(string); ok {
				ptr += "/" + pointer.Escape(prop)
			}
		}
		out = append(out, Problem{Pointer: ptr, Message: re.Description()})
	}
	return out, nil
}

// DuplicateProblem describes a duplicate member at ptr for a ValidationError.
func DuplicateProblem(ptr, name, fix string) Problem {
	return Problem{Pointer: ptr, Message: fmt.Sprintf("member %q appears more than once in this object; an object holds each name once: %s", name, fix)}
}

// tagProblems refuses tags that are not single-line text: a tag holding a
// line break or another control character could add lines to a Markdown
// body (its "tags: #a" line) or to front matter.
func tagProblems(meta any) []Problem {
	m, _ := meta.(map[string]any)
	tags, _ := m["tags"].([]any)
	var out []Problem
	for i, t := range tags {
		s, ok := t.(string)
		if !ok {
			continue // the schema reports it
		}
		if j := strings.IndexFunc(s, func(r rune) bool { return unicode.IsControl(r) || r == '\u2028' || r == '\u2029' }); j >= 0 {
			r, _ := utf8.DecodeRuneInString(s[j:])
			out = append(out, Problem{Pointer: fmt.Sprintf("/metadata/tags/%d", i),
				Message: fmt.Sprintf("tag %q holds the control character %U; a tag is one line of text such as \"design\"", s, r)})
		}
	}
	return out
}
