package tools

import (
	"context"
	"encoding/json"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// callSpec runs a declared tool as For's tools do.
func callSpec(t *testing.T, d Decl[*memorybank.Bank], b *memorybank.Bank, args string) (any, error) {
	t.Helper()
	return d.Bind(b).Handle(context.Background(), Env{}, json.RawMessage(args))
}

func TestSearchDocumentsTool(t *testing.T) {
	ctx := context.Background()
	b := memorybank.New(&memorybank.MemStore{}, nil)
	for _, w := range []memorybank.WriteRequest{
		{Scope: memorybank.ScopeGlobal, Path: "auth.md", Text: "# Tokens\n\nAccess tokens expire after 15 minutes.\n", Tags: []string{"Auth"}},
		{Scope: memorybank.ScopeBranch, Branch: "feature/x", Path: "notes.md", Text: "Token refresh is flaky on Safari.\n"},
		{Scope: memorybank.ScopeGlobal, Path: "db.md", Text: "Migrations run with goose.\n"},
	} {
		_, err := b.Write(ctx, w)
		require.NoError(t, err)
	}
	res, err := callSpec(t, searchDocumentsDecl, b, `{"query":"token expiry"}`)
	require.NoError(t, err)
	out, err := json.Marshal(res)
	require.NoError(t, err)
	var got struct {
		Results []map[string]any `json:"results"`
	}
	require.NoError(t, json.Unmarshal(out, &got))
	require.Len(t, got.Results, 2, "scope all covers every branch bank: %s", out)
	assert.Equal(t, "auth.md", got.Results[0]["path"])
	for _, k := range []string{"scope", "path", "title", "score", "snippet"} {
		assert.Contains(t, got.Results[0], k)
	}
	assert.Equal(t, "feature/x", got.Results[1]["branch"])

	res, err = callSpec(t, searchDocumentsDecl, b, `{"query":"token","tags":["auth"],"limit":1}`)
	require.NoError(t, err)
	assert.Len(t, res.(*searchResults).Results, 1)
	res, err = callSpec(t, searchDocumentsDecl, b, `{"query":"nothing like this"}`)
	require.NoError(t, err)
	out, _ = json.Marshal(res)
	assert.JSONEq(t, `{"results":[],"more":0}`, string(out))

	for _, bad := range []string{`{}`, `{"query":""}`, `{"query":"x","limit":0}`, `{"query":"x","limit":101}`, `{"query":"x","scope":"every"}`, `{"query":"x","extra":1}`} {
		_, err := callSpec(t, searchDocumentsDecl, b, bad)
		var te *Error
		require.ErrorAs(t, err, &te, bad)
		assert.Equal(t, CodeInvalidArgument, te.Code, bad)
	}
	_, err = callSpec(t, searchDocumentsDecl, b, `{"query":"x","scope":"branch"}`)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, CodeInvalidArgument, te.Code)
	assert.Contains(t, te.Message, "branch")
}

// read_context with query and maxTokens (readContextBudget).
func TestReadContextBudgetArguments(t *testing.T) {
	ctx := context.Background()
	b := memorybank.New(&memorybank.MemStore{}, nil)
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/pay.md", Text: "Refunds need a manager.\n"})
	require.NoError(t, err)
	i := slices.IndexFunc(decls, func(d Decl[*memorybank.Bank]) bool { return d.Name() == ReadContext })
	require.GreaterOrEqual(t, i, 0)
	spec := decls[i]
	res, err := callSpec(t, spec, b, `{"includeBranchMemory":false,"includeRules":false,"query":"refunds","maxTokens":2000}`)
	require.NoError(t, err)
	rc := res.(*memorybank.ReadContextResult)
	assert.Contains(t, rc.GlobalMemory, "notes/pay.md")
	_, err = callSpec(t, spec, b, `{"includeBranchMemory":false,"maxTokens":-1}`)
	var te *Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, CodeInvalidArgument, te.Code)
}
