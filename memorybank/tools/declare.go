package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"reflect"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/pointer"
)

// Effect says what a tool does to what is stored; it gives the tool's
// Annotations. Every declaration names one: the zero Effect is refused.
type Effect int

const (
	_ Effect = iota
	// ReadOnly: the tool changes nothing.
	ReadOnly
	// Additive: a write that only adds (a new memory).
	Additive
	// Initialising: writes only what is missing; calling it again changes
	// nothing more (read_context creating a new branch bank's core files).
	Initialising
	// Overwriting: may replace or remove what is stored.
	Overwriting
	// Replacing: replaces what is stored with the arguments; the same
	// call again leaves the same state.
	Replacing
)

// Annotations are a tool's hints to a client, as MCP's tool annotations.
// No tool of this package reaches beyond its bank, so OpenWorld is false.
type Annotations struct {
	ReadOnly    bool `json:"readOnlyHint"`
	Destructive bool `json:"destructiveHint"`
	Idempotent  bool `json:"idempotentHint"`
	OpenWorld   bool `json:"openWorldHint"`
}

// Annotations returns the hints of a tool with effect e. It panics on an
// Effect that is not one of the constants: a tool must say what it does.
func (e Effect) Annotations() Annotations {
	switch e {
	case ReadOnly:
		return Annotations{ReadOnly: true}
	case Additive:
		return Annotations{}
	case Initialising:
		return Annotations{Idempotent: true}
	case Overwriting:
		return Annotations{Destructive: true}
	case Replacing:
		return Annotations{Destructive: true, Idempotent: true}
	}
	panic(fmt.Sprintf("tools: effect %d is not declared; give every tool one of ReadOnly, Additive, Initialising, Overwriting, Replacing", int(e)))
}

// SchemaOptions returns the options the schemas of the tools are derived
// with: a json.RawMessage is any JSON value. Its schema has a description
// because an empty schema marshals as true, which some clients refuse as a
// property schema. Hosts deriving schemas for tools of their own use them
// too, so every tool reads alike. Each call returns new options, so a
// host's changes never reach the tools' schemas.
func SchemaOptions() *jsonschema.ForOptions {
	return &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
		reflect.TypeFor[json.RawMessage](): {Description: "any JSON"},
	}}
}

// Args is a tool's argument type, derived schema and decoder, for hosts
// that declare tools of their own alike (see Declare).
type Args[In any] struct {
	Schema   *jsonschema.Schema
	fields   map[string]argField
	allowed  []string
	required []string
}

type argField struct {
	index   []int
	schema  *jsonschema.Schema
	def     json.RawMessage // the schema's default, nil if none
	integer bool
}

// DeriveArgs derives the input schema of In (adjust, when set, adds what
// Go types cannot say: enums, bounds, defaults) and returns it with the
// decoder of In's arguments. It panics if In cannot be described, which
// the first test that builds the tools finds.
func DeriveArgs[In any](tool string, adjust func(*jsonschema.Schema)) *Args[In] {
	s, err := jsonschema.For[In](SchemaOptions())
	if err != nil {
		panic(fmt.Sprintf("tools: %s: input schema: %v", tool, err))
	}
	if adjust != nil {
		adjust(s)
	}
	// Unknown arguments are refused by Decode, with the allowed ones
	// listed; Guide says so once instead of every schema.
	s.AdditionalProperties = nil
	if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
		panic(fmt.Sprintf("tools: %s: input schema: %v", tool, err))
	}
	a := &Args[In]{Schema: s, fields: map[string]argField{}, required: slices.Clone(s.Required)}
	for _, f := range reflect.VisibleFields(reflect.TypeFor[In]()) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		p := s.Properties[name]
		if name == "" || name == "-" || p == nil || f.Anonymous {
			continue
		}
		k := f.Type.Kind()
		a.fields[name] = argField{index: f.Index, schema: p, def: p.Default,
			integer: k >= reflect.Int && k <= reflect.Uint64}
		a.allowed = append(a.allowed, name)
	}
	slices.Sort(a.allowed)
	return a
}

