// Command claude-memory is a conversation with Claude (Anthropic's Go SDK
// v2) whose memory tool (memory_20250818) is served by a memory bank kept
// in a directory: the model's /memories files are text documents of the
// bank's global bank, under memories/, and several agents may share the
// directory. Beside the memory tool, Claude gets the bank's own tools
// (memorybank/tools: read_context, search_documents, the write, read,
// list, history and revert tools), so it can search and patch the same
// bank; the memory tool's files are found by search_documents too.
//
//	export ANTHROPIC_API_KEY=...
//	go run . --root ./bank "Remember that I take my coffee black."
//	go run . --root ./bank "How do I take my coffee?"
//
// Each argument is one user turn (with none, each line of standard input
// is). A turn sends the conversation with the tools, runs every tool_use
// block of the reply (memory through claudememory.Handler, the bank's
// tools through toolcall.Set), sends the results back, and repeats until
// the model answers without a tool call, at most --max-steps times. A
// failed call is answered as a tool_result with is_error set, holding the
// tool's error (for the bank's tools the JSON {"code","message","details"}),
// so the model can fix its call. --branch is the branch a bank tool uses
// when the model omits it. --memory-only offers the memory tool alone.
package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/anthropics/anthropic-sdk-go/v2"
	"github.com/anthropics/anthropic-sdk-go/v2/option"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/memorybank/tools/toolcall"
	"github.com/mnemobank/mnemobank/skillgraph/graphtools"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdin, os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "claude-memory:", err)
		os.Exit(1)
	}
}

