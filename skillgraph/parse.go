package skillgraph

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/xeipuuv/gojsonschema"
)

// Envelope is a model's reply: the operations and the model's own summary.
type Envelope struct {
	Operations []Operation `json:"operations"`
	Summary    string      `json:"summary,omitempty"`
}

// ParseOperations reads a model's reply, either a bare JSON array of
// operations or an object {"operations": [...], "summary": "..."}, in two
// stages: JSON syntax (*SyntaxError with the byte offset) and Schema()
// (*SchemaError listing every problem, with unknown fields, wrong-case names
// and kinds refused). The third stage, applying the operations and checking
// the graph's invariants, is GraphEditor.Apply.
//
// The input must be JSON only: Markdown code fences or prose around it are a
// syntax error at their offset. The default limits apply (see
// ParseEnvelopeWithOptions): at most 1 MiB and 1,000 operations.
func ParseOperations(data []byte) ([]Operation, error) {
	env, err := ParseEnvelope(data)
	if err != nil {
		return nil, err
	}
	return env.Operations, nil
}

// ParseEnvelope is ParseOperations that also returns the model's summary
// (empty for a bare array).
func ParseEnvelope(data []byte) (*Envelope, error) {
	return ParseEnvelopeWithOptions(data, nil)
}

// ParseEnvelopeWithOptions is ParseEnvelope with the limits of opts (nil:
// the defaults): input over Options.MaxInputBytes is refused before it is
// read, and more than Options.MaxOperations operations before any is
// checked against the schema, each with a *LimitError (ErrLimit).
// ParseOperations and ParseEnvelope apply the default limits.
func ParseEnvelopeWithOptions(data []byte, opts *Options) (*Envelope, error) {
	lim, err := opts.limits()
	if err != nil {
		return nil, err
	}
	if len(data) > lim.input {
		return nil, &LimitError{Limit: "MaxInputBytes", What: "bytes of input", Value: len(data), Max: lim.input}
	}
	var doc any
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if err := dec.Decode(&doc); err != nil {
		return nil, syntaxError(data, err)
	}
	if off := dec.InputOffset(); len(bytes.TrimSpace(data[off:])) > 0 {
		off += int64(len(data[off:]) - len(bytes.TrimLeft(data[off:], " \t\r\n")))
		return nil, newSyntaxError(data, off, errors.New("unexpected data after the top-level value; send one JSON value only"))
	}
	c, err := schemas()
	if err != nil {
		return nil, fmt.Errorf("skillgraph: compiling the embedded schema: %w", err)
	}
	var (
		problems = duplicateKeys(data)
		rawOps   []any
		summary  string
	)
	switch top := doc.(type) {
	case []any:
		rawOps = top
	case map[string]any:
		shape := make(map[string]any, len(top))
		for k, v := range top {
			shape[k] = v
		}
		if arr, ok := top["operations"].([]any); ok {
			rawOps = arr
			shape["operations"] = []any{}
		}
		problems = append(problems, validate(c.envelope, shape, -1, "", "envelope")...)
		summary, _ = top["summary"].(string)
	default:
		problems = append(problems, SchemaProblem{Index: -1, Path: "(root)", Message: fmt.Sprintf(
			`must be an array of operations or an object {"operations": [...], "summary": "..."}; got %s`, jsonType(doc))})
	}
	if len(rawOps) > lim.ops {
		return nil, &LimitError{Limit: "MaxOperations", What: "operations in the reply", Value: len(rawOps), Max: lim.ops}
	}
	for i, raw := range rawOps {
		opID := ""
		if m, ok := raw.(map[string]any); ok {
			opID, _ = m["operationId"].(string)
		}
		if p := validate(c.head, raw, i, opID, ""); len(p) > 0 {
			problems = append(problems, p...)
			if m, ok := raw.(map[string]any); ok {
				problems = append(problems, unknownHeadFields(m, i, opID)...)
			}
			continue
		}
		kind := Kind(raw.(map[string]any)["kind"].(string))
		problems = append(problems, validate(c.kinds[kind], raw, i, opID, string(kind))...)
	}
	for k := range problems {
		if p := &problems[k]; p.Index >= 0 && p.Index < len(rawOps) && p.OperationID == "" {
			if m, ok := rawOps[p.Index].(map[string]any); ok {
				p.OperationID, _ = m["operationId"].(string)
			}
		}
	}
	if len(problems) > 0 {
		sort.SliceStable(problems, func(a, b int) bool { return problems[a].Index < problems[b].Index })
		return nil, &SchemaError{Problems: problems}
	}
	// The schema passed, so the typed decode below sees only known fields.
	var raws []json.RawMessage
	if _, isArr := doc.([]any); isArr {
		if err := json.Unmarshal(data, &raws); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSchema, err)
		}
	} else {
		var w struct {
			Operations []json.RawMessage `json:"operations"`
		}
		if err := json.Unmarshal(data, &w); err != nil {
			return nil, fmt.Errorf("%w: %v", ErrSchema, err)
		}
		raws = w.Operations
	}
	env := &Envelope{Operations: make([]Operation, len(raws)), Summary: summary}
	for i, r := range raws {
		if err := json.Unmarshal(r, &env.Operations[i]); err != nil {
			var shape *nodeShapeError
			msg := err.Error()
			path := fmt.Sprintf("operations[%d]", i)
			if errors.As(err, &shape) {
				msg = shape.Error()
				path += ".node"
			}
			problems = append(problems, SchemaProblem{Index: i, OperationID: env.Operations[i].OperationID, Path: path, Message: msg})
		}
	}
	if len(problems) > 0 {
		return nil, &SchemaError{Problems: problems}
	}
	return env, nil
}

