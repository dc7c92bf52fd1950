package memorybank_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

func TestSchemasExported(t *testing.T) {
	names := memorybank.SchemaNames()
	assert.Equal(t, []string{"envelope", "branch_context", "active_context", "progress", "system_patterns", "generic"}, names)
	for _, n := range names {
		s, ok := memorybank.Schema(n)
		require.True(t, ok, n)
		var m map[string]any
		require.NoError(t, json.Unmarshal(s, &m), n)
		assert.Equal(t, "http://json-schema.org/draft-07/schema#", m["$schema"], n)
		assert.NotEmpty(t, m["description"], n)
	}
	_, ok := memorybank.Schema("../envelope")
	assert.False(t, ok)
	assert.Equal(t, "progress", memorybank.ContentSchemaFor("progress"))
	assert.Equal(t, "generic", memorybank.ContentSchemaFor("design"))
}

// Every template, in every language, passes the library's own schemas, and
// the content schemas reject what they should.
func TestTemplatesAndContentSchemas(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	for _, lang := range memorybank.Languages() {
		for _, f := range memorybank.DefaultBranchCoreFiles() {
			doc, ok := memorybank.Template(f, lang, `feature/"quoted"`)
			require.True(t, ok, "%s/%s", lang, f)
			res, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "t-" + string(lang), Path: f, Content: doc})
			require.NoError(t, err, "%s/%s", lang, f)
			assert.Contains(t, res.Tags, "core")
		}
		d := mustRead(t, b, memorybank.ScopeBranch, "t-"+string(lang), "branchContext.json")
		assert.Equal(t, `feature/"quoted"`, decode(t, d).Content["branchName"], "the branch name is JSON-escaped into the template")
	}
	_, ok := memorybank.Template("nope.json", memorybank.English, "x")
	assert.False(t, ok)
	_, ok = memorybank.Template("progress.json", "fr", "x")
	assert.False(t, ok)

	cases := []struct {
		docType, content string
		pointers         []string
	}{
		{"branch_context", `{"purpose":"p","userStories":[{"description":"d","completed":true}]}`, nil},
		{"branch_context", `{"branchName":"x"}`, []string{"/content/purpose"}},
		{"branch_context", `{"purpose":"p","userStories":[{"completed":"yes"}]}`, []string{"/content/userStories/0/completed", "/content/userStories/0/description"}},
		{"active_context", `{"currentWork":"w","nextSteps":["a",{"step":"b"}]}`, nil},
		{"active_context", `{}`, []string{"/content"}},
		{"active_context", `{"nextSteps":"a"}`, []string{"/content/nextSteps"}},
		{"progress", `{"status":"ok","knownIssues":[]}`, nil},
		{"progress", `{"status":["ok"]}`, []string{"/content/status"}},
		{"system_patterns", `{"technicalDecisions":[{"title":"t","decision":"d","consequences":["c"]}]}`, nil},
		{"system_patterns", `{"technicalDecisions":[{"title":"t"}]}`, []string{"/content/technicalDecisions/0/decision"}},
		{"design", `{"anything":{"goes":[1,2]}}`, nil},
		{"design", `{}`, []string{"/content"}},
	}
	for i, tc := range cases {
		_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "c.json",
			Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"c","documentType":"` + tc.docType + `"},"content":` + tc.content + `}`)})
		if tc.pointers == nil {
			assert.NoError(t, err, "case %d", i)
			continue
		}
		var ve *memorybank.ValidationError
		if assert.ErrorAs(t, err, &ve, "case %d", i) {
			var got []string
			for _, p := range ve.Problems {
				got = append(got, p.Pointer)
				assert.NotEmpty(t, p.Message)
			}
			assert.Equal(t, tc.pointers, got, "case %d", i)
			assert.Equal(t, memorybank.ContentSchemaFor(tc.docType), ve.Schema)
		}
	}

	// Envelope problems.
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "e.json",
		Content: raw(`{"schema":"memory_document_v1","metadata":{"title":5,"tags":"a"},"content":{"k":1}}`)})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	var got []string
	for _, p := range ve.Problems {
		got = append(got, p.Pointer)
	}
	assert.Equal(t, []string{"/metadata/tags", "/metadata/title"}, got, "schema is set by the bank; title and tags are the writer's")
	assert.Contains(t, err.Error(), "/metadata/title")
}
