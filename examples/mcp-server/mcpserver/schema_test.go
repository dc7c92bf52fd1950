package mcpserver

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"
)

// Every tool the server registers has input and output schemas that say
// what its Go types are. The input schema: the properties are exactly the
// struct's JSON fields, the required ones are those without omitempty, and
// each property's type is its field's, nested structs included. The output
// schema names the result's members and their types, one level deep and
// requiring none, so that a failed call's {code, message, details} fits
// it too. Checked on tools/list as a client sees it, against reflection
// over the types the tool decodes into and returns.
func TestToolSchemasMatchTheirTypes(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	res, err := s.ListTools(t.Context(), nil)
	require.NoError(t, err)
	toolTypes := map[string][2]reflect.Type{}
	for _, d := range ts.declaredTools() {
		toolTypes[d.tool.Name] = [2]reflect.Type{d.in, d.out}
	}
	require.Len(t, res.Tools, len(toolTypes), "every listed tool is declared")
	for _, tool := range res.Tools {
		t.Run(tool.Name, func(t *testing.T) {
			types, ok := toolTypes[tool.Name]
			require.True(t, ok, "%s is not declared", tool.Name)
			in, out := asMap(t, tool.InputSchema), asMap(t, tool.OutputSchema)
			assert.Empty(t, schemaMismatches(in, types[0], ""), "input schema")
			assert.Empty(t, outputMismatches(out, types[1]), "output schema")
			failed := map[string]any{"code": "NOT_FOUND", "message": "m", "details": map[string]any{"problems": []any{}}}
			assert.NoError(t, mcptest.OutputSchema(t, s, tool.Name).Validate(failed), "a failed call fits the output schema")
			require.NotNil(t, tool.Annotations, "every tool is annotated")
			require.NotNil(t, tool.Annotations.OpenWorldHint)
			assert.False(t, *tool.Annotations.OpenWorldHint, "no tool reaches beyond its bank")
			if !tool.Annotations.ReadOnlyHint {
				assert.NotNil(t, tool.Annotations.DestructiveHint, "a tool that writes says whether it destroys")
			}
		})
	}
}

// The output check finds an output schema that does not name the result's
// members and their types, or that a failed call would not fit.
func TestOutputMismatchesFindsDisagreement(t *testing.T) {
	type entry struct {
		Path string `json:"path"`
	}
	type result struct {
		Name    string  `json:"name"`
		Count   int     `json:"count,omitempty"`
		Entries []entry `json:"entries"`
		Skip    string  `json:"-"`
	}
	good := `{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"},"entries":{"type":"array"}}}`
	assert.Empty(t, outputMismatches(asMap(t, json.RawMessage(good)), reflect.TypeFor[result]()))
	for _, bad := range []string{
		`{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"}}}`,
		`{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"},"entries":{"type":"array"},"extra":{}}}`,
		`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"count":{"type":"integer"},"entries":{"type":"array"}}}`,
		`{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"string"},"entries":{"type":"array"}}}`,
		`{"type":"object","anyOf":[{}],"properties":{"name":{"type":"string"},"count":{"type":"integer"},"entries":{"type":"array"}}}`,
		`{"type":"array"}`,
	} {
		assert.NotEmpty(t, outputMismatches(asMap(t, json.RawMessage(bad)), reflect.TypeFor[result]()), bad)
	}
}

// outputMismatches lists where the output schema s does not name the
// members of the result type t and their types, one level deep, or
// requires a member (a failed call's Error has none of them).
func outputMismatches(s map[string]any, t reflect.Type) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if got := schemaTypes(s); !slices.Equal(got, []string{"object"}) {
		return []string{fmt.Sprintf("type %v, a result is an object", got)}
	}
	var problems []string
	for _, k := range []string{"required", "anyOf", "oneOf", "allOf"} {
		if _, ok := s[k]; ok {
			problems = append(problems, fmt.Sprintf("%s: a failed call's Error must fit the schema as it is", k))
		}
	}
	props, _ := s["properties"].(map[string]any)
	var fields, names []string
	for _, f := range reflect.VisibleFields(t) {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" || !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		fields = append(fields, name)
		p, ok := props[name].(map[string]any)
		ft := f.Type
		for ft.Kind() == reflect.Pointer {
			ft = ft.Elem()
		}
		if ok && ft != rawMessage && !slices.Contains(schemaTypes(p), jsonKind(ft)) {
			problems = append(problems, fmt.Sprintf("/%s: type %v, the Go type %s is %s", name, schemaTypes(p), ft, jsonKind(ft)))
		}
	}
	for name := range props {
		names = append(names, name)
	}
	slices.Sort(fields)
	slices.Sort(names)
	if !slices.Equal(fields, names) {
		problems = append(problems, fmt.Sprintf("properties %v, the fields of %s are %v", names, t, fields))
	}
	return problems
}

