package lcmemory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/tmc/langchaingo/schema"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// DefaultMaxTokens is a retriever's budget when MaxTokens is 0.
const DefaultMaxTokens = 4000

// BankRetriever finds the bank's documents relevant to a query. The zero
// value but Bank is usable: every bank (ScopeAll), DefaultSearchLimit
// hits, DefaultMaxTokens, memorybank.EstimateTokens.
type BankRetriever struct {
	Bank *memorybank.Bank
	// Scope, Branch and Tags narrow the search as in
	// memorybank.TextSearchRequest.
	Scope  memorybank.Scope
	Branch string
	Tags   []string
	// Limit is the most documents searched for: 0 means
	// memorybank.DefaultSearchLimit, at most memorybank.MaxSearchLimit.
	Limit int
	// MaxTokens caps the PageContent of the documents returned; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// Tokens counts them; nil means memorybank.EstimateTokens.
	Tokens memorybank.TokenCounter
}

var _ schema.Retriever = (*BankRetriever)(nil)

// GetRelevantDocuments searches the bank for query and reads the hits, best
// first, within the token budget. Errors are the Bank's (an empty query
// is memorybank.ErrInvalidRequest).
func (r *BankRetriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	if r.Bank == nil {
		return nil, errors.New("lcmemory: BankRetriever has no Bank")
	}
	page, err := r.Bank.SearchTextPage(ctx, memorybank.TextSearchRequest{Query: query, Scope: r.Scope, Branch: r.Branch,
		Tags: r.Tags, Limit: r.Limit})
	if err != nil {
		return nil, err
	}
	b := newBudget(r.MaxTokens, r.Tokens)
	docs := []schema.Document{}
	for _, h := range page.Items {
		doc, err := r.Bank.Read(ctx, memorybank.ReadRequest{Scope: h.Scope, Branch: h.Branch, Path: h.Path})
		if errors.Is(err, memorybank.ErrNotFound) {
			continue // deleted since the search
		}
		if err != nil {
			return nil, err
		}
		text, err := pageContent(doc)
		if err != nil {
			return nil, err
		}
		if !b.take(text) {
			continue
		}
		docs = append(docs, schema.Document{PageContent: text, Score: float32(h.Score), Metadata: map[string]any{
			"scope": string(doc.Scope), "branch": doc.Branch, "path": doc.Path, "title": doc.Title, "tags": doc.Tags,
			"version": doc.Version, "lastModified": doc.LastModified, "score": h.Score}})
	}
	return docs, nil
}

// pageContent is a text document's text, or a JSON document's content
// member as JSON (its metadata is in the Document's Metadata already).
func pageContent(doc *memorybank.Document) (string, error) {
	if doc.Format == memorybank.FormatText {
		return doc.Text(), nil
	}
	var env struct {
		Content json.RawMessage `json:"content"`
	}
	if err := json.Unmarshal(doc.Content, &env); err != nil {
		return "", fmt.Errorf("lcmemory: %s: its envelope does not decode: %w", doc.Path, err)
	}
	return string(env.Content), nil
}

// Finder is the search of the memories; *memories.Manager implements it.
type Finder interface {
	Find(ctx context.Context, req memories.SearchRequest) (memories.SearchResult, error)
}

// MemoriesRetriever finds the learned memories relevant to a query. The
// zero value but Memories is usable: memories.DefaultSearchLimit hits,
// DefaultMaxTokens, memorybank.EstimateTokens.
type MemoriesRetriever struct {
	Memories Finder
	// Limit is the most memories searched for: 0 means
	// memories.DefaultSearchLimit, at most memories.MaxSearchLimit.
	Limit int
	// MaxTokens caps the PageContent of the memories returned; 0 means
	// DefaultMaxTokens.
	MaxTokens int
	// Tokens counts them; nil means memorybank.EstimateTokens.
	Tokens memorybank.TokenCounter
}

var _ schema.Retriever = (*MemoriesRetriever)(nil)

// GetRelevantDocuments searches the memories for query, best first, within
// the token budget. An empty query gives the newest memories. Errors are
// the Manager's (a query over memories.MaxQueryBytes is a
// *memories.LimitError).
func (r *MemoriesRetriever) GetRelevantDocuments(ctx context.Context, query string) ([]schema.Document, error) {
	if r.Memories == nil {
		return nil, errors.New("lcmemory: MemoriesRetriever has no Memories")
	}
	res, err := r.Memories.Find(ctx, memories.SearchRequest{Query: query, Limit: r.Limit})
	if err != nil {
		return nil, err
	}
	b := newBudget(r.MaxTokens, r.Tokens)
	docs := []schema.Document{}
	for _, h := range res.Hits {
		if !b.take(h.Content) {
			continue
		}
		docs = append(docs, schema.Document{PageContent: h.Content, Score: float32(h.Score), Metadata: map[string]any{
			"id": h.ID, "title": h.Title, "tags": h.Tags, "date": h.Date, "score": h.Score, "substring": h.Substring}})
	}
	return docs, nil
}

// budget is what is left of a retriever's token budget.
type budget struct {
	left  int
	count memorybank.TokenCounter
}

func newBudget(max int, count memorybank.TokenCounter) *budget {
	if max <= 0 {
		max = DefaultMaxTokens
	}
	if count == nil {
		count = memorybank.TokenCounterFunc(memorybank.EstimateTokens)
	}
	return &budget{left: max, count: count}
}

// take reports whether text fits what is left, and spends it if so.
func (b *budget) take(text string) bool {
	n := b.count.CountTokens(text)
	if n > b.left {
		return false
	}
	b.left -= n
	return true
}
