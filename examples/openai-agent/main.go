// Command openai-agent is a conversation with an OpenAI model (the OpenAI Go
// SDK v3, Chat Completions with tool calling) that keeps its memory in a
// memory bank kept in a directory: every tool of memorybank/tools
// (read_context, search_documents, the write, read, list, delete, history
// and revert tools) is offered as a function tool with its JSON Schema.
//
//	export OPENAI_API_KEY=...
//	go run . --root ./bank --branch main "Remember that we deploy on Fridays."
//	go run . --root ./bank --branch main "When do we deploy?"
//
// Each argument is one user turn (with none, each line of standard input
// is). A turn sends the conversation with the tools, answers every tool
// call of the reply with a tool message (through toolcall.Set), and
// repeats until the model answers without a tool call, at most
// --max-steps times. A failed call is answered too, with the tool's error
// as JSON ({"code":"NOT_FOUND","message":...,"details":...}), so the model
// can fix its call. --branch is the branch a tool uses when the model
// omits it. The system message carries tools.Guide, what the tools share.
// OPENAI_BASE_URL points the SDK at any compatible server.
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

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"

	"github.com/mnemobank/mnemobank/memorybank"
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
		fmt.Fprintln(os.Stderr, "openai-agent:", err)
		os.Exit(1)
	}
}

// system tells the model how to keep its memory; tools.Guide follows it.
const system = "You keep a memory bank across conversations. At the start of a task call read_context " +
	"(with the task as query); use search_documents to find what you recorded. Record decisions, " +
	"progress and preferences that will matter later with the write tools, short and up to date. "

// run parses the flags and talks to the API with the client options given
// (the tests point it at a local server).
func run(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer, clientOpts ...option.RequestOption) error {
	fs := flag.NewFlagSet("openai-agent", flag.ContinueOnError)
	root := fs.String("root", "./bank", "directory of the memory bank")
	model := fs.String("model", "gpt-4.1", "model to talk to")
	branch := fs.String("branch", "main", "the git branch a tool uses when the model omits it")
	maxSteps := fs.Int("max-steps", 10, "model calls per user turn at most")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *maxSteps < 1 {
		return fmt.Errorf("--max-steps is %d; give at least 1", *maxSteps)
	}
	store, err := fsstore.Open(*root, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	b := *branch
	set, err := toolcall.New(agentTools(memorybank.New(store, &memorybank.Options{History: history.New(nil)}), b),
		tools.Env{Branch: func(context.Context) (string, error) { return b, nil }})
	if err != nil {
		return err
	}
	c := &conversation{
		client:   openai.NewClient(clientOpts...),
		set:      set,
		tools:    functionTools(set),
		model:    openai.ChatModel(*model),
		maxSteps: *maxSteps,
		messages: []openai.ChatCompletionMessageParamUnion{openai.SystemMessage(system + tools.Guide)},
		out:      stdout,
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

type conversation struct {
	client   openai.Client
	set      *toolcall.Set
	tools    []openai.ChatCompletionToolUnionParam
	model    openai.ChatModel
	maxSteps int
	messages []openai.ChatCompletionMessageParamUnion
	out      io.Writer
}

// turn sends one user message and answers tool calls until the model
// answers without one.
func (c *conversation) turn(ctx context.Context, text string) error {
	c.messages = append(c.messages, openai.UserMessage(text))
	for range c.maxSteps {
		comp, err := c.client.Chat.Completions.New(ctx, openai.ChatCompletionNewParams{
			Model: c.model, Messages: c.messages, Tools: c.tools})
		if err != nil {
			return err
		}
		if len(comp.Choices) == 0 {
			return errors.New("the API answered with no choices")
		}
		msg := comp.Choices[0].Message
		c.messages = append(c.messages, msg.ToParam())
		if msg.Content != "" {
			fmt.Fprintln(c.out, msg.Content)
		}
		if len(msg.ToolCalls) == 0 {
			return nil
		}
		for _, call := range msg.ToolCalls {
			if err := ctx.Err(); err != nil {
				return err
			}
			m, res := answer(ctx, c.set, call)
			status := "ok"
			if res.Err != nil {
				status = string(res.Err.Code)
			}
			fmt.Fprintf(c.out, "[%s %s]\n", call.Function.Name, status)
			c.messages = append(c.messages, m)
		}
	}
	return fmt.Errorf("the model still called tools after %d steps (raise --max-steps)", c.maxSteps)
}

// agentTools are the bank's tools and the skill graph tools over the same
// bank, which need nothing more; a tool that omits its branch uses branch.
func agentTools(bank *memorybank.Bank, branch string) []tools.Tool {
	note := tools.BranchNote(fmt.Sprintf(" Omitted: %q.", branch))
	return append(tools.For(bank, note), graphtools.For(bank, note)...)
}
