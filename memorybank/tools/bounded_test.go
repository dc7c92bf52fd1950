package tools_test

import (
	"context"
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
