// Command langchain-agent is a langchaingo agent that keeps its memory in a
// memory bank and a memories.md file, through lcmemory:
//
//	export OPENAI_API_KEY=...
//	go run ./cmd/langchain-agent --root ./bank "Record that we deploy on Fridays."
//	go run ./cmd/langchain-agent --root ./bank --ask "When do we deploy?"
//
// Without --ask, each argument is a task for an agent executor (an OpenAI
// functions agent) whose tools are the bank's tools (lcmemory.Tools) and
// whose chain memory is the learned memories relevant to the task
// (lcmemory.Memories, shown in its system message). With --ask, each
// argument is a question for a RetrievalQA chain that answers from the
// bank's documents found for it (lcmemory.BankRetriever).
//
// The LLM is langchaingo's OpenAI client: OPENAI_API_KEY, and
// OPENAI_BASE_URL for any compatible server. The memories file is
// --memories (default .agent/memories.md, where the memory CLI keeps it).
// --branch is the branch a tool
// uses when the model omits it.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"github.com/tmc/langchaingo/agents"
	"github.com/tmc/langchaingo/chains"
	"github.com/tmc/langchaingo/llms/openai"

	lcmemory "github.com/mnemobank/mnemobank/examples/langchaingo"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memories/memtools"
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
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "langchain-agent:", err)
		os.Exit(1)
	}
}

// system is the agent's system message: how to keep the bank, what the
// tools share, and the memories chosen for the task.
const system = "You keep a memory bank across tasks. Call read_context first (with the task as query) and " +
	"search_documents to find what you recorded; record decisions and progress with the write tools. " +
	tools.Guide + "\n\n{{.memories}}"

// run parses the flags and runs each argument with the LLM options given
// (the tests point it at a local server).
func run(ctx context.Context, args []string, stdout io.Writer, llmOpts ...openai.Option) error {
	fs := flag.NewFlagSet("langchain-agent", flag.ContinueOnError)
	root := fs.String("root", "./bank", "directory of the memory bank")
	memFile := fs.String("memories", filepath.Join(".agent", "memories.md"), "the memories.md file")
	model := fs.String("model", "gpt-4.1", "model to talk to")
	branch := fs.String("branch", "main", "the git branch a tool uses when the model omits it")
	maxSteps := fs.Int("max-steps", 10, "agent steps per task at most")
	ask := fs.Bool("ask", false, "answer questions from the bank's documents (RetrievalQA) instead of running tasks")
	if err := fs.Parse(args); err != nil {
		return err
	}
	store, err := fsstore.Open(*root, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil)})
	llm, err := openai.New(append([]openai.Option{openai.WithModel(*model)}, llmOpts...)...)
	if err != nil {
		return err
	}
	if *ask {
		qa := chains.NewRetrievalQAFromLLM(llm, &lcmemory.BankRetriever{Bank: bank})
		for _, q := range fs.Args() {
			answer, err := chains.Run(ctx, qa, q)
			if err != nil {
				return err
			}
			fmt.Fprintln(stdout, answer)
		}
		return nil
	}

	mem, err := memories.New(filestore.New(*memFile, nil), nil)
	if err != nil {
		return err
	}
	b := *branch
	note := tools.BranchNote(fmt.Sprintf(" Omitted: %q.", b))
	// The memories the agent is given are also its to keep: add_memory
	// and the other memory tools work on the same file.
	all := append(append(tools.For(bank, note), graphtools.For(bank, note)...), memtools.For(mem)...)
	set, err := toolcall.New(all,
		tools.Env{Branch: func(context.Context) (string, error) { return b, nil }})
	if err != nil {
		return err
	}
	agent := agents.NewOpenAIFunctionsAgent(llm, lcmemory.Tools(set), agents.NewOpenAIOption().WithSystemMessage(system))
	executor := agents.NewExecutor(agent, agents.WithMemory(&lcmemory.Memories{Memories: mem}),
		agents.WithMaxIterations(*maxSteps))
	for _, task := range fs.Args() {
		out, err := chains.Call(ctx, executor, map[string]any{"input": task})
		if err != nil {
			return err
		}
		fmt.Fprintln(stdout, out["output"])
	}
	return nil
}
