package mcpserver

import (
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/consolidate/consolidatetools"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/memtools"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan/plantools"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph/graphtools"
)

// The server declares no tool of its own: every tool comes from the
// library, one package per domain, each declared with tools.Declare (the
// input schema from the argument struct, the output schema from the
// result type, the annotations from its tools.Effect), and the server
// registers them all in one loop (addTools), passing each call a
// tools.Env: the request's actor, the client's git root as the branch an
// omitted one is, and the client's dialog to confirm a plan.

// toolDefs are the server's tools bound to its bank and memories, in the
// order tools_gen.go has them: the memory bank's, the memories', the skill
// graphs', the plans', the consolidation's.
func toolDefs(bank *memorybank.Bank, mem *memories.Manager, confirm ConfirmPolicy) []tools.Def {
	var defs []tools.Def
	for _, ds := range [][]tools.Def{
		tools.Defs(bank),
		memtools.Defs(mem),
		graphtools.Defs(bank),
		plantools.Defs(bank, &plantools.Options{ConfirmOnlyAsked: confirm == ConfirmNever}),
		consolidatetools.Defs(bank, mem),
	} {
		defs = append(defs, ds...)
	}
	return defs
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
