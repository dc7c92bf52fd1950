package tools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// toolEnv is a Bank on a MemStore with its tools by name.
type toolEnv struct {
	store *memorybank.MemStore
	bank  *memorybank.Bank
	tools map[string]tools.Tool
}

func newToolEnv(t *testing.T, opts *memorybank.Options) *toolEnv {
	t.Helper()
	if opts == nil {
		opts = &memorybank.Options{}
	}
	clock := time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	opts.Clock = func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock }
	n := 0
	opts.NewID = func() string { mu.Lock(); defer mu.Unlock(); n++; return fmt.Sprintf("id-%d", n) }
	opts.History = history.New(nil)
	e := &toolEnv{store: &memorybank.MemStore{}, tools: map[string]tools.Tool{}}
	e.bank = memorybank.New(e.store, opts)
	for _, tool := range tools.For(e.bank) {
		e.tools[tool.Name] = tool
	}
	return e
}

// call runs a tool and returns its result as decoded JSON (it must be an
// object) or its *tools.Error.
func (e *toolEnv) call(t *testing.T, name, args string) (map[string]any, *tools.Error) {
	t.Helper()
	tool, ok := e.tools[name]
	require.True(t, ok, "no tool %s", name)
	res, err := tool.Handle(t.Context(), tools.Env{}, json.RawMessage(args))
	if err != nil {
		var te *tools.Error
		require.ErrorAs(t, err, &te, "a tool error is always a *tools.Error")
		assert.Nil(t, res)
		return nil, te
	}
	data, merr := json.Marshal(res)
	require.NoError(t, merr)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out), "the result must be a JSON object: %s", data)
	return out, nil
}

func (e *toolEnv) ok(t *testing.T, name, args string) map[string]any {
	t.Helper()
	out, te := e.call(t, name, args)
	require.Nil(t, te, "%s %s", name, args)
	return out
}

func (e *toolEnv) fail(t *testing.T, name, args string, code tools.Code) *tools.Error {
	t.Helper()
	before := toolSnapshot(t, e.store)
	_, te := e.call(t, name, args)
	require.NotNil(t, te, "%s %s should fail with %s", name, args, code)
	assert.Equal(t, code, te.Code, te.Message)
	if name != tools.ReadContext { // read_context initialises branch banks
		assert.Equal(t, before, toolSnapshot(t, e.store), "a failed call changes nothing")
	}
	return te
}

func toolSnapshot(t *testing.T, s memorybank.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for obj, err := range s.List(context.Background(), "") {
		require.NoError(t, err)
		got, err := s.Get(context.Background(), obj.Key)
		require.NoError(t, err)
		out[obj.Key] = string(got.Data)
	}
	return out
}

