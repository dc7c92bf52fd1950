package main

import (
	"context"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/shared"

	"github.com/mnemobank/mnemobank/memorybank/tools/toolcall"
)

// functionTools declares every tool of set as an OpenAI function tool: its
// name, its description, and its input schema as the parameters. Strict
// mode is left off: it requires every property to be required and allows
// no defaults, while the bank's tools take optional arguments with
// defaults; the tools check the arguments themselves and answer a bad
// call with INVALID_ARGUMENT.
func functionTools(set *toolcall.Set) []openai.ChatCompletionToolUnionParam {
	fs := set.Functions()
	out := make([]openai.ChatCompletionToolUnionParam, len(fs))
	for i, f := range fs {
		out[i] = openai.ChatCompletionFunctionTool(shared.FunctionDefinitionParam{
			Name: f.Name, Description: openai.String(f.Description), Parameters: shared.FunctionParameters(f.Parameters)})
	}
	return out
}

// answer runs one tool call of the model and returns the tool message
// answering it, and what it printed: the result's JSON, or the error's
// JSON {"code","message","details"} (the API has no error flag, so the
// code says it). A call of a custom (not function) tool is answered as an
// unknown tool.
func answer(ctx context.Context, set *toolcall.Set, call openai.ChatCompletionMessageToolCallUnion) (openai.ChatCompletionMessageParamUnion, toolcall.Result) {
	name, args := call.Function.Name, call.Function.Arguments
	if call.Type != "function" {
		name, args = call.Custom.Name, ""
	}
	res := set.Call(ctx, name, []byte(args))
	return openai.ToolMessage(res.Content, call.ID), res
}
