package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
)

// SearchDocuments is the name of the full-text search tool.
const SearchDocuments = "search_documents"

// searchDocumentsDecl is the search_documents tool: Bank.Search.
var searchDocumentsDecl = Declare(SearchDocuments,
	`Find documents by what they say (any language), best first, with a snippet each.`,
	ReadOnly, adjustSearchDocuments, nil, runSearchDocuments)

type searchDocumentsArgs struct {
	Query  string           `json:"query"`
	Scope  memorybank.Scope `json:"scope,omitempty"`
	Branch string           `json:"branch,omitempty"`
	Tags   []string         `json:"tags,omitempty" jsonschema:"all of these"`
	PageArgs
}

func (a *searchDocumentsArgs) BranchRef() *string { return &a.Branch }
func (a *searchDocumentsArgs) NeedsBranch() bool  { return a.Scope == memorybank.ScopeBranch }

func adjustSearchDocuments(s *jsonschema.Schema) {
	one := 1
	SetMinLength(s, "query", 1)
	Property(s, "query").MaxLength = jsonschema.Ptr(memorybank.MaxQueryBytes)
	SetEnum(s, "scope", string(memorybank.ScopeBranch), string(memorybank.ScopeGlobal), string(memorybank.ScopeAll))
	SetDefault(s, "scope", memorybank.ScopeAll)
	tags := Property(s, "tags")
	tags.Types, tags.Type = nil, "array"
	tags.Items.MinLength = &one
	AdjustPage(s, memorybank.DefaultSearchLimit)
}

// searchResults is the result of search_documents.
type searchResults struct {
	Results []memorybank.TextHit `json:"results"`
	PageResult
}

func runSearchDocuments(ctx context.Context, b *memorybank.Bank, _ Env, a *searchDocumentsArgs) (*searchResults, error) {
	p, err := b.SearchTextPage(ctx, memorybank.TextSearchRequest{Query: a.Query, Scope: a.Scope, Branch: a.Branch, Tags: a.Tags,
		Limit: a.Limit, Offset: a.Offset})
	if err != nil {
		return nil, err
	}
	hits := Fit(NonNil(p.Items), a.MaxTokens)
	return &searchResults{hits, PageOf(a.Offset, len(hits), p.Total)}, nil
}

// readContextBudget are the read_context arguments that choose documents
// within a token budget.
type readContextBudget struct {
	Query     string `json:"query,omitempty" jsonschema:"the task, to add relevant documents"`
	MaxTokens int    `json:"maxTokens,omitempty"`
}

func adjustReadContextBudget(s *jsonschema.Schema) {
	Property(s, "query").MaxLength = jsonschema.Ptr(memorybank.MaxQueryBytes)
	SetBounds(s, "maxTokens", 0, 0)
}
