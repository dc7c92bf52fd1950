package main

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The tools the server registers are derived from their Go declarations
// (memorybank/tools for the memory bank tools, define for the server's
// own), and saved in tools.json, as tools/list answers with them: starting
// the server then derives no schema (deriving and marshalling them cost
// most of the start-up), and a tool's decoder is derived when it is first
// called. TestToolListIsGenerated fails when tools.json is not what the
// declarations derive; regenerate it with
//
//go:generate go test -run ^TestToolListIsGenerated$ . -args -update-tools

//go:embed tools.json
var toolsJSON []byte

// savedTool is a tool of tools.json, its schemas kept as they were saved.
type savedTool struct {
	Name         string               `json:"name"`
	Description  string               `json:"description"`
	InputSchema  json.RawMessage      `json:"inputSchema"`
	OutputSchema json.RawMessage      `json:"outputSchema"`
	Annotations  *mcp.ToolAnnotations `json:"annotations"`
}

// savedTools are the tools of tools.json, read once per process.
var savedTools = sync.OnceValue(func() []savedTool {
	var ts []savedTool
	if err := json.Unmarshal(toolsJSON, &ts); err != nil {
		panic(fmt.Sprintf("tools.json: %v; regenerate it with go generate", err))
	}
	return ts
})

// addTools registers every tool of tools.json, run by the server's
// toolDef of that name or else by the memory bank tool of that name.
func (s *server) addTools() {
	defs := map[string]toolDef{}
	for _, d := range s.toolDefs() {
		defs[d.name] = d
	}
	for _, t := range savedTools() {
		d, ok := defs[t.Name]
		if !ok {
			d = s.bankTool(t.Name)
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
// tools.json has them: the memory bank tools, then the server's own.
func (s *server) declaredTools() []declaredTool {
	var all []declaredTool
	for _, t := range tools.For(s.bank) {
		all = append(all, declaredTool{&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema,
			OutputSchema: t.OutputSchema, Annotations: mcpAnnotations(t.Annotations)}, t.InputType, t.OutputType})
	}
	for _, d := range s.toolDefs() {
		all = append(all, declaredTool{d.declare(), d.in, d.out})
	}
	return all
}
