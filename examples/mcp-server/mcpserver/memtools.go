package mcpserver

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The learned-memory tools, over the --memories file.

type addMemoryArgs struct {
	Content string   `json:"content" jsonschema:"first line: the title"`
	Tags    []string `json:"tags,omitempty"`
	Type    string   `json:"type,omitempty"`
	// IfNoSimilar refuses to add a memory that says nearly what an
	// existing one says.
	IfNoSimilar bool `json:"ifNoSimilar,omitempty" jsonschema:"CONFLICT if one says nearly the same"`
}

// memorySummary is what add_memory answers: the new memory without its
// content, which the client has just sent.
type memorySummary struct {
	ID           string   `json:"id" jsonschema:"The memory's id, for delete_memory."`
	Title        string   `json:"title" jsonschema:"The first line of the content, cut at 50 characters."`
	Tags         []string `json:"tags" jsonschema:"The tags as stored (trimmed, repeats dropped)."`
	Date         string   `json:"date" jsonschema:"The day it was added, YYYY-MM-DD."`
	ContentBytes int      `json:"contentBytes" jsonschema:"The size of the stored content in bytes (trimmed, line endings normalised)."`
}

type addMemoryResult struct {
	Memory  memorySummary      `json:"memory"`
	Similar []memories.Similar `json:"similar" jsonschema:"Existing memories that say nearly the same thing, most similar first: consider deleting one of them."`
}

type memoryResult struct {
	Memory memories.Memory `json:"memory"`
}

// The most memories search_memories and list_memories return in one
// answer, by default and at most.
const (
	defaultMemoryResults = 10
	maxMemoryResults     = 100
)

type searchMemoriesArgs struct {
	Query     string `json:"query"`
	Limit     int    `json:"limit,omitempty"`
	MaxTokens int    `json:"maxTokens,omitempty"`
}

// search_memories' token budget of its answer, by default and its bounds.
const (
	defaultMemoryTokens = 4000
	minMemoryTokens     = 100
	maxMemoryTokens     = 32000
)

type memoryHitsResult struct {
	Memories []memories.Hit `json:"memories"`
	More     int            `json:"more" jsonschema:"How many more memories matched but were not returned (past limit or maxTokens); narrow the query or raise limit to see them."`
}

type listMemoriesArgs struct {
	Offset    int `json:"offset,omitempty"`
	Limit     int `json:"limit,omitempty"`
	MaxTokens int `json:"maxTokens,omitempty"`
}

type memoriesResult struct {
	Memories []memories.Memory `json:"memories"`
	More     int               `json:"more" jsonschema:"How many more memories follow (past limit or maxTokens)."`
	Hint     string            `json:"hint,omitempty"`
}

type deleteMemoryArgs struct {
	ID string `json:"id"`
}

type deleteMemoryResult struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
}

// pageSchema bounds a limit property to 1..maxMemoryResults, default
// defaultMemoryResults, and an offset property (if any) to 0 and more.
func pageSchema(s *jsonschema.Schema) {
	if p := s.Properties["limit"]; p != nil {
		lo, hi := 1.0, float64(maxMemoryResults)
		p.Minimum, p.Maximum = &lo, &hi
	}
	setDefault(s, "limit", defaultMemoryResults)
	if p := s.Properties["offset"]; p != nil {
		zero := 0.0
		p.Minimum = &zero
	}
}

// tokenSchema bounds a maxTokens property, default defaultMemoryTokens.
func tokenSchema(s *jsonschema.Schema) {
	if p := s.Properties["maxTokens"]; p != nil {
		lo, hi := float64(minMemoryTokens), float64(maxMemoryTokens)
		p.Minimum, p.Maximum = &lo, &hi
	}
	setDefault(s, "maxTokens", defaultMemoryTokens)
}

// listMemories answers list_memories: a page of the memories file (only
// the page copied when the manager pages), cut at the token budget.
func (s *Server) listMemories(ctx context.Context, a listMemoriesArgs) (*memoriesResult, error) {
	limit := cmp.Or(a.Limit, defaultMemoryResults)
	offset := max(a.Offset, 0)
	var ms []memories.Memory
	total := 0
	if p, ok := s.mem.(interface {
		ListPage(ctx context.Context, offset, limit int) (memories.ListPage, error)
	}); ok {
		res, err := p.ListPage(ctx, offset, limit)
		if err != nil {
			return nil, memoriesError(err)
		}
		ms, total = res.Memories, res.Total
	} else {
		all, err := s.mem.List(ctx)
		if err != nil {
			return nil, memoriesError(err)
		}
		ms, total = all[min(offset, len(all)):min(offset+limit, len(all))], len(all)
	}
	ms, err := withinTokens(ms, cmp.Or(a.MaxTokens, defaultMemoryTokens))
	if err != nil {
		return nil, err
	}
	r := &memoriesResult{Memories: nonNil(ms), More: max(total-offset-len(ms), 0)}
	if r.More > 0 {
		r.Hint = fmt.Sprintf("%d more: call again with offset %d.", r.More, offset+len(ms))
	}
	return r, nil
}

