package tools

import (
	"context"
	"encoding/json"

	"github.com/mnemobank/mnemobank/memorybank"
)

// SearchDocuments is the name of the full-text search tool.
const SearchDocuments = "search_documents"

// searchDocumentsSpec is the search_documents tool: Bank.Search.
var searchDocumentsSpec = toolSpec{
	name: SearchDocuments,
	description: `Find documents by what they say (branch is required when scope is "branch"): free text in any language (English, Japanese, Chinese), ranked best first ` +
		`by relevance over title, tags and text. Scope "all" (the default) searches the global memory bank and every branch bank, ` +
		`or, when branch is given, that branch's bank and the global bank. Returns scope, branch, path, title, score and a short snippet ` +
		`of each document; read one with read_branch_memory_bank or read_global_memory_bank.`,
	schema: searchDocumentsSchema(),
	run:    runSearchDocuments,
}

func searchDocumentsSchema() jsonObj {
	return objectSchema([]string{"query"}, jsonObj{
		"query": jsonObj{
			"type": "string", "minLength": 1, "maxLength": memorybank.MaxQueryBytes,
			"description": `What to look for, as words or a question: "how do we refresh tokens", "認証の方式", "数据库迁移".`,
		},
		"scope": withDefault(withEnum(prop("string",
			`"branch": the bank of branch only; "global": the global bank only; "all": the global bank and the bank of branch when given, else every branch bank.`),
			"branch", "global", "all"), "all"),
		"branch": branchProp(`Required when scope is "branch"; with scope "all" it limits the branch banks searched to this one.`),
		"tags": jsonObj{
			"type":        "array",
			"items":       jsonObj{"type": "string", "minLength": 1},
			"description": `Only documents carrying all of these tags (case does not matter), e.g. ["auth"].`,
		},
		"limit": withDefault(jsonObj{"type": "integer", "minimum": 1, "maximum": memorybank.MaxSearchLimit,
			"description": "The most results to return."}, memorybank.DefaultSearchLimit),
	})
}

// searchResults is the result of search_documents.
type searchResults struct {
	Results []memorybank.TextHit `json:"results"`
}

func runSearchDocuments(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var req memorybank.TextSearchRequest
	if err := decodeArgs(SearchDocuments, args, &req); err != nil {
		return nil, err
	}
	hits, err := b.Search(ctx, req)
	if err != nil {
		return nil, err
	}
	if hits == nil {
		hits = []memorybank.TextHit{}
	}
	return &searchResults{Results: hits}, nil
}

// readContextBudgetProps are the read_context arguments that choose
// documents within a token budget.
func readContextBudgetProps() jsonObj {
	return jsonObj{
		"query": jsonObj{
			"type": "string", "maxLength": memorybank.MaxQueryBytes,
			"description": `Optional: what the task is about. Beyond the core files, the documents most relevant to it are included whole ` +
				`while they fit maxTokens; the others are listed in leftOut with their token counts.`,
		},
		"maxTokens": jsonObj{
			"type": "integer", "minimum": 0, "maximum": maxSafeInteger,
			"description": `Optional token budget for the memory sections. Given (or with query), the budget is filled with whole documents ` +
				`beyond the core files, the most relevant (or most recent) first; what did not fit is listed in leftOut, and "more" counts the rest. ` +
				`0 or absent: the server's default budget, core files and a listing of paths only.`,
		},
	}
}
