package tools

import (
	"context"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
)

// SearchDocuments is the name of the full-text search tool.
const SearchDocuments = "search_documents"

// searchDocumentsDecl is the search_documents tool: Bank.Search.
var searchDocumentsDecl = declare(SearchDocuments,
	`Find documents by what they say (branch required for scope "branch"): free text in any language (English, Japanese, Chinese), ranked best first `+
		`by relevance over title, tags and text. Scope "all" (the default) searches the global memory bank and every branch bank, `+
		`or, when branch is given, that branch's bank and the global bank. Returns scope, branch, path, title, score and a short snippet `+
		`of each document; read one with read_branch_memory_bank or read_global_memory_bank. `+pageText(memorybank.DefaultSearchLimit),
	ReadOnly, adjustSearchDocuments, nil, runSearchDocuments)

type searchDocumentsArgs struct {
	Query  string           `json:"query" jsonschema:"What to look for, as words or a question: \"how do we refresh tokens\", \"認証の方式\", \"数据库迁移\"."`
	Scope  memorybank.Scope `json:"scope,omitempty" jsonschema:"\"branch\": the bank of branch only; \"global\": the global bank only; \"all\": the global bank and the bank of branch when given, else every branch bank."`
	Branch string           `json:"branch,omitempty" jsonschema:"Git branch name, e.g. \"main\" or \"feature/login\" (the bank does not detect it; pass the current branch). Required when scope is \"branch\"; with scope \"all\" it limits the branch banks searched to this one."`
	Tags   []string         `json:"tags,omitempty" jsonschema:"Only documents carrying all of these tags (case does not matter), e.g. [\"auth\"]."`
	pageArgs
}

func (a *searchDocumentsArgs) branchRef() *string { return &a.Branch }
func (a *searchDocumentsArgs) needsBranch() bool  { return a.Scope == memorybank.ScopeBranch }

func adjustSearchDocuments(s *jsonschema.Schema) {
	one := 1
	setMinLength(s, "query", 1)
	property(s, "query").MaxLength = jsonschema.Ptr(memorybank.MaxQueryBytes)
	setEnum(s, "scope", string(memorybank.ScopeBranch), string(memorybank.ScopeGlobal), string(memorybank.ScopeAll))
	setDefault(s, "scope", memorybank.ScopeAll)
	setMinLength(s, "branch", 1)
	tags := property(s, "tags")
	tags.Types, tags.Type = nil, "array"
	tags.Items.MinLength = &one
	adjustPage(s, memorybank.DefaultSearchLimit)
}

// searchResults is the result of search_documents.
type searchResults struct {
	Results []memorybank.TextHit `json:"results"`
	pageResult
}

func runSearchDocuments(ctx context.Context, b *memorybank.Bank, a *searchDocumentsArgs) (*searchResults, error) {
	p, err := b.SearchTextPage(ctx, memorybank.TextSearchRequest{Query: a.Query, Scope: a.Scope, Branch: a.Branch, Tags: a.Tags,
		Limit: a.Limit, Offset: a.Offset})
	if err != nil {
		return nil, err
	}
	hits := fit(nonNil(p.Items), a.MaxTokens)
	return &searchResults{hits, pageOf(a.Offset, len(hits), p.Total)}, nil
}

// readContextBudget are the read_context arguments that choose documents
// within a token budget.
type readContextBudget struct {
	Query     string `json:"query,omitempty" jsonschema:"Optional: what the task is about. Beyond the core files, the documents most relevant to it are included whole while they fit maxTokens; the others are listed in leftOut with their token counts."`
	MaxTokens int    `json:"maxTokens,omitempty" jsonschema:"Optional token budget for the memory sections. Given (or with query), the budget is filled with whole documents beyond the core files, the most relevant (or most recent) first; what did not fit is listed in leftOut, and \"more\" counts the rest. 0 or absent: the server's default budget, core files and a listing of paths only."`
}

func adjustReadContextBudget(s *jsonschema.Schema) {
	property(s, "query").MaxLength = jsonschema.Ptr(memorybank.MaxQueryBytes)
	setBounds(s, "maxTokens", 0, maxSafeInteger)
}