// Decode decodes the arguments of one call into an In, in one pass over
// them: absent arguments (nil, empty or null) are an empty object; text
// that is not UTF-8 and an argument given twice are refused; lenient, when
// set, rewrites what a model wrote loosely; each member is decoded into
// its field (a default filling an absent one) and checked against its
// schema. fill, when set, runs on the decoded value before the constraints
// are checked (a host supplying an omitted branch). A failure is an
// INVALID_ARGUMENT *Error listing every problem by JSON Pointer.
func (a *Args[In]) Decode(tool string, args json.RawMessage, lenient func(map[string]json.RawMessage), fill func(*In) error) (*In, error) {
	args = bytes.TrimSpace(args)
	if len(args) == 0 || string(args) == "null" {
		args = json.RawMessage(`{}`)
	}
	if at, reason := jsontext.Check(args); at >= 0 {
		// Decoding would read it as U+FFFD: a path would name another
		// document, a content would lose the bytes.
		return nil, &Error{Code: CodeInvalidArgument, Details: map[string]any{"byteOffset": at},
			Message: fmt.Sprintf("%s: invalid arguments: %s; the arguments must be UTF-8 text (a string cannot hold such bytes, and reading them as U+FFFD would change it). Nothing was read or written.", tool, reason)}
	}
	obj, dup, err := members(args)
	switch {
	case dup != "":
		ptr := "/" + pointer.Escape(dup)
		return nil, &Error{Code: CodeInvalidArgument,
			Message: fmt.Sprintf("%s: invalid arguments: %s: given twice; give each argument once. Nothing was read or written.", tool, ptr),
			Details: map[string]any{"problems": []memorybank.Problem{{Pointer: ptr, Message: "given twice"}},
				"allowedProperties": slices.Clone(a.allowed)}}
	case err != nil:
		return nil, &Error{Code: CodeInvalidArgument, Err: err,
			Message: fmt.Sprintf("%s: the arguments are not valid JSON (%v); send a JSON object with the properties %s",
				tool, err, strings.Join(a.allowed, ", "))}
	case obj == nil:
		return nil, a.refusal(tool, []memorybank.Problem{{Pointer: "", Message: "invalid type: expected object, given " + kind(args)}}, false)
	}
	if lenient != nil {
		lenient(obj)
	}
	for name, raw := range obj {
		if f, ok := a.fields[name]; ok {
			obj[name] = unquoteContainer(f.schema, raw)
		}
	}
	in := new(In)
	v := reflect.ValueOf(in).Elem()
	var problems []memorybank.Problem
	unknown := false
	for name, raw := range obj {
		f, ok := a.fields[name]
		if !ok {
			unknown = true
			problems = append(problems, memorybank.Problem{Pointer: "/" + pointer.Escape(name),
				Message: fmt.Sprintf("Additional property %s is not allowed", name)})
			continue
		}
		if p := decodeField(v.FieldByIndex(f.index), f, raw); p != nil {
			if ptr, msg, ok := unknownOp(name, f.schema, p); ok {
				problems = append(problems, memorybank.Problem{Pointer: ptr, Message: msg})
				continue
			}
			if te := patchArgError(p); te != nil {
				return nil, te
			}
			problems = append(problems, memorybank.Problem{Pointer: "/" + pointer.Escape(name), Message: p.Error()})
		}
	}
	for name, f := range a.fields {
		if _, given := obj[name]; !given && f.def != nil {
			if err := json.Unmarshal(f.def, v.FieldByIndex(f.index).Addr().Interface()); err != nil {
				return nil, &Error{Code: CodeInternal, Err: err, Message: fmt.Sprintf("%s: the default of %s: %v", tool, name, err)}
			}
		}
	}
	if len(problems) == 0 && fill != nil {
		if err := fill(in); err != nil {
			return nil, err
		}
	}
	if len(problems) == 0 {
		for _, name := range a.required {
			if _, given := obj[name]; !given {
				problems = append(problems, memorybank.Problem{Pointer: "/" + pointer.Escape(name), Message: name + " is required"})
			}
		}
		for name, f := range a.fields {
			if _, given := obj[name]; given || f.def != nil {
				problems = check(problems, "/"+pointer.Escape(name), v.FieldByIndex(f.index), f.schema)
			}
		}
		if ba, ok := any(in).(Branched); ok && *ba.BranchRef() == "" && ba.NeedsBranch() {
			problems = append(problems, memorybank.Problem{Pointer: "/branch", Message: "branch is required"})
		}
		if c, ok := any(in).(interface{ argProblems() []memorybank.Problem }); ok {
			problems = append(problems, c.argProblems()...)
		}
	}
	if len(problems) > 0 {
		return nil, a.refusal(tool, problems, unknown)
	}
	return in, nil
}

