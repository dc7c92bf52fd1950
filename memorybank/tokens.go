package memorybank

import "github.com/mnemobank/mnemobank/internal/tokens"

// TokenCounter counts the tokens a language model would see for a text, to
// budget what ReadContext returns. CountTokens must be safe for concurrent
// use and must not retain text.
type TokenCounter interface {
	CountTokens(text string) int
}

// TokenCounterFunc adapts a function (a real tokenizer's count) to a
// TokenCounter.
type TokenCounterFunc func(text string) int

// CountTokens returns f(text).
func (f TokenCounterFunc) CountTokens(text string) int { return f(text) }

// EstimateTokens is the default token count (Options.TokenCounter): an
// estimate of the count of
// the o200k_base BPE tokenizer (GPT-4o and later) without its vocabulary,
// within 15% on English, Japanese and Chinese prose, source code and JSON
// of a hundred tokens or more (cl100k_base, of GPT-4, counts Chinese and
// Japanese about 25% higher). It walks the text once, weighing ASCII words
// (with the space before them), groups of digits, runs of punctuation and
// of white space, and each Han character, kana and full-width mark, with
// weights fitted to counts of the real tokenizer (testdata/tokens; the
// memories package budgets its injection with the same estimate).
func EstimateTokens(text string) int { return tokens.Estimate(text) }
