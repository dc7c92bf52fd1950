package tools

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
)

// The listing tools (list_documents, search_documents,
// search_documents_by_tags, document_history) answer a page at a time:
// at most limit results after skipping offset, cut further to maxTokens
// (estimated over each result's JSON, the first result always kept), with
// the number of results after the page in more.
const (
	MaxPageLimit      = 100   // the largest limit
	DefaultPageTokens = 4000  // maxTokens when absent
	MinPageTokens     = 100   // the smallest maxTokens
	MaxPageTokens     = 32000 // the largest maxTokens
)

// PageArgs are the paging arguments of a listing tool, embedded in its
// argument type (every listing tool of every domain pages alike); its
// adjust calls AdjustPage.
type PageArgs struct {
	Limit     int `json:"limit,omitempty"`
	Offset    int `json:"offset,omitempty"`
	MaxTokens int `json:"maxTokens,omitempty"`
}

// AdjustPage bounds the paging arguments of PageArgs (or of a type with
// limit and maxTokens and no offset, for a tool that ranks and does not
// skip), limit defaulting to limit.
func AdjustPage(s *jsonschema.Schema, limit int) {
	SetBounds(s, "limit", 1, MaxPageLimit)
	SetDefault(s, "limit", limit)
	if s.Properties["offset"] != nil {
		SetBounds(s, "offset", 0, 0)
	}
	SetBounds(s, "maxTokens", MinPageTokens, 0) // above MaxPageTokens: MaxPageTokens
	SetDefault(s, "maxTokens", DefaultPageTokens)
}

// PageResult says how many results follow a page (More) and, when any
// do, how to get them (Hint: the offset of the next page); it is embedded
// in a listing tool's result.
type PageResult struct {
	More int    `json:"more"`
	Hint string `json:"hint,omitempty"`
}

// Fit cuts items to the token budget (DefaultPageTokens when 0), keeping
// the first item whatever its size.
func Fit[T any](items []T, budget int) []T {
	if budget <= 0 {
		budget = DefaultPageTokens
	}
	budget = min(budget, MaxPageTokens)
	used := 0
	for i, it := range items {
		enc, err := json.Marshal(it)
		if err != nil {
			continue
		}
		used += memorybank.EstimateTokens(string(enc))
		if used > budget && i > 0 {
			return items[:i]
		}
	}
	return items
}

// PageOf describes the page of returned results from offset, of total.
func PageOf(offset, returned, total int) PageResult {
	more := max(total-offset-returned, 0)
	r := PageResult{More: more}
	if more > 0 {
		r.Hint = fmt.Sprintf("%d more: call again with offset %d (or raise limit, maxTokens).", more, offset+returned)
	}
	return r
}