// unquoteContainer returns the array or object a string argument holds
// when the argument's schema takes an array or an object and no string:
// models often send a list or an object as a string holding its JSON, and
// every tool reads it the same way. Anything else is returned as it is.
func unquoteContainer(s *jsonschema.Schema, raw json.RawMessage) json.RawMessage {
	types := s.Types
	if s.Type != "" {
		types = []string{s.Type}
	}
	if len(raw) == 0 || raw[0] != '"' || slices.Contains(types, "string") ||
		!(slices.Contains(types, "array") || slices.Contains(types, "object")) {
		return raw
	}
	var str string
	if json.Unmarshal(raw, &str) != nil {
		return raw
	}
	inner := bytes.TrimSpace([]byte(str))
	if len(inner) == 0 || !json.Valid(inner) || !slices.Contains(types, kind(inner)) {
		return raw
	}
	return inner
}

// decodeField decodes one member into its field. An integer field also
// takes an integral number written as 2.0 or 2e0.
func decodeField(fv reflect.Value, f argField, raw json.RawMessage) error {
	if f.integer && bytes.ContainsAny(raw, ".eE") {
		fl, _, err := big.ParseFloat(string(raw), 10, 128, big.ToNearestEven)
		if err != nil {
			return fmt.Errorf("invalid type: expected integer, given %s", kind(raw))
		}
		i, acc := fl.Int64()
		if acc != big.Exact {
			if !fl.IsInt() {
				return fmt.Errorf("invalid type: expected integer, given %s", raw)
			}
			return fmt.Errorf("must be less than or equal to %d", maxSafeInteger)
		}
		raw = json.RawMessage(fmt.Sprint(i))
	}
	if fv.Type() == rawMessageType {
		// The arguments were validated whole: a copy is all decoding
		// would do, and it scans twice more.
		fv.SetBytes(bytes.Clone(raw))
		return nil
	}
	err := json.Unmarshal(raw, fv.Addr().Interface())
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return fmt.Errorf("invalid type: expected %s, given %s", schemaType(f.schema), te.Value)
	}
	return err
}

var rawMessageType = reflect.TypeFor[json.RawMessage]()

