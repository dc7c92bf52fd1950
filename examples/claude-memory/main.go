// Command claude-memory is a conversation with Claude whose memory tool
// (memory_20250818) is served by a memory bank kept in a directory: the
// model's /memories files are text documents of the bank's global bank,
// under memories/, and several agents may share the directory.
//
//	export ANTHROPIC_API_KEY=...
//	go run . --root ./bank "Remember that I take my coffee black."
//	go run . --root ./bank "How do I take my coffee?"
//
// Each argument is one user turn (with none, each line of standard input
// is). A turn sends the conversation with the memory tool, runs every
// memory tool_use block of the reply through claudememory.Handler, sends
// the results back, and repeats until the model answers without a tool
// call, at most --max-steps times.
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

	"github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
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
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, err := fsstore.Open(*root, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	c := &conversation{
		client:    anthropic.NewClient(clientOpts...),
		memory:    claudememory.New(claudememory.BankFiles(memorybank.New(store, nil)), nil),
		model:     anthropic.Model(*model),
		maxSteps:  *maxSteps,
		maxTokens: *maxTokens,
		out:       stdout,
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

// system tells the model to use its memory, as Anthropic's documentation
// of the memory tool suggests.
const system = "Before answering, view your memory directory /memories and read what is relevant. " +
	"Record what you learn that will matter in later conversations (preferences, decisions, progress) " +
	"in files under /memories, and keep them short and up to date."

type conversation struct {
	client    anthropic.Client
	memory    *claudememory.Handler
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
			System:    []anthropic.TextBlockParam{{Text: system}},
			Messages:  c.messages,
			Tools:     []anthropic.ToolUnionParam{{OfMemoryTool20250818: &anthropic.MemoryTool20250818Param{}}},
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
		return anthropic.NewToolResultBlock(block.ID, fmt.Sprintf("Unknown tool %q; the only tool is memory.", block.Name), true)
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
