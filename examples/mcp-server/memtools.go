package main

import (
	"context"
	"errors"
	"fmt"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The learned-memory tools, over the --memories file.

type addMemoryArgs struct {
	Content string   `json:"content" jsonschema:"What was learned, in one or a few sentences; the first line becomes its title."`
	Tags    []string `json:"tags,omitempty" jsonschema:"Tags to find it by, e.g. [\"go\", \"testing\"]."`
	Type    string   `json:"type,omitempty" jsonschema:"Kind of memory, e.g. \"preference\", \"fact\" or \"lesson\"; stored as its first tag."`
}

type memoryResult struct {
	Memory memories.Memory `json:"memory"`
}

type searchMemoriesArgs struct {
	Query string `json:"query" jsonschema:"Words to look for in the content, title and tags; case-insensitive."`
}

type memoriesResult struct {
	Memories []memories.Memory `json:"memories"`
}

type deleteMemoryArgs struct {
	ID string `json:"id" jsonschema:"The id of the memory, as add_memory, search_memories and list_memories return it (mem-...)."`
}

type deleteMemoryResult struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
}

func (s *server) memoryTools() []toolDef {
	return []toolDef{
		define(&mcp.Tool{Name: "add_memory", Annotations: additive,
			Description: `Remember something learned (a user preference, a fact about the project, a lesson from a mistake) in the memories file, ` +
				`which outlives the conversation and every branch. Returns the memory with its id.`},
			nil,
			func(ctx context.Context, _ *mcp.CallToolRequest, a addMemoryArgs) (*memoryResult, error) {
				tags := a.Tags
				if a.Type != "" {
					tags = append([]string{a.Type}, tags...)
				}
				m, err := s.mem.Add(ctx, a.Content, tags...)
				if err != nil {
					return nil, memoriesError(err)
				}
				return &memoryResult{m}, nil
			}),
		define(&mcp.Tool{Name: "search_memories", Annotations: readOnly,
			Description: `Find learned memories whose content, title or tags match the query, best first.`},
			nil,
			func(ctx context.Context, _ *mcp.CallToolRequest, a searchMemoriesArgs) (*memoriesResult, error) {
				ms, err := s.mem.Search(ctx, a.Query)
				if err != nil {
					return nil, memoriesError(err)
				}
				return &memoriesResult{nonNil(ms)}, nil
			}),
		define(&mcp.Tool{Name: "list_memories", Annotations: readOnly,
			Description: `List every learned memory, in the order of the memories file.`},
			nil,
			func(ctx context.Context, _ *mcp.CallToolRequest, _ struct{}) (*memoriesResult, error) {
				ms, err := s.mem.List(ctx)
				if err != nil {
					return nil, memoriesError(err)
				}
				return &memoriesResult{nonNil(ms)}, nil
			}),
		define(&mcp.Tool{Name: "delete_memory", Annotations: replacing,
			Description: `Forget one learned memory by its id.`},
			nil,
			func(ctx context.Context, _ *mcp.CallToolRequest, a deleteMemoryArgs) (*deleteMemoryResult, error) {
				if err := s.mem.Delete(ctx, a.ID); err != nil {
					return nil, memoriesError(err)
				}
				return &deleteMemoryResult{true, a.ID}, nil
			}),
		define(&mcp.Tool{Name: "restore_memory", Annotations: additive,
			Description: `Undo a delete_memory: put a deleted memory back, with its id, date and tags (the most recent 100 deletions are kept).`},
			nil,
			func(ctx context.Context, _ *mcp.CallToolRequest, a deleteMemoryArgs) (*memoryResult, error) {
				r, ok := s.mem.(interface {
					Restore(ctx context.Context, id string) (memories.Memory, error)
				})
				if !ok {
					return nil, memoriesError(fmt.Errorf("%w: deleted memories are not kept by this server", memories.ErrNotFound))
				}
				m, err := r.Restore(ctx, a.ID)
				if err != nil {
					return nil, memoriesError(err)
				}
				return &memoryResult{m}, nil
			}),
	}
}

func nonNil[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	return s
}

// memoriesError maps the memories package's errors to tool error codes.
func memoriesError(err error) error {
	switch {
	case errors.Is(err, memories.ErrNotFound):
		return toolError(tools.CodeNotFound, err, nil, "%v. list_memories shows the ids of every memory.", err)
	case errors.Is(err, memories.ErrInvalid):
		return toolError(tools.CodeInvalidArgument, err, nil, "%v", err)
	case errors.Is(err, memories.ErrTooLarge):
		return toolError(tools.CodeLimitExceeded, err, nil, "%v. Delete memories that no longer hold before adding more.", err)
	case errors.Is(err, memories.ErrDisabled):
		return toolError(tools.CodeInvalidArgument, err, nil, "%v in the user's configuration.", err)
	}
	return err
}
