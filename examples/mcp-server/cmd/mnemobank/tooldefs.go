package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The tools this server adds to the memory bank tools are defined by Go
// types: the input schema comes from the argument struct (field names from
// the json tags, descriptions from the jsonschema tags, required unless
// omitempty) and the output schema from the result type, so the schema the
// client sees and the value the handler decodes cannot drift apart.
// Arguments are checked against the input schema, with unknown properties
// refused, before the handler runs; a failure is INVALID_ARGUMENT.

// schemaOptions: a json.RawMessage is any JSON value. Its schema has a
// description because an empty schema marshals as true, which some clients
// refuse as a property schema.
var schemaOptions = &jsonschema.ForOptions{TypeSchemas: map[reflect.Type]*jsonschema.Schema{
	reflect.TypeFor[json.RawMessage](): {Description: "Any JSON value."},
}}

// define builds a toolDef from typed arguments and results. adjust, when
// set, refines the inferred input schema (enums, bounds) before it is
// resolved.
func define[In, Out any](tool *mcp.Tool, adjust func(*jsonschema.Schema), run func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error)) toolDef {
	in, err := jsonschema.For[In](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("%s: input schema: %v", tool.Name, err))
	}
	if adjust != nil {
		adjust(in)
	}
	resolved, err := in.Resolve(nil)
	if err != nil {
		panic(fmt.Sprintf("%s: input schema: %v", tool.Name, err))
	}
	out, err := jsonschema.For[Out](schemaOptions)
	if err != nil {
		panic(fmt.Sprintf("%s: output schema: %v", tool.Name, err))
	}
	// Results are never null: a pointer's schema is that of its element.
	out.Types, out.Type = nil, "object"
	out.AdditionalProperties = nil // the server may add branchFromRoots
	tool.InputSchema = in
	tool.OutputSchema = orError(out)
	return toolDef{tool: tool, run: func(ctx context.Context, req *mcp.CallToolRequest, args json.RawMessage) (any, error) {
		var v In
		if err := decodeChecked(tool.Name, resolved, args, &v); err != nil {
			return nil, err
		}
		res, err := run(ctx, req, v)
		if err != nil {
			return nil, err
		}
		return res, nil
	}}
}

// decodeChecked validates args against the schema, applies its defaults
// and decodes them into v.
func decodeChecked(tool string, schema *jsonschema.Resolved, args json.RawMessage, v any) error {
	if len(bytes.TrimSpace(args)) == 0 || bytes.Equal(bytes.TrimSpace(args), []byte("null")) {
		args = json.RawMessage("{}")
	}
	var m map[string]any
	if err := json.Unmarshal(args, &m); err != nil {
		return invalidArgs(tool, fmt.Errorf("arguments must be a JSON object: %v", err))
	}
	if err := schema.ApplyDefaults(&m); err != nil {
		return invalidArgs(tool, err)
	}
	if err := schema.Validate(m); err != nil {
		return invalidArgs(tool, err)
	}
	data, err := json.Marshal(m)
	if err != nil {
		return invalidArgs(tool, err)
	}
	if err := json.Unmarshal(data, v); err != nil {
		return invalidArgs(tool, err)
	}
	return nil
}

func invalidArgs(tool string, err error) *tools.Error {
	return &tools.Error{Code: tools.CodeInvalidArgument, Err: err,
		Message: fmt.Sprintf("%s: invalid arguments: %v. The input schema in tools/list lists the arguments.", tool, err)}
}

// toolError builds a tools.Error with a code, a message and details.
func toolError(code tools.Code, err error, details map[string]any, format string, a ...any) *tools.Error {
	return &tools.Error{Code: code, Err: err, Details: details, Message: fmt.Sprintf(format, a...)}
}

// setEnum restricts a string property to values.
func setEnum(s *jsonschema.Schema, prop string, values ...string) {
	p := s.Properties[prop]
	if p == nil {
		return
	}
	p.Enum = nil
	for _, v := range values {
		p.Enum = append(p.Enum, v)
	}
}

// setDefault gives a property a default value.
func setDefault(s *jsonschema.Schema, prop string, v any) {
	if p := s.Properties[prop]; p != nil {
		p.Default, _ = json.Marshal(v)
	}
}