// syntaxError locates a decoding error: a *json.SyntaxError is reported at
// the offending byte; a truncated input at its end.
func syntaxError(data []byte, err error) *SyntaxError {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		off := se.Offset - 1 // encoding/json counts the offending byte as read
		if off < 0 {
			off = 0
		}
		return newSyntaxError(data, off, err)
	}
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return newSyntaxError(data, int64(len(data)), fmt.Errorf("unexpected end of JSON input: %w", err))
	}
	return newSyntaxError(data, 0, err)
}

func newSyntaxError(data []byte, off int64, err error) *SyntaxError {
	if off > int64(len(data)) {
		off = int64(len(data))
	}
	line, col := 1, 1
	for _, b := range data[:off] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	return &SyntaxError{Offset: off, Line: line, Column: col, Msg: err.Error(), Err: err}
}

// validate runs one compiled schema over a decoded value and turns its
// errors into problems a model can act on.
func validate(s *gojsonschema.Schema, v any, index int, opID, def string) []SchemaProblem {
	res, err := s.Validate(gojsonschema.NewGoLoader(v))
	if err != nil {
		return []SchemaProblem{{Index: index, OperationID: opID, Path: prefix(index), Message: err.Error()}}
	}
	if res.Valid() {
		return nil
	}
	var out []SchemaProblem
	seen := map[string]bool{}
	errs := res.Errors()
	oneOf := false
	for _, re := range errs {
		oneOf = oneOf || (def == string(KindDeleteEdge) && re.Type() == "number_one_of" && re.Context().String() == "(root)")
	}
	for _, re := range errs {
		if oneOf && re.Context().String() == "(root)" && (re.Type() == "required" || re.Type() == "number_not") {
			continue // the branches of the edgeId-or-pair rule; its own message says it all
		}
		p := describe(re, index, def)
		p.OperationID = opID
		if key := p.Path + "\x00" + p.Message; !seen[key] {
			seen[key] = true
			out = append(out, p)
		}
	}
	sort.SliceStable(out, func(a, b int) bool { return out[a].Path < out[b].Path })
	return out
}

func prefix(index int) string {
	if index < 0 {
		return "(root)"
	}
	return fmt.Sprintf("operations[%d]", index)
}

