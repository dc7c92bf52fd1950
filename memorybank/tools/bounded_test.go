package tools_test

import (
	"context"
	"encoding/json"
	"runtime"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// A document larger than a write could store (placed in the bank by hand)
// is read within that limit: a text cut with a note, a JSON document
// refused with the sizes.
func TestReadOfADocumentOverTheWriteLimitIsBounded(t *testing.T) {
	e := newToolEnv(t, nil)
	ctx := context.Background()
	line := "a line of a very large note\n"
	text := "# Large\n\n" + strings.Repeat(line, 10<<20/len(line))
	_, err := e.store.Put(ctx, memorybank.GlobalPrefix+"large.md", []byte(text), memorybank.Condition{})
	require.NoError(t, err)
	_, err = e.store.Put(ctx, memorybank.GlobalPrefix+"large.json", []byte(`{"content":{"notes":"`+strings.Repeat("x", 3<<20)+`"}}`), memorybank.Condition{})
	require.NoError(t, err)

	out := e.ok(t, tools.ReadGlobalMemoryBank, `{"path":"large.md"}`)
	got := out["content"].(string)
	assert.LessOrEqual(t, len(got), memorybank.DefaultMaxDocumentBytes+512, "the answer is bounded")
	assert.True(t, strings.HasPrefix(text, got[:len(got)-400]), "it is the document's beginning")
	assert.True(t, strings.Contains(got, "[Truncated: this document is"), "with a note")

	te := e.fail(t, tools.ReadGlobalMemoryBank, `{"path":"large.json"}`, tools.CodeLimitExceeded)
	assert.Contains(t, te.Message, "document size")
}

// JSON content sent as a string (as some clients send it) nested 9,000
// deep is refused by its depth, before it expands.
func TestWriteOfDeepJSONInAStringIsRefused(t *testing.T) {
	e := newToolEnv(t, nil)
	nested := strings.Repeat("[", 9000) + strings.Repeat("]", 9000)
	arg, err := json.Marshal(`{"list":` + nested + `}`)
	require.NoError(t, err)
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	te := e.fail(t, tools.WriteGlobalMemoryBank, `{"path":"deep.json","content":`+string(arg)+`}`, tools.CodeLimitExceeded)
	runtime.ReadMemStats(&after)
	assert.Contains(t, te.Message, "nesting depth")
	assert.Less(t, after.TotalAlloc-before.TotalAlloc, uint64(32<<20))
}
