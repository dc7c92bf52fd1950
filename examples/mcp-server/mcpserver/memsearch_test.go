package mcpserver

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Agents ask in sentences: search_memories finds a memory by a question
// that shares only some of its words, with a score and a snippet, and a
// memory holding the query's words as written still comes first.
func TestSearchMemoriesAnswersSentences(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	ok(t, s, "add_memory", `{"content":"Always wrap adapter calls in try-catch so one failing adapter does not stop the loop."}`)
	ok(t, s, "add_memory", `{"content":"The user prefers short answers."}`)
	ok(t, s, "add_memory", `{"content":"Handle errors from the billing API by retrying twice."}`)

	found := ok(t, s, "search_memories", `{"query":"how should I handle errors from adapters"}`)["memories"].([]any)
	require.NotEmpty(t, found)
	var adapter map[string]any
	for _, f := range found {
		if strings.Contains(f.(map[string]any)["content"].(string), "adapter") {
			adapter = f.(map[string]any)
		}
	}
	require.NotNil(t, adapter, "the adapter memory answers the question: %v", found)
	assert.Positive(t, adapter["score"])
	assert.NotEmpty(t, adapter["snippet"])

	first := ok(t, s, "search_memories", `{"query":"short answers"}`)["memories"].([]any)
	require.NotEmpty(t, first)
	assert.Contains(t, first[0].(map[string]any)["content"], "short answers", "a substring match comes first")
}

// A search answer keeps within its token budget and counts what it left
// out; the best hit is always there.
func TestSearchMemoriesKeepsItsTokenBudget(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	for i := range 12 {
		ok(t, s, "add_memory", fmt.Sprintf(`{"content":"Deploy note %d: %s"}`, i, strings.Repeat("deploy the service with care and check the logs ", 20)))
	}
	all := ok(t, s, "search_memories", `{"query":"deploy","limit":12,"maxTokens":32000}`)
	assert.Len(t, all["memories"], 12)
	assert.EqualValues(t, 0, all["more"])
	small := ok(t, s, "search_memories", `{"query":"deploy","limit":12,"maxTokens":400}`)
	n := len(small["memories"].([]any))
	assert.GreaterOrEqual(t, n, 1)
	assert.Less(t, n, 12, "a 400-token budget holds fewer than twelve 200-token memories")
	assert.EqualValues(t, 12-n, small["more"])
	code, _ := fails(t, s, "search_memories", `{"query":"deploy","maxTokens":5}`)
	assert.Equal(t, "INVALID_ARGUMENT", code, "a budget below 100 tokens is refused")
}

// add_memory names the memories that say nearly the same thing, and with
// ifNoSimilar adds nothing when one does.
func TestAddMemoryReportsSimilar(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	first := ok(t, s, "add_memory", `{"content":"Run the integration tests against PostgreSQL 15 before every release."}`)
	id := first["memory"].(map[string]any)["id"].(string)
	assert.Empty(t, first["similar"])

	again := ok(t, s, "add_memory", `{"content":"Before every release, run the integration tests against PostgreSQL 15."}`)
	sim := again["similar"].([]any)
	require.Len(t, sim, 1)
	assert.Equal(t, id, sim[0].(map[string]any)["id"])

	code, msg := fails(t, s, "add_memory", `{"content":"Run the integration tests against PostgreSQL 15 before each release.","ifNoSimilar":true}`)
	assert.Equal(t, "CONFLICT", code)
	assert.Contains(t, msg, id)
	assert.Len(t, ok(t, s, "list_memories", `{"limit":100}`)["memories"], 2, "the refused memory was not added")
}
