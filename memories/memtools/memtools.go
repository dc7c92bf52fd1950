// Package memtools gives a memories Manager's agent tools to a host, as
// package tools gives a memory bank's: add_memory, search_memories,
// list_memories, delete_memory and restore_memory, each declared with
// tools.Declare (schemas from the Go types, arguments decoded once and
// checked, failures as *tools.Error), so a host registers them with the
// bank's tools in one loop:
//
//	all := append(tools.Defs(bank), memtools.Defs(mgr)...)
//
// Rules where the tool protocol leaves a choice:
//
//   - search_memories and list_memories page as the bank's listings do
//     (tools.PageArgs: limit 10 by default, maxTokens 4000); search ranks,
//     so it has no offset.
//   - add_memory answers the new memory without its content, which the
//     model has just sent, and the existing memories that say nearly the
//     same; tags may come as a JSON string holding the list, as models
//     write them, as the bank's tools accept.
//   - The memories' errors map to the tools' codes with errors.Is and
//     errors.As: a near-duplicate refused by ifNoSimilar is CONFLICT with
//     the similar memories in details, a limit LIMIT_EXCEEDED, an unknown
//     id NOT_FOUND.
//
// The package does no I/O of its own: the Manager's Store does.
package memtools

import (
	"cmp"
	"context"
	"errors"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Tool names.
const (
	AddMemory      = "add_memory"
	SearchMemories = "search_memories"
	ListMemories   = "list_memories"
	DeleteMemory   = "delete_memory"
	RestoreMemory  = "restore_memory"
)

// defaultLimit is the default limit of search_memories and list_memories.
const defaultLimit = 10

var decls = []tools.Decl[*memories.Manager]{
	tools.Declare(AddMemory,
		`Remember a preference, fact or lesson for every conversation and branch. `+
			`Limits: content 64 KiB, 20 tags of 64 bytes.`,
		tools.Additive, adjustAdd, nil, runAdd),
	tools.Declare(SearchMemories,
		`Find learned memories by words or a question (at most 1 KiB), best first.`,
		tools.ReadOnly, func(s *jsonschema.Schema) { tools.AdjustPage(s, defaultLimit) }, nil, runSearch),
	tools.Declare(ListMemories,
		`List the learned memories, oldest first.`,
		tools.ReadOnly, func(s *jsonschema.Schema) { tools.AdjustPage(s, defaultLimit) }, nil, runList),
	tools.Declare(DeleteMemory,
		`Forget a learned memory; restore_memory undoes it.`,
		tools.Replacing, nil, nil, runDelete),
	tools.Declare(RestoreMemory,
		`Put back a deleted memory (the last 100 deletions are kept).`,
		tools.Additive, nil, nil, runRestore),
}

// Defs returns the memory tools of m bound to it, in a fixed order:
// add_memory, search_memories, list_memories, delete_memory,
// restore_memory; their schemas are derived by Def.Tool.
func Defs(m *memories.Manager) []tools.Def { return tools.Bind(m, decls...) }

// For returns the memory tools of m with their schemas, in the order of
// Defs.
func For(m *memories.Manager, opts ...tools.Option) []tools.Tool {
	return tools.Tools(Defs(m), opts...)
}

type addArgs struct {
	Content string   `json:"content" jsonschema:"first line: the title"`
	Tags    []string `json:"tags,omitempty"`
	Type    string   `json:"type,omitempty"`
	// IfNoSimilar refuses to add a memory that says nearly what an
	// existing one says.
	IfNoSimilar bool `json:"ifNoSimilar,omitempty" jsonschema:"CONFLICT if one says nearly the same"`
}

func adjustAdd(s *jsonschema.Schema) {
	tags := tools.Property(s, "tags")
	tags.Types, tags.Type = nil, "array"
	tags.MaxItems = jsonschema.Ptr(memories.MaxTags)
}

// summary is what add_memory answers: the new memory without its content,
// which the client has just sent.
type summary struct {
	ID           string   `json:"id" jsonschema:"The memory's id, for delete_memory."`
	Title        string   `json:"title" jsonschema:"The first line of the content, cut at 50 characters."`
	Tags         []string `json:"tags" jsonschema:"The tags as stored (trimmed, repeats dropped)."`
	Date         string   `json:"date" jsonschema:"The day it was added, YYYY-MM-DD."`
	ContentBytes int      `json:"contentBytes" jsonschema:"The size of the stored content in bytes (trimmed, line endings normalised)."`
}

type addResult struct {
	Memory  summary            `json:"memory"`
	Similar []memories.Similar `json:"similar" jsonschema:"Existing memories that say nearly the same thing, most similar first: consider deleting one of them."`
}

func runAdd(ctx context.Context, m *memories.Manager, _ tools.Env, a *addArgs) (*addResult, error) {
	tags := a.Tags
	if a.Type != "" {
		tags = append([]string{a.Type}, tags...)
	}
	res, err := m.AddWith(ctx, a.Content, memories.AddOptions{Tags: tags, IfNoSimilar: a.IfNoSimilar})
	if err != nil {
		return nil, Error(err)
	}
	mem := res.Memory
	return &addResult{Memory: summary{ID: mem.ID, Title: mem.Title, Tags: tools.NonNil(mem.Tags), Date: mem.Date, ContentBytes: len(mem.Content)},
		Similar: tools.NonNil(res.Similar)}, nil
}

type searchArgs struct {
	Query     string `json:"query"`
	Limit     int    `json:"limit,omitempty"`
	MaxTokens int    `json:"maxTokens,omitempty"`
}

type hitsResult struct {
	Memories []memories.Hit `json:"memories"`
	More     int            `json:"more" jsonschema:"How many more memories matched but were not returned (past limit or maxTokens); narrow the query or raise limit to see them."`
}

func runSearch(ctx context.Context, m *memories.Manager, _ tools.Env, a *searchArgs) (*hitsResult, error) {
	if strings.TrimSpace(a.Query) == "" {
		return nil, tools.Errorf(tools.CodeInvalidArgument, nil, map[string]any{"field": "query"},
			"search_memories: the query is empty; give a few words to look for, or use list_memories to list every memory.")
	}
	res, err := m.Find(ctx, memories.SearchRequest{Query: a.Query, Limit: cmp.Or(a.Limit, defaultLimit)})
	if err != nil {
		return nil, Error(err)
	}
	hits := tools.Fit(res.Hits, a.MaxTokens) // the best hit is always returned
	for i := range hits {
		hits[i].Memory = listed(hits[i].Memory)
	}
	return &hitsResult{Memories: tools.NonNil(hits), More: max(res.Total-len(hits), 0)}, nil
}

type listArgs struct {
	tools.PageArgs
}

type listResult struct {
	Memories []memories.Memory `json:"memories"`
	tools.PageResult
}

// runList answers list_memories: a page of the memories (only the page
// copied), cut at the token budget.
func runList(ctx context.Context, m *memories.Manager, _ tools.Env, a *listArgs) (*listResult, error) {
	p, err := m.ListPage(ctx, a.Offset, cmp.Or(a.Limit, defaultLimit))
	if err != nil {
		return nil, Error(err)
	}
	ms := tools.Fit(p.Memories, a.MaxTokens)
	for i := range ms {
		ms[i] = listed(ms[i])
	}
	return &listResult{tools.NonNil(ms), tools.PageOf(a.Offset, len(ms), p.Total)}, nil
}

type idArgs struct {
	ID string `json:"id"`
}

type deleteResult struct {
	Deleted bool   `json:"deleted"`
	ID      string `json:"id"`
}

func runDelete(ctx context.Context, m *memories.Manager, _ tools.Env, a *idArgs) (*deleteResult, error) {
	if err := m.Delete(ctx, a.ID); err != nil {
		return nil, Error(err)
	}
	return &deleteResult{true, a.ID}, nil
}

type memoryResult struct {
	Memory memories.Memory `json:"memory"`
}

func runRestore(ctx context.Context, m *memories.Manager, _ tools.Env, a *idArgs) (*memoryResult, error) {
	mem, err := m.Restore(ctx, a.ID)
	if err != nil {
		return nil, Error(err)
	}
	return &memoryResult{listed(mem)}, nil
}

// listed is m as a result shows it: tags [] rather than null.
func listed(m memories.Memory) memories.Memory {
	m.Tags = tools.NonNil(m.Tags)
	return m
}

// Error maps the memories package's errors to the tools' codes, by
// errors.Is and errors.As; other errors are returned as they are (the
// tools' AsError makes them INTERNAL).
func Error(err error) error {
	switch {
	case errors.Is(err, memories.ErrSimilar):
		var se *memories.SimilarError
		var details map[string]any
		if errors.As(err, &se) {
			details = map[string]any{"similar": se.Similar}
		}
		return tools.Errorf(tools.CodeConflict, err, details, "%v", err)
	case errors.Is(err, memories.ErrLimit):
		return tools.Errorf(tools.CodeLimitExceeded, err, nil, "%v", err)
	case errors.Is(err, memories.ErrNotFound):
		return tools.Errorf(tools.CodeNotFound, err, nil, "%v. list_memories shows the ids of every memory.", err)
	case errors.Is(err, memories.ErrInvalid):
		return tools.Errorf(tools.CodeInvalidArgument, err, nil, "%v", err)
	case errors.Is(err, memories.ErrTooLarge):
		return tools.Errorf(tools.CodeLimitExceeded, err, nil, "%v. Delete memories that no longer hold before adding more.", err)
	case errors.Is(err, memories.ErrDisabled):
		return tools.Errorf(tools.CodeInvalidArgument, err, nil, "%v in the user's configuration.", err)
	}
	return err
}
