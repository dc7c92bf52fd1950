package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The tools this server adds to the memory bank tools are declared as the
// memory bank tools are (see package tools): the input schema comes from
// the argument struct (field names from the json tags, descriptions from
// the jsonschema tags, required unless omitempty), the output schema from
// the result type, and the annotations from the tools.Effect every
// declaration names, so the schema the client sees and the value the
// handler decodes cannot drift apart, and a tool without annotations does
// not compile (a zero Effect panics when the server is built). Arguments
// are decoded once into the struct and checked against its schema, with
// unknown properties refused, before the handler runs; a failure is
// INVALID_ARGUMENT.

// define builds a toolDef from typed arguments and results. adjust, when
// set, refines the inferred input schema (enums, bounds, defaults). The
// schemas and the decoder are derived on first use: the server registers
// the tools from tools_gen.go (see toollist.go) and derives a tool's
// decoder when it is first called.
func define[In, Out any](name string, effect tools.Effect, description string, adjust func(*jsonschema.Schema),
	run func(ctx context.Context, req *mcp.CallToolRequest, in In) (Out, error)) toolDef {
	effect.Annotations() // panics on an undeclared effect
	args := sync.OnceValue(func() *tools.Args[In] { return tools.DeriveArgs[In](name, adjust) })
	return toolDef{name: name, in: reflect.TypeFor[In](), out: reflect.TypeFor[Out](),
		declare: func() *mcp.Tool {
			return &mcp.Tool{Name: name, Description: description, InputSchema: args().Schema,
				OutputSchema: tools.OutputSchema[Out](name), Annotations: mcpAnnotations(effect.Annotations())}
		},
		run: func(ctx context.Context, req *mcp.CallToolRequest, raw json.RawMessage) (any, error) {
			v, err := args().Decode(name, raw, nil, func(in *In) error { return fillBranch(ctx, req, in) })
			if err != nil {
				return nil, err
			}
			return run(ctx, req, *v)
		}}
}

// mcpAnnotations are a tool's annotations as MCP has them.
func mcpAnnotations(a tools.Annotations) *mcp.ToolAnnotations {
	m := &mcp.ToolAnnotations{ReadOnlyHint: a.ReadOnly, IdempotentHint: a.Idempotent, OpenWorldHint: ptr(a.OpenWorld)}
	if !a.ReadOnly {
		m.DestructiveHint = ptr(a.Destructive)
	}
	return m
}

func ptr[T any](v T) *T { return &v }

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
