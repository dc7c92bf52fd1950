package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// pagingEnv holds 150 global documents tagged "t" that all mention
// "alpha", and one document with 40 versions.
func pagingEnv(t *testing.T) *toolEnv {
	e := newToolEnv(t, nil)
	for i := range 150 {
		e.ok(t, tools.WriteGlobalMemoryBank, fmt.Sprintf(`{"path":"d%03d.md","content":"alpha note %d","tags":["t"]}`, i, i))
	}
	for i := range 40 {
		e.ok(t, tools.WriteGlobalMemoryBank, fmt.Sprintf(`{"path":"h.json","content":{"n":%d}}`, i))
	}
	return e
}

// pagingCases are the listing tools, their arguments, the member holding
// the results and what identifies one, and how many results there are.
var pagingCases = []struct {
	tool, args, member, key string
	total                   int
}{
	{tools.ListDocuments, `"scope":"global","prefix":"d"`, "documents", "path", 150},
	{tools.SearchDocumentsByTags, `"tags":["t"],"scope":"global"`, "documents", "path", 150},
	{tools.SearchDocuments, `"query":"alpha","scope":"global"`, "results", "path", 150},
	{tools.DocumentHistory, `"scope":"global","path":"h.json"`, "entries", "version", 40},
}

func results(out map[string]any, member string) []any { return out[member].([]any) }

// Every listing tool answers a small page by default, counts the rest in
// more and says how to get them.
func TestListingToolsPageByDefault(t *testing.T) {
	e := pagingEnv(t)
	for _, c := range pagingCases {
		t.Run(c.tool, func(t *testing.T) {
			out := e.ok(t, c.tool, "{"+c.args+"}")
			got := len(results(out, c.member))
			assert.LessOrEqual(t, got, 20)
			assert.Positive(t, got)
			assert.Equal(t, float64(c.total-got), out["more"])
			assert.Equal(t, fmt.Sprintf("%d more: call again with offset %d (or raise limit, maxTokens).", c.total-got, got), out["hint"])
			enc, _ := json.Marshal(out[c.member])
			assert.LessOrEqual(t, memorybank.EstimateTokens(string(enc)), tools.DefaultPageTokens+100)

			out = e.ok(t, c.tool, "{"+c.args+`,"limit":3}`)
			assert.Len(t, results(out, c.member), 3)
			assert.Equal(t, float64(c.total-3), out["more"])

			e.fail(t, c.tool, "{"+c.args+`,"limit":101}`, tools.CodeInvalidArgument)
			e.fail(t, c.tool, "{"+c.args+`,"offset":-1}`, tools.CodeInvalidArgument)
			e.fail(t, c.tool, "{"+c.args+`,"maxTokens":99}`, tools.CodeInvalidArgument)
			out = e.ok(t, c.tool, "{"+c.args+`,"limit":100,"maxTokens":1000000}`)
			enc, _ = json.Marshal(out[c.member])
			assert.LessOrEqual(t, memorybank.EstimateTokens(string(enc)), tools.MaxPageTokens+100, "maxTokens is capped")
		})
	}
}

// Following nextOffset pages through every result exactly once, whatever
// cuts the pages: limit or maxTokens.
func TestListingToolsPageThroughEverything(t *testing.T) {
	e := pagingEnv(t)
	for _, c := range pagingCases {
		for _, extra := range []string{`"limit":7`, `"limit":100,"maxTokens":100`, `"limit":100`} {
			t.Run(c.tool+"/"+extra, func(t *testing.T) {
				seen := map[string]int{}
				offset, calls := 0, 0
				for {
					out := e.ok(t, c.tool, fmt.Sprintf(`{%s,%s,"offset":%d}`, c.args, extra, offset))
					page := results(out, c.member)
					require.NotEmpty(t, page)
					for _, r := range page {
						seen[fmt.Sprint(r.(map[string]any)[c.key])]++
					}
					offset += len(page)
					calls++
					require.Equal(t, float64(c.total-offset), out["more"])
					if out["more"] == float64(0) {
						assert.NotContains(t, out, "hint")
						break
					}
					require.Contains(t, out["hint"], fmt.Sprintf("with offset %d ", offset))
					require.Less(t, calls, 200)
				}
				assert.Len(t, seen, c.total)
				for k, n := range seen {
					assert.Equal(t, 1, n, "%s seen %d times", k, n)
				}
				if strings.Contains(extra, "maxTokens") {
					assert.Greater(t, calls, 2, "maxTokens cuts the pages")
				}
				out := e.ok(t, c.tool, fmt.Sprintf(`{%s,"offset":%d}`, c.args, c.total+5))
				assert.Empty(t, results(out, c.member))
				assert.Equal(t, float64(0), out["more"])
			})
		}
	}
}

// maxTokens always keeps the first result, however large.
func TestListingToolsKeepTheFirstResult(t *testing.T) {
	e := newToolEnv(t, nil)
	big := strings.Repeat("word ", 2000)
	for i := range 3 {
		e.ok(t, tools.WriteGlobalMemoryBank, fmt.Sprintf(`{"path":"big%d.md","content":%q,"tags":[%q]}`, i, big, strings.Repeat("x", 60)+fmt.Sprint(i)))
	}
	out := e.ok(t, tools.ListDocuments, `{"scope":"global","maxTokens":100}`)
	assert.Len(t, results(out, "documents"), 1)
	assert.Equal(t, float64(2), out["more"])
}
