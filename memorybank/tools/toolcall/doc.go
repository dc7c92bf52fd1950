// Package toolcall is the glue between the tools of [tools.For] and a
// function-calling API (OpenAI's tool calling, Anthropic's tool use, a
// langchaingo agent): a [Set] gives each tool as a [Function] (name,
// description, and its input schema as the JSON Schema object those APIs
// take as parameters) and answers a model's call by name with the text
// the model reads next.
//
//	set, err := toolcall.New(tools.For(bank), tools.Env{})
//	for _, f := range set.Functions() {
//		declare(f.Name, f.Description, f.Parameters)
//	}
//	res := set.Call(ctx, call.Name, call.Arguments)
//	answer(call.ID, res.Content, res.IsError)
//
// What it decides, so every adapter answers alike:
//
//   - A call that fails is answered, not returned as the host's error: its
//     Content is the *tools.Error as JSON ({"code","message","details"}),
//     IsError is set, and the loop goes on, so the model can read the
//     code and the hint, fix its call and retry. An unknown tool name is
//     INVALID_ARGUMENT listing the tools of the Set.
//   - A result is answered as its JSON, the value the tool returned.
//   - New refuses a tool that no function-calling API would take: a name
//     outside [a-zA-Z0-9_-]{1,64} (OpenAI's and Anthropic's rule), a name
//     given twice, or parameters that are not a JSON Schema of type
//     "object" without anyOf, oneOf, allOf, not or enum at the top.
//   - Schemas are not made strict (OpenAI's strict mode): strict mode wants
//     every property required and no defaults, and the tools' arguments
//     are optional with defaults. The tools validate the arguments
//     themselves and answer a bad call with INVALID_ARGUMENT.
//
// The package does no I/O and depends on no SDK; the adapters in the
// repository's examples/ map Functions and Results to each SDK's types.
package toolcall