// The check finds a schema that does not say what its type is.
func TestSchemaMismatchesFindsDisagreement(t *testing.T) {
	type args struct {
		Name  string   `json:"name"`
		Count int      `json:"count,omitempty"`
		Tags  []string `json:"tags,omitempty"`
		Skip  string   `json:"-"`
	}
	good := `{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"count":{"type":"integer"},"tags":{"type":["null","array"]}}}`
	assert.Empty(t, schemaMismatches(asMap(t, json.RawMessage(good)), reflect.TypeFor[args](), ""))
	for _, bad := range []string{
		`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"count":{"type":"integer"}}}`,
		`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"count":{"type":"integer"},"tags":{"type":"array"},"extra":{}}}`,
		`{"type":"object","required":["name","count"],"properties":{"name":{"type":"string"},"count":{"type":"integer"},"tags":{"type":"array"}}}`,
		`{"type":"object","properties":{"name":{"type":"string"},"count":{"type":"integer"},"tags":{"type":"array"}}}`,
		`{"type":"object","required":["name"],"properties":{"name":{"type":"string"},"count":{"type":"string"},"tags":{"type":"array"}}}`,
		`{"type":"array"}`,
	} {
		assert.NotEmpty(t, schemaMismatches(asMap(t, json.RawMessage(bad)), reflect.TypeFor[args](), ""), bad)
	}
}

func asMap(t *testing.T, v any) map[string]any {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

var rawMessage = reflect.TypeFor[json.RawMessage]()

// schemaMismatches lists where the JSON Schema s disagrees with the Go
// type t, as encoding/json reads and writes it.
func schemaMismatches(s map[string]any, t reflect.Type, at string) []string {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == rawMessage {
		return nil // any JSON value
	}
	var problems []string
	want := jsonKind(t)
	if got := schemaTypes(s); !slices.Contains(got, want) {
		return []string{fmt.Sprintf("%s: type %v, the Go type %s is %s", at, got, t, want)}
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if items, ok := s["items"].(map[string]any); ok {
			problems = append(problems, schemaMismatches(items, t.Elem(), at+"/items")...)
		}
	case reflect.Struct:
		props, _ := s["properties"].(map[string]any)
		var fields, required []string
		for _, f := range reflect.VisibleFields(t) {
			name, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
			if f.Anonymous && name == "" || !f.IsExported() || name == "-" {
				continue
			}
			if name == "" {
				name = f.Name
			}
			fields = append(fields, name)
			if !strings.Contains(opts, "omitempty") && !strings.Contains(opts, "omitzero") {
				required = append(required, name)
			}
			if p, ok := props[name].(map[string]any); ok {
				problems = append(problems, schemaMismatches(p, f.Type, at+"/"+name)...)
			}
		}
		var names []string
		for name := range props {
			names = append(names, name)
		}
		slices.Sort(fields)
		slices.Sort(names)
		if !slices.Equal(fields, names) {
			problems = append(problems, fmt.Sprintf("%s: properties %v, the fields of %s are %v", at, names, t, fields))
		}
		var req []string
		for _, r := range anySlice(s["required"]) {
			req = append(req, r.(string))
		}
		slices.Sort(req)
		slices.Sort(required)
		if !slices.Equal(req, required) {
			problems = append(problems, fmt.Sprintf("%s: required %v, the fields of %s without omitempty are %v", at, req, t, required))
		}
	}
	return problems
}

func anySlice(v any) []any { s, _ := v.([]any); return s }

func schemaTypes(s map[string]any) []string {
	switch v := s["type"].(type) {
	case string:
		return []string{v}
	case []any:
		var out []string
		for _, x := range v {
			out = append(out, x.(string))
		}
		return out
	}
	return nil
}

// jsonKind is the JSON Schema type of values of t.
func jsonKind(t reflect.Type) string {
	if t.Implements(reflect.TypeFor[json.Marshaler]()) || reflect.PointerTo(t).Implements(reflect.TypeFor[json.Marshaler]()) {
		if t.Kind() == reflect.Struct && t.PkgPath() == "time" {
			return "string"
		}
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	}
	return "object"
}