// check appends the problems of the decoded value v against the schema s.
// Types were checked by decoding; what is left are the constraints Go
// types cannot hold.
func check(problems []memorybank.Problem, ptr string, v reflect.Value, s *jsonschema.Schema) []memorybank.Problem {
	add := func(format string, a ...any) {
		problems = append(problems, memorybank.Problem{Pointer: ptr, Message: fmt.Sprintf(format, a...)})
	}
	for v.Kind() == reflect.Pointer {
		if v.IsNil() {
			return problems
		}
		v = v.Elem()
	}
	if raw, ok := v.Interface().(json.RawMessage); ok {
		types := s.Types
		if s.Type != "" {
			types = []string{s.Type}
		}
		if len(raw) > 0 && len(types) > 0 && !slices.Contains(types, kind(raw)) {
			add("invalid type: expected one of [%s], given %s", strings.Join(types, ","), kind(raw))
		}
		return problems
	}
	switch v.Kind() {
	case reflect.String:
		str := v.String()
		if len(s.Enum) > 0 && !slices.Contains(s.Enum, any(str)) {
			add("must be one of %s", quoted(s.Enum))
		}
		n := utf8.RuneCountInString(str)
		if s.MinLength != nil && n < *s.MinLength {
			add("String length must be greater than or equal to %d", *s.MinLength)
		}
		if s.MaxLength != nil && n > *s.MaxLength {
			add("String length must be less than or equal to %d", *s.MaxLength)
		}
	case reflect.Int, reflect.Int64, reflect.Int32:
		n := float64(v.Int())
		if s.Minimum != nil && n < *s.Minimum {
			add("must be greater than or equal to %v", *s.Minimum)
		}
		if s.Maximum != nil && n > *s.Maximum {
			add("must be less than or equal to %v", *s.Maximum)
		}
	case reflect.Slice:
		if v.IsNil() {
			return problems
		}
		if s.MinItems != nil && v.Len() < *s.MinItems {
			add("Array must have at least %d items", *s.MinItems)
		}
		if s.MaxItems != nil && v.Len() > *s.MaxItems {
			add("Array must have at most %d items", *s.MaxItems)
		}
		if s.Items != nil && v.Type().Elem().Kind() == reflect.String {
			for i := range v.Len() {
				problems = check(problems, fmt.Sprintf("%s/%d", ptr, i), v.Index(i), s.Items)
			}
		}
	}
	return problems
}

func quoted(values []any) string {
	q := make([]string, len(values))
	for i, v := range values {
		b, _ := json.Marshal(v)
		q[i] = string(b)
	}
	return strings.Join(q, ", ")
}

func schemaType(s *jsonschema.Schema) string {
	if s.Type != "" {
		return s.Type
	}
	types := slices.DeleteFunc(slices.Clone(s.Types), func(t string) bool { return t == "null" })
	return strings.Join(types, " or ")
}

// unknownOp reports a patch operation whose op is not one of the schema's
// enum as a problem with the argument, at its pointer, as the schema says;
// the other ways a patch fails to decode are INVALID_PATCH.
func unknownOp(name string, s *jsonschema.Schema, err error) (ptr, msg string, ok bool) {
	var oe *jsonpatch.OperationError
	if !errors.As(err, &oe) || s.Items == nil || s.Items.Properties["op"] == nil {
		return "", "", false
	}
	op := s.Items.Properties["op"]
	if slices.Contains(op.Enum, any(oe.Op.Op)) {
		return "", "", false
	}
	return fmt.Sprintf("/%s/%d/op", pointer.Escape(name), oe.Index), "must be one of " + quoted(op.Enum), true
}

// kind names the JSON type of a value.
func kind(raw []byte) string {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return "nothing"
	}
	switch raw[0] {
	case '{':
		return "object"
	case '[':
		return "array"
	case '"':
		return "string"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	}
	return "number"
}

// members splits a JSON object into its top-level members. It returns the
// first member name that occurs twice, or obj nil when args is well-formed
// JSON but not an object, or err when it is not well-formed. The members
// are slices of args, not copies: args is validated once here, and each
// member is decoded (and so copied) once, into its field.
func members(args []byte) (obj map[string]json.RawMessage, dup string, err error) {
	if !json.Valid(args) {
		var v any
		return nil, "", json.Unmarshal(args, &v)
	}
	if args[0] != '{' {
		return nil, "", nil
	}
	obj = map[string]json.RawMessage{}
	jsontext.ObjectMembers(args, func(name string, v []byte) {
		if _, seen := obj[name]; seen && dup == "" {
			dup = name
		}
		obj[name] = v
	})
	if dup != "" {
		return nil, dup, nil
	}
	return obj, "", nil
}

