package toolcall_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/memorybank/tools/toolcall"
)

func newSet(t *testing.T) *toolcall.Set {
	t.Helper()
	set, err := toolcall.New(tools.For(memorybank.New(&memorybank.MemStore{}, nil)), tools.Env{})
	require.NoError(t, err)
	return set
}

// Every tool of the bank is a function an API takes: parameters of type
// object, with the tool's properties.
func TestFunctionsOfEveryTool(t *testing.T) {
	set := newSet(t)
	all := tools.For(memorybank.New(&memorybank.MemStore{}, nil))
	fs := set.Functions()
	require.Len(t, fs, len(all))
	for i, f := range fs {
		assert.Equal(t, all[i].Name, f.Name)
		assert.Equal(t, all[i].Description, f.Description)
		assert.Equal(t, "object", f.Parameters["type"], f.Name)
		props, ok := f.Parameters["properties"].(map[string]any)
		require.True(t, ok, f.Name)
		assert.Len(t, props, len(all[i].InputSchema.Properties), f.Name)
	}
	// Each call gives new maps: a host's change stays its own.
	fs[0].Parameters["type"] = "changed"
	assert.Equal(t, "object", set.Functions()[0].Parameters["type"])
}

func TestNewRefusesWhatAnAPIRefuses(t *testing.T) {
	ok := tools.For(memorybank.New(&memorybank.MemStore{}, nil))[0]
	with := func(change func(*tools.Tool)) []tools.Tool {
		t := ok
		t.InputSchema = ok.InputSchema.CloneSchemas()
		change(&t)
		return []tools.Tool{t}
	}
	for name, ts := range map[string][]tools.Tool{
		"dotted name": with(func(t *tools.Tool) { t.Name = "memory.write" }),
		"empty name":  with(func(t *tools.Tool) { t.Name = "" }),
		"long name":   with(func(t *tools.Tool) { t.Name = string(make([]byte, 65)) }),
		"twice":       {ok, ok},
		"no schema":   with(func(t *tools.Tool) { t.InputSchema = nil }),
		"not object":  with(func(t *tools.Tool) { t.InputSchema = &jsonschema.Schema{Type: "string"} }),
		"anyOf top": with(func(t *tools.Tool) {
			t.InputSchema.AnyOf = []*jsonschema.Schema{{Required: []string{"path"}}}
		}),
		"no handle": with(func(t *tools.Tool) { t.Handle = nil }),
	} {
		_, err := toolcall.New(ts, tools.Env{})
		require.Error(t, err, name)
		assert.ErrorIs(t, err, toolcall.ErrInvalidTool, name)
		var de *toolcall.DeclError
		require.ErrorAs(t, err, &de, name)
		assert.NotEmpty(t, de.Reason, name)
	}
}

// A result is answered as its JSON; a failure as the *tools.Error's JSON,
// marked as an error, with the code and hint the model acts on.
func TestCallAnswers(t *testing.T) {
	ctx := context.Background()
	set := newSet(t)

	res := set.Call(ctx, tools.WriteGlobalMemoryBank, []byte(`{"path":"notes/a.md","content":"black coffee"}`))
	require.False(t, res.IsError, res.Content)
	assert.Nil(t, res.Err)
	var w struct {
		Path    string `json:"path"`
		Version int64  `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Content), &w))
	assert.Equal(t, "notes/a.md", w.Path)
	assert.EqualValues(t, 1, w.Version)

	res = set.Call(ctx, tools.ReadGlobalMemoryBank, []byte(`{"path":"notes/b.md"}`))
	require.True(t, res.IsError)
	require.NotNil(t, res.Err)
	assert.Equal(t, tools.CodeNotFound, res.Err.Code)
	assert.ErrorIs(t, res.Err, memorybank.ErrNotFound)
	var e struct {
		Code    tools.Code     `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	}
	require.NoError(t, json.Unmarshal([]byte(res.Content), &e))
	assert.Equal(t, tools.CodeNotFound, e.Code)
	assert.Contains(t, e.Message, "notes/a.md")
	assert.Equal(t, []any{"notes/a.md"}, e.Details["availableDocuments"])

	// Empty arguments are no arguments: the tool says what is missing.
	res = set.Call(ctx, tools.ReadGlobalMemoryBank, nil)
	require.True(t, res.IsError)
	assert.Equal(t, tools.CodeInvalidArgument, res.Err.Code)
	assert.Contains(t, res.Content, "path is required")
}

func TestCallUnknownTool(t *testing.T) {
	res := newSet(t).Call(context.Background(), "remember", []byte(`{}`))
	require.True(t, res.IsError)
	assert.Equal(t, tools.CodeInvalidArgument, res.Err.Code)
	assert.True(t, errors.Is(res.Err, tools.ErrUnknownTool))
	assert.Contains(t, res.Content, `no tool \"remember\"`)
	assert.Contains(t, res.Content, tools.SearchDocuments)
}

// Arguments that are not UTF-8 text are refused by the tools, which every
// entry point reaches: a model's call through an API adapter too.
func TestCallRefusesArgumentsThatAreNotUTF8(t *testing.T) {
	set := newSet(t)
	for _, args := range []string{
		"{\"branch\":\"main\",\"path\":\"a.md\",\"content\":\"a\xffb\"}",
		`{"branch":"main","path":"a.md","content":"a\udc80b"}`,
	} {
		res := set.Call(context.Background(), tools.WriteBranchMemoryBank, []byte(args))
		require.True(t, res.IsError, "%q was written", args)
		assert.Equal(t, tools.CodeInvalidArgument, res.Err.Code)
		assert.Contains(t, res.Err.Message, "UTF-8")
	}
}
