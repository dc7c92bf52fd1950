package lcmemory

import (
	"context"
	"encoding/json"

	"github.com/tmc/langchaingo/tools"

	"github.com/mnemobank/mnemobank/memorybank/tools/toolcall"
)

// Tool is one of the bank's tools as a langchaingo tool.
type Tool struct {
	set         *toolcall.Set
	name        string
	description string
}

var _ tools.Tool = (*Tool)(nil)

// Tools returns every tool of set as a langchaingo tool, in order.
func Tools(set *toolcall.Set) []tools.Tool {
	fs := set.Functions()
	out := make([]tools.Tool, len(fs))
	for i, f := range fs {
		schema, _ := json.Marshal(f.Parameters) // decoded from JSON by toolcall
		out[i] = &Tool{set: set, name: f.Name,
			description: f.Description + " Input: a JSON object of the arguments, this JSON Schema: " + string(schema)}
	}
	return out
}

// Name returns the tool's name (read_context, search_documents, ...).
func (t *Tool) Name() string { return t.name }

// Description returns the tool's description followed by its JSON Schema.
func (t *Tool) Description() string { return t.description }

// Call runs the tool with input, its arguments as a JSON object, and
// returns the result's JSON, or the error's JSON {"code","message",
// "details"} for a failed call (see the package doc). It returns an error
// only when ctx is done.
func (t *Tool) Call(ctx context.Context, input string) (string, error) {
	res := t.set.Call(ctx, t.name, []byte(input))
	if err := ctx.Err(); err != nil {
		return "", err
	}
	return res.Content, nil
}
