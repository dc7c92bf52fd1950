package mcpserver

import (
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// seedDocuments writes n tagged global documents notes/dNNNN.json.
func seedDocuments(t testing.TB, ts *testServer, n int) {
	t.Helper()
	for i := range n {
		_, err := ts.bank.Write(t.Context(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal,
			Path: fmt.Sprintf("notes/d%04d.json", i), Content: json.RawMessage(`{"note":` + strconv.Quote(fmt.Sprintf("note %d about the build", i)) + `}`),
			Tags: []string{"note", "build"}})
		require.NoError(t, err)
	}
}

// list_documents over a bank of 300 documents answers a small first page
// by default, and following the hint reaches every document once.
func TestListDocumentsPages(t *testing.T) {
	ts := newTestServer(t)
	seedDocuments(t, ts, 300)
	s := ts.connect(t, nil, "")

	isError, out, text := call(t, s, "list_documents", `{"scope":"global"}`)
	require.False(t, isError, text)
	assert.Len(t, out["documents"], 20)
	assert.Equal(t, float64(280), out["more"])
	assert.Contains(t, out["hint"], "offset 20")
	assert.Less(t, len(text), 8<<10, "the default answer is small")

	seen := map[string]int{}
	for offset := 0; ; {
		out := ok(t, s, "list_documents", fmt.Sprintf(`{"scope":"global","limit":100,"offset":%d}`, offset))
		docs := out["documents"].([]any)
		require.NotEmpty(t, docs)
		for _, d := range docs {
			seen[d.(map[string]any)["path"].(string)]++
		}
		offset += len(docs)
		if out["more"] == float64(0) {
			break
		}
		require.Less(t, offset, 300)
	}
	assert.Len(t, seen, 300)
	for p, n := range seen {
		assert.Equal(t, 1, n, p)
	}

	code, _ := fails(t, s, "list_documents", `{"scope":"global","limit":500}`)
	assert.Equal(t, "INVALID_ARGUMENT", code)
}

// TestListDocumentsBytes logs the size of the default list_documents
// answer at 1,000 documents (MNEMOBANK_LIST_BYTES=1 to run).
func TestListDocumentsBytes(t *testing.T) {
	if os.Getenv("MNEMOBANK_LIST_BYTES") == "" {
		t.Skip("MNEMOBANK_LIST_BYTES not set")
	}
	ts := newTestServer(t)
	seedDocuments(t, ts, 1000)
	s := ts.connect(t, nil, "")
	_, _, text := call(t, s, "list_documents", `{"scope":"global"}`)
	t.Logf("list_documents at 1000 documents, default call: %d bytes, about %d tokens", len(text), memorybank.EstimateTokens(text))
}

// list_memories keeps to maxTokens (4,000 by default), always returning
// the first memory, and its hint pages through every memory once.
func TestListMemoriesKeepsItsTokenBudget(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	for i := range 12 {
		ok(t, s, "add_memory", fmt.Sprintf(`{"content":"lesson %d: %s"}`, i, strings.Repeat("words of a long lesson ", 200)))
	}
	out := ok(t, s, "list_memories", `{}`)
	n := len(out["memories"].([]any))
	assert.Positive(t, n)
	assert.Less(t, n, 10, "the token budget cuts before the limit")
	assert.EqualValues(t, 12-n, out["more"])
	assert.Contains(t, out["hint"], fmt.Sprintf("offset %d", n))

	out = ok(t, s, "list_memories", `{"maxTokens":100}`)
	assert.Len(t, out["memories"], 1, "the first memory always comes")

	seen := map[string]bool{}
	for offset := 0; ; {
		out := ok(t, s, "list_memories", fmt.Sprintf(`{"offset":%d}`, offset))
		ms := out["memories"].([]any)
		require.NotEmpty(t, ms)
		for _, m := range ms {
			id := m.(map[string]any)["id"].(string)
			assert.False(t, seen[id], id)
			seen[id] = true
		}
		offset += len(ms)
		if out["more"] == float64(0) {
			assert.NotContains(t, out, "hint")
			break
		}
	}
	assert.Len(t, seen, 12)
}
