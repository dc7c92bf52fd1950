package tools_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Arguments that decoding would change (bytes that are not UTF-8, escapes
// of lone surrogates) are refused, never read as U+FFFD: a path would name
// another document.
func TestToolsRefuseTextDecodingWouldChange(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteGlobalMemoryBank, "{\"path\":\"a\uFFFD.md\",\"content\":\"the document named with U+FFFD\"}")
	for _, tc := range []struct{ name, tool, args string }{
		{"invalid byte in a path", tools.WriteGlobalMemoryBank, "{\"path\":\"a\xff.md\",\"content\":\"x\"}"},
		{"lone surrogate in a path", tools.WriteGlobalMemoryBank, `{"path":"a\udc80.md","content":"x"}`},
		{"invalid byte in a read", tools.ReadGlobalMemoryBank, "{\"path\":\"a\xff.md\"}"},
		{"invalid byte in a delete", tools.DeleteDocument, "{\"scope\":\"global\",\"path\":\"a\xff.md\"}"},
		{"lone surrogate in content", tools.WriteGlobalMemoryBank, `{"path":"b.md","content":"x\ud800"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			te := e.fail(t, tc.tool, tc.args, tools.CodeInvalidArgument)
			assert.Contains(t, te.Message, "UTF-8")
			assert.Contains(t, te.Message, tc.tool)
		})
	}
	doc := e.ok(t, tools.ReadGlobalMemoryBank, "{\"path\":\"a\uFFFD.md\"}")
	assert.Equal(t, "the document named with U+FFFD", doc["content"], "the other document is unchanged")
}