// run parses the flags and talks to the API with the client options given
// (the tests point it at a local server).
func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, clientOpts ...option.RequestOption) error {
	fs := flag.NewFlagSet("claude-memory", flag.ContinueOnError)
	root := fs.String("root", "./bank", "directory of the memory bank")
	model := fs.String("model", "claude-sonnet-4-5", "model to talk to")
	maxSteps := fs.Int("max-steps", 10, "model calls per user turn at most")
	maxTokens := fs.Int64("max-tokens", 2048, "max_tokens of each model call")
	branch := fs.String("branch", "main", "the git branch a bank tool uses when the model omits it")
	memoryOnly := fs.Bool("memory-only", false, "offer the memory tool only, not the bank's tools")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, err := fsstore.Open(*root, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	c := &conversation{
		client:    anthropic.NewClient(clientOpts...),
		memory:    claudememory.New(claudememory.BankFiles(bank), nil),
		model:     anthropic.Model(*model),
		maxSteps:  *maxSteps,
		maxTokens: *maxTokens,
		out:       stdout,
		system:    memorySystem,
		tools:     []anthropic.ToolUnionParam{{OfMemoryTool20250818: &anthropic.MemoryTool20250818Param{}}},
	}
	if !*memoryOnly {
		b := *branch
		note := tools.BranchNote(fmt.Sprintf(" Omitted: %q.", b))
		c.bank, err = toolcall.New(append(tools.For(bank, note), graphtools.For(bank, note)...),
			tools.Env{Branch: func(context.Context) (string, error) { return b, nil }})
		if err != nil {
			return err
		}
		c.tools = append(c.tools, bankTools(c.bank)...)
		c.system += " " + bankSystem + tools.Guide
	}
	if fs.NArg() > 0 {
		for _, turn := range fs.Args() {
			if err := c.turn(ctx, turn); err != nil {
				return err
			}
		}
		return nil
	}
	lines := bufio.NewScanner(stdin)
	for lines.Scan() {
		if line := strings.TrimSpace(lines.Text()); line != "" {
			if err := c.turn(ctx, line); err != nil {
				return err
			}
		}
	}
	return lines.Err()
}

// memorySystem tells the model to use its memory, as Anthropic's
// documentation of the memory tool suggests.
const memorySystem = "Before answering, view your memory directory /memories and read what is relevant. " +
	"Record what you learn that will matter in later conversations (preferences, decisions, progress) " +
	"in files under /memories, and keep them short and up to date."

// bankSystem introduces the bank's tools; tools.Guide, which follows it,
// says once what they share.
const bankSystem = "The memory bank's tools work on the same store: search_documents finds documents " +
	"(your /memories files are global documents under memories/) and read_context gives a task's context. "

// bankTools declares the bank's tools as Claude's custom tools: the input
// schema's properties and required list in their fields, every other
// keyword of the schema kept as it is.
func bankTools(set *toolcall.Set) []anthropic.ToolUnionParam {
	var out []anthropic.ToolUnionParam
	for _, f := range set.Functions() {
		schema := anthropic.ToolInputSchemaParam{Properties: f.Parameters["properties"], ExtraFields: map[string]any{}}
		for k, v := range f.Parameters {
			switch k {
			case "type", "properties":
			case "required":
				rs, _ := v.([]any)
				for _, r := range rs {
					if r, ok := r.(string); ok {
						schema.Required = append(schema.Required, r)
					}
				}
			default:
				schema.ExtraFields[k] = v
			}
		}
		out = append(out, anthropic.ToolUnionParam{OfTool: &anthropic.ToolParam{
			Name: f.Name, Description: anthropic.String(f.Description), InputSchema: schema}})
	}
	return out
}

type conversation struct {
	client    anthropic.Client
	memory    *claudememory.Handler
	bank      *toolcall.Set // nil with --memory-only
	tools     []anthropic.ToolUnionParam
	system    string
	model     anthropic.Model
	maxSteps  int
	maxTokens int64
	messages  []anthropic.MessageParam
	out       io.Writer
}

// turn sends one user message and runs tool calls until the model answers.
func (c *conversation) turn(ctx context.Context, text string) error {
	c.messages = append(c.messages, anthropic.NewUserMessage(anthropic.NewTextBlock(text)))
	for range c.maxSteps {
		msg, err := c.client.Messages.New(ctx, anthropic.MessageNewParams{
			Model:     c.model,
			MaxTokens: c.maxTokens,
			System:    []anthropic.TextBlockParam{{Text: c.system}},
			Messages:  c.messages,
			Tools:     c.tools,
		})
		if err != nil {
			return err
		}
		c.messages = append(c.messages, msg.ToParam())
		var results []anthropic.ContentBlockParamUnion
		for _, block := range msg.Content {
			switch block.Type {
			case "text":
				fmt.Fprintln(c.out, block.Text)
			case "tool_use":
				results = append(results, c.call(ctx, block))
			}
		}
		if msg.StopReason != anthropic.StopReasonToolUse || len(results) == 0 {
			return nil
		}
		c.messages = append(c.messages, anthropic.NewUserMessage(results...))
	}
	return fmt.Errorf("the model still called tools after %d steps (raise --max-steps)", c.maxSteps)
}

// call runs one tool_use block and returns its tool_result.
func (c *conversation) call(ctx context.Context, block anthropic.ContentBlockUnion) anthropic.ContentBlockParamUnion {
	if block.Name != "memory" {
		if c.bank == nil {
			return anthropic.NewToolResultBlock(block.ID, fmt.Sprintf("Unknown tool %q; the only tool is memory.", block.Name), true)
		}
		if ctx.Err() != nil {
			return anthropic.NewToolResultBlock(block.ID, "The tool call was interrupted.", true)
		}
		res := c.bank.Call(ctx, block.Name, block.Input)
		status := "ok"
		if res.Err != nil {
			status = string(res.Err.Code)
		}
		fmt.Fprintf(c.out, "[%s %s]\n", block.Name, status)
		return anthropic.NewToolResultBlock(block.ID, res.Content, res.IsError)
	}
	text, err := c.memory.Handle(ctx, block.Input)
	if err != nil {
		var te *claudememory.ToolError
		if !errors.As(err, &te) && ctx.Err() != nil {
			return anthropic.NewToolResultBlock(block.ID, "The memory tool was interrupted.", true)
		}
		return anthropic.NewToolResultBlock(block.ID, err.Error(), true)
	}
	fmt.Fprintf(c.out, "[memory %s]\n", strings.SplitN(text, "\n", 2)[0])
	return anthropic.NewToolResultBlock(block.ID, text, false)
}