// describe writes one gojsonschema error as a message naming the field, what
// was wrong and what is allowed instead.
func describe(re gojsonschema.ResultError, index int, def string) SchemaProblem {
	ctx := strings.TrimPrefix(re.Context().String(), "(root)")
	path := prefix(index) + ctx
	if index < 0 && ctx != "" {
		path = ctx[1:]
	}
	d := re.Details()
	obj := def // which object of the schema the error is about
	switch ctx {
	case ".node":
		obj = "node"
	case ".node.data":
		obj = "nodeData"
	}
	msg := re.Description()
	switch re.Type() {
	case "additional_property_not_allowed":
		msg = unknownField(fmt.Sprint(d["property"]), fields[obj])
	case "required":
		msg = fmt.Sprintf("missing required field %q", fmt.Sprint(d["property"]))
	case "invalid_type":
		want := strings.NewReplacer("[", "", "]", "", ",", " or ").Replace(fmt.Sprint(d["expected"]))
		msg = fmt.Sprintf("must be %s, got %s", want, d["given"])
	case "string_gte":
		msg = "must not be empty"
	case "enum", "const":
		allowed := fmt.Sprint(d["allowed"])
		got := fmt.Sprint(re.Value())
		if re.Value() == nil {
			msg = fmt.Sprintf("got null; allowed values are %s", strings.Trim(allowed, "[]"))
			break
		}
		msg = fmt.Sprintf("%q is not allowed; allowed values are %s", got, strings.Trim(allowed, "[]"))
		for _, a := range strings.Split(strings.Trim(allowed, "[]"), ", ") {
			if a = strings.Trim(a, `"`); strings.EqualFold(a, got) && a != got {
				msg += fmt.Sprintf(" (values are case-sensitive: did you mean %q?)", a)
			}
		}
	case "number_one_of", "number_not":
		if def == string(KindDeleteEdge) && ctx == "" {
			msg = "name the edge in exactly one way: either edgeId, or source and target"
		}
	}
	return SchemaProblem{Index: index, Path: path, Message: msg}
}

func jsonType(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case json.Number:
		return "a number"
	case string:
		return "a string"
	}
	return "an unexpected value"
}

// unknownField names an unknown field, the allowed one it differs from only
// in case, and the allowed fields.
func unknownField(prop string, allowed []string) string {
	msg := fmt.Sprintf("unknown field %q", prop)
	if len(allowed) == 0 {
		return msg
	}
	for _, a := range allowed {
		if strings.EqualFold(a, prop) {
			msg += fmt.Sprintf(" (field names are case-sensitive: did you mean %q?)", a)
		}
	}
	return msg + "; allowed fields are " + strings.Join(allowed, ", ")
}

// unknownHeadFields reports the fields of an operation whose operationId or
// kind is missing or wrong: often the same mistake, such as "operationID" or
// "Kind", which the kind's schema is never reached to report. The fields of
// the kind are allowed when it is known, else those of any kind.
func unknownHeadFields(m map[string]any, index int, opID string) []SchemaProblem {
	allowed := fields[fmt.Sprint(m["kind"])]
	if k, _ := m["kind"].(string); !Kind(k).valid() {
		allowed = nil
		seen := map[string]bool{}
		for _, k := range kinds {
			for _, f := range fields[string(k)] {
				if !seen[f] {
					seen[f] = true
					allowed = append(allowed, f)
				}
			}
		}
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var out []SchemaProblem
	for _, k := range keys {
		known := false
		for _, a := range allowed {
			known = known || a == k
		}
		if !known {
			out = append(out, SchemaProblem{Index: index, OperationID: opID, Path: prefix(index) + "." + k, Message: unknownField(k, allowed)})
		}
	}
	return out
}

// duplicateKeys reports every object key given twice, anywhere in data
// (which has already decoded): encoding/json would silently keep the last.
func duplicateKeys(data []byte) []SchemaProblem {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var out []SchemaProblem
	var walk func(path string, index int) error
	walk = func(path string, index int) error {
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		switch tok {
		case json.Delim('{'):
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return err
				}
				k, _ := kt.(string)
				child := k
				if path != "" {
					child = path + "." + k
				}
				if seen[k] {
					out = append(out, SchemaProblem{Index: index, Path: child, Message: fmt.Sprintf("field %q is given more than once; give each field once", k)})
				}
				seen[k] = true
				if err := walk(child, index); err != nil {
					return err
				}
			}
		case json.Delim('['):
			for i := 0; dec.More(); i++ {
				child, ci := fmt.Sprintf("%s[%d]", path, i), index
				if path == "" || path == "operations" && index < 0 {
					child, ci = fmt.Sprintf("operations[%d]", i), i
				}
				if err := walk(child, ci); err != nil {
					return err
				}
			}
		default:
			return nil
		}
		_, err = dec.Token() // the closing delimiter
		return err
	}
	if walk("", -1) != nil {
		return nil // not reached: the caller decoded data already
	}
	return out
}
