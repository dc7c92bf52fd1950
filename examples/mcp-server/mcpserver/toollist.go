package mcpserver

import (
	"encoding/json"
	"reflect"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The tools the server registers are derived from their Go declarations
// (memorybank/tools and the other domains' tool packages), and saved in
// tools_gen.go, as tools/list answers with them:
// starting the server then derives no schema and parses none (deriving and
// marshalling them cost most of the start-up), and a tool's decoder is
// derived when it is first called. TestToolListIsGenerated fails when
// tools_gen.go is not what the declarations derive; regenerate it with
//
//go:generate go test -run ^TestToolListIsGenerated$ . -args -update-tools

// savedTool is a tool as tools_gen.go saves it, its schemas as JSON.
type savedTool struct {
	Name         string
	Description  string
	InputSchema  json.RawMessage
	OutputSchema json.RawMessage
	Annotations  *mcp.ToolAnnotations
}

// addTools registers every tool of tools_gen.go, run by the declaration
// of that name.
func (s *Server) addTools() {
	defs := map[string]tools.Def{}
	for _, d := range s.defs {
		defs[d.Name] = d
	}
	for _, t := range generatedTools {
		mustScope(t.Name)
		d, ok := defs[t.Name]
		if !ok {
			panic("mcpserver: tools_gen.go names " + t.Name + ", which no declaration has; run go generate")
		}
		s.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			OutputSchema: t.OutputSchema, Annotations: t.Annotations}, s.handler(d))
	}
}

// declaredTool is a tool as its declaration derives it, with the Go types
// its schemas come from.
type declaredTool struct {
	tool    *mcp.Tool
	in, out reflect.Type
}

// declaredTools derives every tool from its declaration, in the order
// tools_gen.go has them.
func (s *Server) declaredTools() []declaredTool {
	var all []declaredTool
	for _, d := range s.defs {
		t := d.Tool()
		all = append(all, declaredTool{&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			OutputSchema: t.OutputSchema, Annotations: mcpAnnotations(t.Annotations)}, t.InputType, t.OutputType})
	}
	return all
}
