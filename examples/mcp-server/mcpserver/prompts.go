package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Two prompts frame a task: start_task puts the context of a branch (rules,
// branch and global memory) in front of the model, end_task asks it to
// record progress and learnings with the tools. Their branch, when
// omitted, is the client's git root's, as for the tools (over stdio).

func (s *Server) addPrompts() {
	s.AddPrompt(&mcp.Prompt{
		Name:        "start_task",
		Title:       "Start a task with the memory bank",
		Description: "The memory bank's context for a branch (rules, branch memory, global memory), to read before working on a task.",
		Arguments: []*mcp.PromptArgument{
			{Name: "branch", Description: "The current git branch, e.g. main or feature/login; omitted: the branch of the client's git root."},
			{Name: "task", Description: "What the task is, in a sentence."},
		},
	}, s.startTask)
	s.AddPrompt(&mcp.Prompt{
		Name:        "end_task",
		Title:       "Record progress and learnings",
		Description: "Asks the model to record what was done, what is next and what was learned, in the branch's memory bank and the memories file.",
		Arguments: []*mcp.PromptArgument{
			{Name: "branch", Description: "The current git branch; omitted: the branch of the client's git root."},
			{Name: "summary", Description: "What was done, if you want to say it."},
		},
	}, s.endTask)
}

// promptBranch is the branch argument of a prompt, else the client's git
// root's, checked.
func (s *Server) promptBranch(ctx context.Context, req *mcp.GetPromptRequest) (string, error) {
	branch := req.Params.Arguments["branch"]
	if branch == "" {
		b, err := s.sessionBranch(ctx, req.Session, req.ProtocolVersion())
		if err != nil {
			return "", fmt.Errorf("%s: %w", req.Params.Name, err)
		}
		branch = b
	}
	if err := memorybank.ValidateBranch(branch); err != nil {
		return "", fmt.Errorf("%s: argument branch (none given, and the client has no single git root to take it from): %w", req.Params.Name, err)
	}
	return branch, nil
}

func (s *Server) startTask(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	branch, err := s.promptBranch(ctx, req)
	if err != nil {
		return nil, err
	}
	rc, err := s.bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: branch})
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(rc)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("You are starting a task on the git branch %q.", branch)
	if task := req.Params.Arguments["task"]; task != "" {
		text += " The task: " + task
	}
	text += "\n\nBelow is the memory bank's context for this branch, as read_context returns it: the rules for using the bank, " +
		"the branch's core files (branchContext, activeContext, systemPatterns, progress) and the global core files. Read it before you start; " +
		"follow the rules; keep activeContext.json and progress.json up to date with small patches (write_branch_memory_bank) as you work." +
		"\n\n" + string(data)
	return &mcp.GetPromptResult{
		Description: "Memory bank context of branch " + branch,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}

func (s *Server) endTask(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
	branch, err := s.promptBranch(ctx, req)
	if err != nil {
		return nil, err
	}
	text := fmt.Sprintf("The task on the git branch %q is ending. Record it in the memory bank before you stop:\n", branch)
	if sum := req.Params.Arguments["summary"]; sum != "" {
		text += "\nWhat was done, in the user's words: " + sum + "\n"
	}
	text += fmt.Sprintf(`
1. progress.json of the branch: patch what now works and what is left (write_branch_memory_bank with branch %[1]q and patches, e.g. {"op":"add","path":"/content/workingFeatures/-","value":"..."}).
2. activeContext.json of the branch: the current state and the next steps, so the next session can pick up from here (e.g. {"op":"add","path":"/content/nextSteps/-","value":"..."}).
3. Learnings that outlive this branch (a preference of the user, a fact about the project, a lesson from a mistake): add_memory, one per learning, with tags.
4. Conventions worth sharing across branches: the global memory bank (write_global_memory_bank), e.g. systemPatterns.json.

Read a document first (read_branch_memory_bank) when you are unsure of its structure; pass ifVersion to avoid overwriting a concurrent change. Keep each entry short and factual.`, branch)
	return &mcp.GetPromptResult{
		Description: "Record progress and learnings of branch " + branch,
		Messages:    []*mcp.PromptMessage{{Role: "user", Content: &mcp.TextContent{Text: text}}},
	}, nil
}