// withinTokens cuts items where their JSON passes budget tokens, keeping
// the first whatever its size.
func withinTokens[T any](items []T, budget int) ([]T, error) {
	used := 0
	for i, it := range items {
		enc, err := json.Marshal(it)
		if err != nil {
			return nil, err
		}
		used += memorybank.EstimateTokens(string(enc))
		if used > budget && i > 0 {
			return items[:i], nil
		}
	}
	return items, nil
}

func (s *Server) memoryTools() []toolDef {
	return []toolDef{
		define("add_memory", tools.Additive,
			`Remember a preference, fact or lesson for every conversation and branch. `+
				`Limits: content 64 KiB, 20 tags of 64 bytes.`,
			func(in *jsonschema.Schema) {
				n := memories.MaxTags
				in.Properties["tags"].MaxItems = &n
			},
			func(ctx context.Context, _ *mcp.CallToolRequest, a addMemoryArgs) (*addMemoryResult, error) {
				tags := a.Tags
				if a.Type != "" {
					tags = append([]string{a.Type}, tags...)
				}
				var m memories.Memory
				var similar []memories.Similar
				if aw, ok := s.mem.(interface {
					AddWith(ctx context.Context, content string, opts memories.AddOptions) (memories.AddResult, error)
				}); ok {
					res, err := aw.AddWith(ctx, a.Content, memories.AddOptions{Tags: tags, IfNoSimilar: a.IfNoSimilar})
					if err != nil {
						return nil, memoriesError(err)
					}
					m, similar = res.Memory, res.Similar
				} else {
					var err error
					if m, err = s.mem.Add(ctx, a.Content, tags...); err != nil {
						return nil, memoriesError(err)
					}
				}
				return &addMemoryResult{Memory: memorySummary{ID: m.ID, Title: m.Title, Tags: nonNil(m.Tags), Date: m.Date, ContentBytes: len(m.Content)},
					Similar: nonNil(similar)}, nil
			}),
		define("search_memories", tools.ReadOnly,
			`Find learned memories by words or a question (at most 1 KiB), best first.`,
			func(in *jsonschema.Schema) {
				pageSchema(in)
				tokenSchema(in)
			},
			func(ctx context.Context, _ *mcp.CallToolRequest, a searchMemoriesArgs) (*memoryHitsResult, error) {
				if strings.TrimSpace(a.Query) == "" {
					return nil, toolError(tools.CodeInvalidArgument, nil, map[string]any{"field": "query"},
						"search_memories: the query is empty; give a few words to look for, or use list_memories to list every memory.")
				}
				return s.searchMemories(ctx, a)
			}),
		define("list_memories", tools.ReadOnly,
			`List the learned memories, oldest first.`,
			func(in *jsonschema.Schema) { pageSchema(in); tokenSchema(in) },
			func(ctx context.Context, _ *mcp.CallToolRequest, a listMemoriesArgs) (*memoriesResult, error) {
				return s.listMemories(ctx, a)
			}),
		define("delete_memory", tools.Replacing,
			`Forget a learned memory; restore_memory undoes it.`,
			nil,
			func(ctx context.Context, _ *mcp.CallToolRequest, a deleteMemoryArgs) (*deleteMemoryResult, error) {
				if err := s.mem.Delete(ctx, a.ID); err != nil {
					return nil, memoriesError(err)
				}
				return &deleteMemoryResult{true, a.ID}, nil
			}),
		define("restore_memory", tools.Additive,
			`Put back a deleted memory (the last 100 deletions are kept).`,
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

// searchMemories answers search_memories: the manager's ranked hits when
// it offers them (else its plain matches), cut at the limit and the token
// budget.
func (s *Server) searchMemories(ctx context.Context, a searchMemoriesArgs) (*memoryHitsResult, error) {
	limit := cmp.Or(a.Limit, defaultMemoryResults)
	budget := cmp.Or(a.MaxTokens, defaultMemoryTokens)
	var hits []memories.Hit
	total := 0
	if f, ok := s.mem.(interface {
		Find(ctx context.Context, req memories.SearchRequest) (memories.SearchResult, error)
	}); ok {
		res, err := f.Find(ctx, memories.SearchRequest{Query: a.Query, Limit: limit})
		if err != nil {
			return nil, memoriesError(err)
		}
		hits, total = res.Hits, res.Total
	} else {
		ms, err := s.mem.Search(ctx, a.Query)
		if err != nil {
			return nil, memoriesError(err)
		}
		for _, m := range ms[:min(limit, len(ms))] {
			hits = append(hits, memories.Hit{Memory: m})
		}
		total = len(ms)
	}
	hits, err := withinTokens(hits, budget) // the best hit is always returned
	if err != nil {
		return nil, err
	}
	return &memoryHitsResult{Memories: nonNil(hits), More: total - len(hits)}, nil
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
	case errors.Is(err, memories.ErrSimilar):
		var se *memories.SimilarError
		var details map[string]any
		if errors.As(err, &se) {
			details = map[string]any{"similar": se.Similar}
		}
		return toolError(tools.CodeConflict, err, details, "%v", err)
	case errors.Is(err, memories.ErrLimit):
		return toolError(tools.CodeLimitExceeded, err, nil, "%v", err)
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