// refusal is an INVALID_ARGUMENT listing every problem by JSON Pointer,
// with the allowed properties when one is unknown.
func (a *Args[In]) refusal(tool string, problems []memorybank.Problem, unknown bool) *Error {
	slices.SortStableFunc(problems, func(x, y memorybank.Problem) int { return strings.Compare(x.Pointer, y.Pointer) })
	var b strings.Builder
	fmt.Fprintf(&b, "%s: invalid arguments:", tool)
	for _, p := range problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(arguments)"
		}
		fmt.Fprintf(&b, " %s: %s;", ptr, p.Message)
	}
	msg := strings.TrimSuffix(b.String(), ";")
	if unknown {
		msg += fmt.Sprintf(". The allowed properties are: %s", strings.Join(a.allowed, ", "))
	}
	return &Error{Code: CodeInvalidArgument, Message: msg + ". Nothing was read or written.",
		Details: map[string]any{"problems": problems, "allowedProperties": slices.Clone(a.allowed)}}
}

// OutputSchema derives the output schema of a tool whose result is an
// Out: an object, each member of the result with its JSON type, and no
// more. It is terse because a client sends every tool's schemas to the
// model on every turn: no descriptions (the tool's description says what
// it returns), no nested shapes, and no required members, so that a failed
// call's structured content, an Error {code, message, details} described
// once in the host's instructions, is an object the schema also accepts
// (clients check failed calls against the output schema too). The object
// is open: a host may add members, as the MCP server adds branchFromRoots.
func OutputSchema[Out any](tool string) *jsonschema.Schema {
	full, err := jsonschema.For[Out](SchemaOptions())
	if err != nil {
		panic(fmt.Sprintf("tools: %s: output schema: %v", tool, err))
	}
	out := &jsonschema.Schema{Type: "object", Properties: make(map[string]*jsonschema.Schema, len(full.Properties))}
	for name, p := range full.Properties {
		// A list is never null (the tools return empty lists), and a
		// member that may be left out is left out rather than null.
		types := p.Types
		if slices.Contains(types, "array") || !slices.Contains(full.Required, name) {
			types = slices.DeleteFunc(slices.Clone(types), func(t string) bool { return t == "null" })
		}
		s := &jsonschema.Schema{Type: p.Type}
		switch {
		case len(types) == 1:
			s.Type = types[0]
		case len(types) > 1:
			s.Types = types
		case p.Type == "":
			// Any JSON value: an empty schema marshals as true, which
			// the TypeScript SDK refuses as a property's schema.
			s.Description = p.Description
		}
		out.Properties[name] = s
	}
	// A failed call's Error must fit the schema too.
	for name, typ := range map[string]string{"code": "string", "message": "string", "details": "object"} {
		if p := out.Properties[name]; p != nil && p.Type != typ && !slices.Contains(p.Types, typ) {
			panic(fmt.Sprintf("tools: %s: the result's member %q is not a %s, as the Error's is: a failed call would not fit the output schema", tool, name, typ))
		}
	}
	return out
}

// Property returns the property name of s, panicking if there is none:
// an adjustment naming a field the type does not have is a mistake, which
// the first test that derives the tool's schema finds.
func Property(s *jsonschema.Schema, name string) *jsonschema.Schema {
	p := s.Properties[name]
	if p == nil {
		panic(fmt.Sprintf("tools: the schema has no property %q", name))
	}
	return p
}

// SetEnum restricts the string property name to values.
func SetEnum(s *jsonschema.Schema, name string, values ...string) {
	p := Property(s, name)
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// SetDefault gives the property name the default v, applied by Decode
// when the argument is absent.
func SetDefault(s *jsonschema.Schema, name string, v any) {
	Property(s, name).Default, _ = json.Marshal(v)
}

// SetBounds bounds the number property name to lo and, unless hi is 0, hi.
func SetBounds(s *jsonschema.Schema, name string, lo, hi float64) {
	p := Property(s, name)
	p.Minimum = &lo
	if hi != 0 {
		p.Maximum = &hi
	}
}

// SetMinLength gives the string property name a minimum length.
func SetMinLength(s *jsonschema.Schema, name string, n int) {
	Property(s, name).MinLength = &n
}

// maxSafeInteger bounds integer arguments: the largest integer every JSON
// implementation (JavaScript's included) reads exactly.
const maxSafeInteger = 1<<53 - 1