func TestToolsDefinitions(t *testing.T) {
	e := newToolEnv(t, nil)
	want := []struct {
		name     string
		props    []string
		required []string
	}{
		{tools.WriteBranchMemoryBank, []string{"branch", "content", "ifVersion", "mode", "patches", "path", "returnContent", "tags"}, []string{"path"}},
		{tools.WriteGlobalMemoryBank, []string{"content", "ifVersion", "mode", "patches", "path", "returnContent", "tags"}, []string{"path"}},
		{tools.ReadBranchMemoryBank, []string{"branch", "path"}, []string{"path"}},
		{tools.ReadGlobalMemoryBank, []string{"path"}, []string{"path"}},
		{tools.ReadContext, []string{"branch", "includeBranchMemory", "includeGlobalMemory", "includeRules", "language", "maxTokens", "query"}, nil},
		{tools.ReadRules, []string{"language"}, nil},
		{tools.SearchDocumentsByTags, []string{"branch", "limit", "match", "maxTokens", "offset", "scope", "tags"}, []string{"tags"}},
		{tools.SearchDocuments, []string{"branch", "limit", "maxTokens", "offset", "query", "scope", "tags"}, []string{"query"}},
		{tools.ListDocuments, []string{"branch", "limit", "maxTokens", "offset", "prefix", "scope"}, nil},
		{tools.DeleteDocument, []string{"branch", "ifVersion", "path", "scope"}, []string{"path"}},
		{tools.DocumentHistory, []string{"branch", "limit", "maxTokens", "offset", "path", "scope"}, []string{"path"}},
		{tools.RevertDocument, []string{"branch", "ifVersion", "path", "scope", "toVersion"}, []string{"path", "toVersion"}},
	}
	all := tools.For(e.bank)
	require.Len(t, all, len(want))
	for i, w := range want {
		tool := all[i]
		t.Run(w.name, func(t *testing.T) {
			assert.Equal(t, w.name, tool.Name)
			assert.NotEmpty(t, tool.Description)
			var s struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				Required             []string                   `json:"required"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			}
			data, err := json.Marshal(tool.InputSchema)
			require.NoError(t, err)
			require.NoError(t, json.Unmarshal(data, &s))
			assert.Equal(t, "object", s.Type)
			props := slices.Sorted(func(yield func(string) bool) {
				for k := range s.Properties {
					if !yield(k) {
						return
					}
				}
			})
			assert.Equal(t, w.props, props)
			slices.Sort(s.Required)
			assert.Equal(t, w.required, s.Required)
			assert.Nil(t, s.AdditionalProperties, "unknown arguments are refused by the call (see TestToolsRefuseBadArguments), said once in Guide")
			if _, ok := s.Properties["branch"]; ok {
				if _, scoped := s.Properties["scope"]; scoped {
					assert.Contains(t, tools.Guide, "required with scope branch", "the Guide says once when branch is required")
				} else {
					assert.Contains(t, tool.Description, "required", "the description says when branch is required")
				}
			}
			if strings.HasPrefix(tool.Name, "write_") {
				assert.Contains(t, tool.Description, "mutually exclusive")
				var patches struct {
					Items struct {
						Properties map[string]struct {
							Enum []string `json:"enum"`
						} `json:"properties"`
						Required []string `json:"required"`
					} `json:"items"`
				}
				require.NoError(t, json.Unmarshal(s.Properties["patches"], &patches))
				assert.Equal(t, []string{"add", "remove", "replace", "move", "copy", "test"}, patches.Items.Properties["op"].Enum)
				assert.Equal(t, []string{"op", "path"}, patches.Items.Required)
				assert.Contains(t, patches.Items.Properties, "value")
				assert.Contains(t, patches.Items.Properties, "from")
			}
		})
	}
	// Each call gives the caller its own schemas.
	all[0].InputSchema.Description = "changed"
	all[0].OutputSchema.Description = "changed"
	assert.Empty(t, tools.For(e.bank)[0].InputSchema.Description)
	assert.Empty(t, tools.For(e.bank)[0].OutputSchema.Description)
}

func TestToolsRefuseBadArguments(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":1}}`)
	tests := []struct {
		name, tool, args string
		pointer          string // a problem must be reported at this pointer
		inMessage        string
	}{
		{"unknown property", tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"branch":"main"}`, "/branch", "allowed properties are: content, ifVersion"},
		{"unknown property on read", tools.ReadGlobalMemoryBank, `{"path":"a.json","scope":"global"}`, "/scope", "allowed properties are: path"},
		{"wrong type", tools.ReadGlobalMemoryBank, `{"path":7}`, "/path", "expected string"},
		{"missing required", tools.ReadBranchMemoryBank, `{"path":"a.json"}`, "/branch", "branch is required"},
		{"empty arguments miss required", tools.ReadGlobalMemoryBank, ``, "/path", "path is required"},
		{"bad enum", tools.ReadRules, `{"language":"fr"}`, "/language", `"en", "ja", "zh"`},
		{"content of a wrong type", tools.WriteGlobalMemoryBank, `{"path":"a.json","content":[1]}`, "/content", "expected one of [string,object]"},
		{"patch op unknown", tools.WriteGlobalMemoryBank, `{"path":"a.json","patches":[{"op":"merge","path":"/content/x"}]}`, "/patches/0/op", "must be one of"},
		{"empty patch list", tools.WriteGlobalMemoryBank, `{"path":"a.json","patches":[]}`, "/patches", "at least 1"},
		{"negative ifVersion", tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"ifVersion":-1}`, "/ifVersion", "greater than or equal to 0"},
		{"huge ifVersion", tools.WriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"ifVersion":1e30}`, "/ifVersion", "less than or equal to"},
		{"fractional ifVersion", tools.DeleteDocument, `{"scope":"global","path":"a.json","ifVersion":1.5}`, "/ifVersion", "expected integer"},
		{"include flag as string", tools.ReadContext, `{"includeBranchMemory":"no"}`, "/includeBranchMemory", "expected boolean"},
		{"arguments not an object", tools.ListDocuments, `["global"]`, "", "expected object"},
		{"empty tag", tools.SearchDocumentsByTags, `{"tags":[""]}`, "/tags/0", "greater than or equal to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := e.fail(t, tt.tool, tt.args, tools.CodeInvalidArgument)
			assert.Contains(t, te.Message, tt.inMessage)
			assert.Contains(t, te.Message, tt.tool)
			problems, ok := te.Details["problems"].([]memorybank.Problem)
			require.True(t, ok, "details.problems lists the problems")
			assert.True(t, slices.ContainsFunc(problems, func(p memorybank.Problem) bool { return p.Pointer == tt.pointer }),
				"a problem at %q in %v", tt.pointer, problems)
		})
	}
	t.Run("patch op without path", func(t *testing.T) {
		// Decoding the patch finds it: the operation is named.
		te := e.fail(t, tools.WriteGlobalMemoryBank, `{"path":"a.json","patches":[{"op":"remove"}]}`, tools.CodeInvalidPatch)
		assert.Contains(t, te.Message, `missing member "path"`)
		assert.Equal(t, 0, te.Details["operation"].(map[string]any)["index"])
	})
	t.Run("invalid JSON", func(t *testing.T) {
		te := e.fail(t, tools.ReadGlobalMemoryBank, `{"path":`, tools.CodeInvalidArgument)
		assert.Contains(t, te.Message, "not valid JSON")
	})
}

func TestToolsApplyDefaults(t *testing.T) {
	e := newToolEnv(t, &memorybank.Options{Language: memorybank.English})
	// includeBranchMemory defaults to true, so branch is needed.
	te := e.fail(t, tools.ReadContext, `{}`, tools.CodeInvalidArgument)
	assert.Contains(t, te.Message, "branch is required")
	// The three sections are included unless a flag says false.
	out := e.ok(t, tools.ReadContext, `{"branch":"main"}`)
	assert.Contains(t, out, "rules")
	assert.Contains(t, out, "branchMemory")
	assert.Contains(t, out, "globalMemory")
	out = e.ok(t, tools.ReadContext, `{"includeBranchMemory":false,"includeRules":false}`)
	assert.NotContains(t, out, "rules")
	assert.NotContains(t, out, "branchMemory")
	assert.Contains(t, out, "globalMemory")
	// null and absent arguments are an empty object; language defaults to the Bank's.
	for _, args := range []string{``, `null`, ` {} `} {
		out = e.ok(t, tools.ReadRules, args)
		assert.Equal(t, "en", out["language"])
		assert.Equal(t, memorybank.BuiltinRules(memorybank.English), out["content"])
	}
	// mode defaults to upsert: a second write overwrites.
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"n.md","content":"one"}`)
	out = e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"n.md","content":"two"}`)
	assert.EqualValues(t, 2, out["version"])
	assert.NotContains(t, out, "document", "returnContent defaults to false")

	// An integer written as 2.0 or 2e0 is still an integer.
	out = e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"n.md","content":"three","ifVersion":2.0}`)
	assert.EqualValues(t, 3, out["version"])
	out = e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"n.md","content":"four","ifVersion":3e0}`)
	assert.EqualValues(t, 4, out["version"])
}

// BenchmarkToolHandle measures what the tool layer adds to a Bank call:
// schema validation, defaults and decoding of the arguments, and the
// encoding of the result the host does.
func BenchmarkToolHandle(b *testing.B) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	byName := map[string]tools.Tool{}
	for _, tool := range tools.For(bank) {
		byName[tool.Name] = tool
	}
	_, err := byName[tools.WriteGlobalMemoryBank].Handle(ctx, tools.Env{},
		json.RawMessage(`{"path":"notes.json","content":{"steps":["a","b","c"],"owner":"me"},"tags":["x"]}`))
	require.NoError(b, err)
	b.Run("Bank.Read", func(b *testing.B) {
		for b.Loop() {
			if _, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes.json"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("read_global_memory_bank", func(b *testing.B) {
		args := json.RawMessage(`{"path":"notes.json"}`)
		for b.Loop() {
			res, err := byName[tools.ReadGlobalMemoryBank].Handle(ctx, tools.Env{}, args)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := json.Marshal(res); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("write_global_memory_bank/patch", func(b *testing.B) {
		args := json.RawMessage(`{"path":"notes.json","patches":[{"op":"replace","path":"/content/owner","value":"you"}]}`)
		for b.Loop() {
			if _, err := byName[tools.WriteGlobalMemoryBank].Handle(ctx, tools.Env{}, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// A Def looked up by name runs as the Handle of For's Tool does, and
// Lookup refuses a name that is not a tool, listing the tools.
func TestLookupByName(t *testing.T) {
	e := newToolEnv(t, nil)
	ctx := context.Background()
	call := func(name string, args json.RawMessage) (any, error) {
		d, err := tools.Lookup(tools.Defs(e.bank), name)
		if err != nil {
			return nil, err
		}
		return d.Handle(ctx, tools.Env{}, args)
	}
	res, err := call(tools.WriteGlobalMemoryBank, json.RawMessage(`{"path":"a.json","content":{"x":1}}`))
	require.NoError(t, err)
	got, err := json.Marshal(res)
	require.NoError(t, err)
	assert.Contains(t, string(got), `"version":1`)
	out, te := e.call(t, tools.ReadGlobalMemoryBank, `{"path":"a.json"}`)
	require.Nil(t, te)
	assert.EqualValues(t, 1, out["version"], "the Def wrote what Handle reads")

	_, err = call(tools.ReadGlobalMemoryBank, json.RawMessage(`{"path":"a.json","x":1}`))
	var bad *tools.Error
	require.ErrorAs(t, err, &bad)
	assert.Equal(t, tools.CodeInvalidArgument, bad.Code)

	_, err = call("read_bank", nil)
	require.ErrorIs(t, err, tools.ErrUnknownTool)
	var unknown *tools.Error
	require.ErrorAs(t, err, &unknown)
	assert.Equal(t, tools.CodeInvalidArgument, unknown.Code)
	assert.Contains(t, unknown.Message, `"read_bank"`)
	assert.Contains(t, unknown.Message, tools.ReadContext, "the message lists the tools")
}
