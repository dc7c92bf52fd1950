package memorybank_test

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

	"github.com/agentmemory/agentmemory/memorybank"
)

// toolEnv is a Bank on a MemStore with its tools by name.
type toolEnv struct {
	store *memorybank.MemStore
	bank  *memorybank.Bank
	tools map[string]memorybank.Tool
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
	e := &toolEnv{store: &memorybank.MemStore{}, tools: map[string]memorybank.Tool{}}
	e.bank = memorybank.New(e.store, opts)
	for _, tool := range memorybank.Tools(e.bank) {
		e.tools[tool.Name] = tool
	}
	return e
}

// call runs a tool and returns its result as decoded JSON (it must be an
// object) or its *ToolError.
func (e *toolEnv) call(t *testing.T, name, args string) (map[string]any, *memorybank.ToolError) {
	t.Helper()
	tool, ok := e.tools[name]
	require.True(t, ok, "no tool %s", name)
	res, err := tool.Handle(t.Context(), json.RawMessage(args))
	if err != nil {
		var te *memorybank.ToolError
		require.ErrorAs(t, err, &te, "a tool error is always a *ToolError")
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

func (e *toolEnv) fail(t *testing.T, name, args string, code memorybank.ErrorCode) *memorybank.ToolError {
	t.Helper()
	before := toolSnapshot(t, e.store)
	_, te := e.call(t, name, args)
	require.NotNil(t, te, "%s %s should fail with %s", name, args, code)
	assert.Equal(t, code, te.Code, te.Message)
	if name != memorybank.ToolReadContext { // read_context initialises branch banks
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
		{memorybank.ToolWriteBranchMemoryBank, []string{"branch", "content", "ifVersion", "mode", "patches", "path", "returnContent", "tags"}, []string{"branch", "path"}},
		{memorybank.ToolWriteGlobalMemoryBank, []string{"content", "ifVersion", "mode", "patches", "path", "returnContent", "tags"}, []string{"path"}},
		{memorybank.ToolReadBranchMemoryBank, []string{"branch", "path"}, []string{"branch", "path"}},
		{memorybank.ToolReadGlobalMemoryBank, []string{"path"}, []string{"path"}},
		{memorybank.ToolReadContext, []string{"branch", "includeBranchMemory", "includeGlobalMemory", "includeRules", "language", "maxBytes"}, nil},
		{memorybank.ToolReadRules, []string{"language"}, nil},
		{memorybank.ToolSearchDocumentsByTags, []string{"branch", "match", "scope", "tags"}, []string{"tags"}},
		{memorybank.ToolListDocuments, []string{"branch", "prefix", "scope"}, []string{"scope"}},
		{memorybank.ToolDeleteDocument, []string{"branch", "ifVersion", "path", "scope"}, []string{"path", "scope"}},
	}
	tools := memorybank.Tools(e.bank)
	require.Len(t, tools, len(want))
	for i, w := range want {
		tool := tools[i]
		t.Run(w.name, func(t *testing.T) {
			assert.Equal(t, w.name, tool.Name)
			assert.NotEmpty(t, tool.Description)
			var s struct {
				Type                 string                     `json:"type"`
				Properties           map[string]json.RawMessage `json:"properties"`
				Required             []string                   `json:"required"`
				AdditionalProperties *bool                      `json:"additionalProperties"`
			}
			require.NoError(t, json.Unmarshal(tool.InputSchema, &s))
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
			require.NotNil(t, s.AdditionalProperties)
			assert.False(t, *s.AdditionalProperties)
			if _, ok := s.Properties["branch"]; ok {
				assert.Contains(t, tool.Description, "required", "the description says when branch is required")
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
	// Each call gives the caller its own schema bytes.
	tools[0].InputSchema[0] = 'X'
	assert.Equal(t, byte('{'), memorybank.Tools(e.bank)[0].InputSchema[0])
}

func TestToolsRefuseBadArguments(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","content":{"x":1}}`)
	tests := []struct {
		name, tool, args string
		pointer          string // a problem must be reported at this pointer
		inMessage        string
	}{
		{"unknown property", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"branch":"main"}`, "/branch", "allowed properties are: content, ifVersion"},
		{"unknown property on read", memorybank.ToolReadGlobalMemoryBank, `{"path":"a.json","scope":"global"}`, "/scope", "allowed properties are: path"},
		{"wrong type", memorybank.ToolReadGlobalMemoryBank, `{"path":7}`, "/path", "Expected: string"},
		{"missing required", memorybank.ToolReadBranchMemoryBank, `{"path":"a.json"}`, "/branch", "branch is required"},
		{"empty arguments miss required", memorybank.ToolReadGlobalMemoryBank, ``, "/path", "path is required"},
		{"bad enum", memorybank.ToolReadRules, `{"language":"fr"}`, "/language", `"en", "ja", "zh"`},
		{"content of a wrong type", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","content":[1]}`, "/content", "Expected: [string,object]"},
		{"patch op unknown", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","patches":[{"op":"merge","path":"/content/x"}]}`, "/patches/0/op", "must be one of"},
		{"patch op without path", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","patches":[{"op":"remove"}]}`, "/patches/0/path", "path is required"},
		{"empty patch list", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","patches":[]}`, "/patches", "at least 1"},
		{"negative ifVersion", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"ifVersion":-1}`, "/ifVersion", "greater than or equal to 0"},
		{"huge ifVersion", memorybank.ToolWriteGlobalMemoryBank, `{"path":"a.json","content":{"x":2},"ifVersion":1e30}`, "/ifVersion", "less than or equal to"},
		{"fractional ifVersion", memorybank.ToolDeleteDocument, `{"scope":"global","path":"a.json","ifVersion":1.5}`, "/ifVersion", "Expected: integer"},
		{"include flag as string", memorybank.ToolReadContext, `{"includeBranchMemory":"no"}`, "/includeBranchMemory", "Expected: boolean"},
		{"arguments not an object", memorybank.ToolListDocuments, `["global"]`, "", "Expected: object"},
		{"empty tag", memorybank.ToolSearchDocumentsByTags, `{"tags":[""]}`, "/tags/0", "greater than or equal to 1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			te := e.fail(t, tt.tool, tt.args, memorybank.CodeInvalidArgument)
			assert.Contains(t, te.Message, tt.inMessage)
			assert.Contains(t, te.Message, tt.tool)
			problems, ok := te.Details["problems"].([]memorybank.Problem)
			require.True(t, ok, "details.problems lists the problems")
			assert.True(t, slices.ContainsFunc(problems, func(p memorybank.Problem) bool { return p.Pointer == tt.pointer }),
				"a problem at %q in %v", tt.pointer, problems)
		})
	}
	t.Run("invalid JSON", func(t *testing.T) {
		te := e.fail(t, memorybank.ToolReadGlobalMemoryBank, `{"path":`, memorybank.CodeInvalidArgument)
		assert.Contains(t, te.Message, "not valid JSON")
	})
}

func TestToolsApplyDefaults(t *testing.T) {
	e := newToolEnv(t, &memorybank.Options{Language: memorybank.English})
	// includeBranchMemory defaults to true, so branch is needed.
	te := e.fail(t, memorybank.ToolReadContext, `{}`, memorybank.CodeInvalidArgument)
	assert.Contains(t, te.Message, "branch is required")
	// The three sections are included unless a flag says false.
	out := e.ok(t, memorybank.ToolReadContext, `{"branch":"main"}`)
	assert.Contains(t, out, "rules")
	assert.Contains(t, out, "branchMemory")
	assert.Contains(t, out, "globalMemory")
	out = e.ok(t, memorybank.ToolReadContext, `{"includeBranchMemory":false,"includeRules":false}`)
	assert.NotContains(t, out, "rules")
	assert.NotContains(t, out, "branchMemory")
	assert.Contains(t, out, "globalMemory")
	// null and absent arguments are an empty object; language defaults to the Bank's.
	for _, args := range []string{``, `null`, ` {} `} {
		out = e.ok(t, memorybank.ToolReadRules, args)
		assert.Equal(t, "en", out["language"])
		assert.Equal(t, memorybank.BuiltinRules(memorybank.English), out["content"])
	}
	// mode defaults to upsert: a second write overwrites.
	e.ok(t, memorybank.ToolWriteGlobalMemoryBank, `{"path":"n.md","content":"one"}`)
	out = e.ok(t, memorybank.ToolWriteGlobalMemoryBank, `{"path":"n.md","content":"two"}`)
	assert.EqualValues(t, 2, out["version"])
	assert.NotContains(t, out, "document", "returnContent defaults to false")

	// An integer written as 2.0 or 2e0 is still an integer.
	out = e.ok(t, memorybank.ToolWriteGlobalMemoryBank, `{"path":"n.md","content":"three","ifVersion":2.0}`)
	assert.EqualValues(t, 3, out["version"])
	out = e.ok(t, memorybank.ToolWriteGlobalMemoryBank, `{"path":"n.md","content":"four","ifVersion":3e0}`)
	assert.EqualValues(t, 4, out["version"])
}

// BenchmarkToolHandle measures what the tool layer adds to a Bank call:
// schema validation, defaults and decoding of the arguments, and the
// encoding of the result the host does.
func BenchmarkToolHandle(b *testing.B) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	tools := map[string]memorybank.Tool{}
	for _, tool := range memorybank.Tools(bank) {
		tools[tool.Name] = tool
	}
	_, err := tools[memorybank.ToolWriteGlobalMemoryBank].Handle(ctx,
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
			res, err := tools[memorybank.ToolReadGlobalMemoryBank].Handle(ctx, args)
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
			if _, err := tools[memorybank.ToolWriteGlobalMemoryBank].Handle(ctx, args); err != nil {
				b.Fatal(err)
			}
		}
	})
}
