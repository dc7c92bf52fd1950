package tools_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Behaviour of every tool on a MemStore, through Handle, as a model would
// call it.

func TestToolWrite(t *testing.T) {
	const (
		wb = tools.WriteBranchMemoryBank
		wg = tools.WriteGlobalMemoryBank
	)
	type check func(t *testing.T, e *toolEnv, out map[string]any)
	tests := []struct {
		name  string
		setup []string // write_branch_memory_bank arguments run first
		tool  string
		args  string
		want  check
	}{
		{"content object creates a JSON document", nil, wb,
			`{"branch":"feature/login","path":"notes.json","content":{"plan":"add login form"},"tags":["auth"]}`,
			func(t *testing.T, e *toolEnv, out map[string]any) {
				assert.Equal(t, "feature/login", out["branch"])
				assert.EqualValues(t, 1, out["version"])
				assert.Equal(t, true, out["created"])
				assert.Equal(t, []any{"auth"}, out["tags"])
			}},
		{"content as a string holding JSON", nil, wb,
			`{"branch":"main","path":"notes.json","content":"{\"plan\":\"x\"}","returnContent":true}`,
			func(t *testing.T, e *toolEnv, out map[string]any) {
				doc := out["document"].(map[string]any)
				content := doc["content"].(map[string]any)
				assert.Equal(t, map[string]any{"plan": "x"}, content["content"], "the document is a JSON object, not an escaped string")
			}},
		{"text document", nil, wg, `{"path":"notes/db.md","content":"# DB\nuse postgres","returnContent":true}`,
			func(t *testing.T, e *toolEnv, out map[string]any) {
				assert.Equal(t, "global", out["scope"])
				doc := out["document"].(map[string]any)
				assert.Equal(t, "text", doc["format"])
				assert.Contains(t, doc["content"], "use postgres")
			}},
		{"patches update an existing document", []string{`{"branch":"main","path":"notes.json","content":{"steps":["a"]}}`}, wb,
			`{"branch":"main","path":"notes.json","patches":[{"op":"add","path":"/content/steps/-","value":"b"},{"op":"add","path":"/metadata/tags/-","value":"todo"}],"returnContent":true}`,
			func(t *testing.T, e *toolEnv, out map[string]any) {
				assert.EqualValues(t, 2, out["version"])
				assert.Equal(t, false, out["created"])
				assert.Equal(t, []any{"todo"}, out["tags"])
				env := out["document"].(map[string]any)["content"].(map[string]any)
				assert.Equal(t, []any{"a", "b"}, env["content"].(map[string]any)["steps"])
			}},
		{"ifVersion matching the current version", []string{`{"branch":"main","path":"notes.json","content":{"a":1}}`}, wb,
			`{"branch":"main","path":"notes.json","content":{"a":2},"ifVersion":1}`,
			func(t *testing.T, e *toolEnv, out map[string]any) { assert.EqualValues(t, 2, out["version"]) }},
		{"tags replace the stored tags", []string{`{"branch":"main","path":"n.json","content":{"a":1},"tags":["x","y"]}`}, wb,
			`{"branch":"main","path":"n.json","patches":[{"op":"replace","path":"/content/a","value":2}],"tags":["z","z"]}`,
			func(t *testing.T, e *toolEnv, out map[string]any) { assert.Equal(t, []any{"z"}, out["tags"]) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newToolEnv(t, nil)
			for _, s := range tt.setup {
				e.ok(t, wb, s)
			}
			tt.want(t, e, e.ok(t, tt.tool, tt.args))
		})
	}
}

func TestToolWriteErrors(t *testing.T) {
	const wb = tools.WriteBranchMemoryBank
	seed := `{"branch":"main","path":"progress.json","content":{"status":"started","knownIssues":[]}}`
	tests := []struct {
		name    string
		args    string
		code    tools.Code
		message []string
		details func(t *testing.T, d map[string]any)
	}{
		{"content and patches", `{"branch":"main","path":"progress.json","content":{"status":"x"},"patches":[{"op":"remove","path":"/content/status"}]}`,
			tools.CodeInvalidArgument, []string{"not both"}, nil},
		{"neither content nor patches", `{"branch":"main","path":"progress.json"}`,
			tools.CodeInvalidArgument, []string{"give content"}, nil},
		{"invalid branch name", `{"branch":"bad..name","path":"x.json","content":{"a":1}}`,
			tools.CodeInvalidArgument, []string{"bad..name"}, nil},
		{"path escaping the bank", `{"branch":"main","path":"../x.json","content":{"a":1}}`,
			tools.CodeInvalidArgument, []string{"../x.json"}, nil},
		{"patch on a missing document lists the documents", `{"branch":"main","path":"nope.json","patches":[{"op":"add","path":"/content/a","value":1}]}`,
			tools.CodeNotFound, []string{"nope.json", "progress.json", "create it first"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, []string{"progress.json"}, d["availableDocuments"])
			}},
		{"update of a missing document", `{"branch":"main","path":"nope.json","content":{"a":1},"mode":"update"}`,
			tools.CodeNotFound, []string{"nope.json"}, nil},
		{"create of an existing document", `{"branch":"main","path":"progress.json","content":{"status":"x"},"mode":"create"}`,
			tools.CodeConflict, []string{"exists"}, nil},
		{"stale ifVersion gives the current version", `{"branch":"main","path":"progress.json","content":{"status":"x"},"ifVersion":5}`,
			tools.CodeConflict, []string{"current version is 1", "retry with ifVersion 1"}, func(t *testing.T, d map[string]any) {
				assert.EqualValues(t, 1, d["currentVersion"])
				assert.EqualValues(t, 5, d["ifVersion"])
			}},
		{"failing operation gives its index and path", `{"branch":"main","path":"progress.json","patches":[{"op":"add","path":"/content/knownIssues/-","value":"x"},{"op":"replace","path":"/content/nothing","value":1}]}`,
			tools.CodeInvalidPatch, []string{"operation 1", "/content/nothing", "fix operation 1"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, map[string]any{"index": 1, "op": "replace", "path": "/content/nothing"}, d["operation"])
				assert.Equal(t, "progress.json", d["path"])
			}},
		{"malformed pointer found while decoding", `{"branch":"main","path":"progress.json","patches":[{"op":"add","path":"/content/a","value":1},{"op":"add","path":"content/b","value":1}]}`,
			tools.CodeInvalidPatch, []string{"operation 1", "content/b"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, 1, d["operation"].(map[string]any)["index"])
			}},
		{"move without from", `{"branch":"main","path":"progress.json","patches":[{"op":"move","path":"/content/a"}]}`,
			tools.CodeInvalidPatch, []string{"operation 0"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, "move", d["operation"].(map[string]any)["op"])
			}},
		{"maintained field", `{"branch":"main","path":"progress.json","patches":[{"op":"replace","path":"/metadata/version","value":9}]}`,
			tools.CodeInvalidPatch, []string{"operation 0", "/metadata/version"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, "/metadata/version", d["field"])
			}},
		{"failed test operation", `{"branch":"main","path":"progress.json","patches":[{"op":"test","path":"/content/status","value":"done"},{"op":"replace","path":"/content/status","value":"x"}]}`,
			tools.CodePatchTestFailed, []string{"operation 0", "read it again"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, 0, d["operation"].(map[string]any)["index"])
			}},
		{"schema violation lists the problems", `{"branch":"main","path":"progress.json","patches":[{"op":"replace","path":"/content/status","value":42}]}`,
			tools.CodeValidationFailed, []string{"/content/status"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, "progress", d["schema"])
				require.NotEmpty(t, d["problems"])
				assert.Equal(t, "/content/status", d["problems"].([]memorybank.Problem)[0].Pointer)
			}},
		{"too many tags", `{"branch":"main","path":"progress.json","patches":[{"op":"replace","path":"/content/status","value":"x"}],"tags":["a","b","c"]}`,
			tools.CodeLimitExceeded, []string{"tags"}, func(t *testing.T, d map[string]any) {
				assert.Equal(t, 2, d["max"])
				assert.Equal(t, 3, d["got"])
			}},
		{"content of a JSON path that is not JSON", `{"branch":"main","path":"x.json","content":"not json"}`,
			tools.CodeInvalidArgument, []string{"not valid JSON"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newToolEnv(t, &memorybank.Options{MaxTags: 2})
			e.ok(t, wb, seed)
			te := e.fail(t, wb, tt.args, tt.code)
			for _, m := range tt.message {
				assert.Contains(t, te.Message, m)
			}
			if tt.details != nil {
				require.NotNil(t, te.Details)
				tt.details(t, te.Details)
			}
			// The error is JSON for the model: code, message, details.
			data, err := json.Marshal(te)
			require.NoError(t, err)
			var back map[string]any
			require.NoError(t, json.Unmarshal(data, &back))
			assert.Equal(t, string(tt.code), back["code"])
			assert.Equal(t, te.Message, back["message"])
		})
	}
}

func TestToolWriteConcurrentIfVersion(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"shared.json","content":{"n":0}}`)
	const writers = 8
	var wg sync.WaitGroup
	start := make(chan struct{})
	codes := make([]tools.Code, writers)
	for i := range writers {
		wg.Go(func() {
			<-start
			_, err := e.tools[tools.WriteGlobalMemoryBank].Handle(t.Context(), tools.Env{},
				json.RawMessage(fmt.Sprintf(`{"path":"shared.json","content":{"n":%d},"ifVersion":1}`, i+1)))
			if err != nil {
				codes[i] = tools.AsError(err).Code
			}
		})
	}
	close(start)
	wg.Wait()
	winners, conflicts := 0, 0
	for _, c := range codes {
		switch c {
		case "":
			winners++
		case tools.CodeConflict:
			conflicts++
		}
	}
	assert.Equal(t, 1, winners)
	assert.Equal(t, writers-1, conflicts)
	out := e.ok(t, tools.ReadGlobalMemoryBank, `{"path":"shared.json"}`)
	assert.EqualValues(t, 2, out["version"])
}

func TestToolRead(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"feature/a","path":"notes.json","content":{"a":1},"tags":["t"]}`)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"guide.md","content":"hello"}`)

	out := e.ok(t, tools.ReadBranchMemoryBank, `{"branch":"feature/a","path":"notes.json"}`)
	assert.Equal(t, "json", out["format"])
	assert.EqualValues(t, 1, out["version"])
	env := out["content"].(map[string]any)
	assert.Equal(t, "memory_document_v2", env["schema"])
	assert.Equal(t, map[string]any{"a": 1.0}, env["content"])

	out = e.ok(t, tools.ReadGlobalMemoryBank, `{"path":"guide.md"}`)
	assert.Equal(t, "text", out["format"])
	assert.Equal(t, "hello", out["content"])

	te := e.fail(t, tools.ReadBranchMemoryBank, `{"branch":"feature/a","path":"note.json"}`, tools.CodeNotFound)
	assert.Contains(t, te.Message, `Documents in the branch bank of "feature/a": notes.json.`)
	te = e.fail(t, tools.ReadBranchMemoryBank, `{"branch":"other","path":"notes.json"}`, tools.CodeNotFound)
	assert.Contains(t, te.Message, "holds no documents yet")
	assert.Equal(t, []string{}, te.Details["availableDocuments"])
}

func TestToolNotFoundListIsCapped(t *testing.T) {
	e := newToolEnv(t, nil)
	for i := range 60 {
		e.ok(t, tools.WriteGlobalMemoryBank, fmt.Sprintf(`{"path":"d%02d.md","content":"x"}`, i))
	}
	te := e.fail(t, tools.ReadGlobalMemoryBank, `{"path":"missing.md"}`, tools.CodeNotFound)
	paths := te.Details["availableDocuments"].([]string)
	assert.Len(t, paths, 50)
	assert.Equal(t, "d00.md", paths[0])
	assert.Equal(t, 60, te.Details["totalDocuments"])
	assert.Contains(t, te.Message, "first 50 of 60")
	assert.NotContains(t, te.Message, "d55.md")
}

func TestToolReadContext(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"core/architecture.md","content":"layers"}`)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"misc/notes.md","content":"n"}`)

	out := e.ok(t, tools.ReadContext, `{"branch":"feature/x","language":"en"}`)
	assert.Equal(t, memorybank.BuiltinRules(memorybank.English), out["rules"].(map[string]any)["content"])
	branch := out["branchMemory"].(map[string]any)
	for _, core := range memorybank.DefaultBranchCoreFiles() {
		require.Contains(t, branch, core, "a new branch bank is initialised with its core files")
		file := branch[core].(map[string]any)
		assert.Equal(t, core, file["path"])
		assert.IsType(t, map[string]any{}, file["content"], "JSON documents are objects")
	}
	global := out["globalMemory"].(map[string]any)
	assert.Equal(t, "layers", global["core/architecture.md"].(map[string]any)["content"])
	assert.Equal(t, []any{"misc/notes.md"}, out["otherGlobalFiles"])

	// The language picks the templates of a new branch bank.
	out = e.ok(t, tools.ReadContext, `{"branch":"feature/ja","language":"ja","includeRules":false,"includeGlobalMemory":false}`)
	data, _ := json.Marshal(out["branchMemory"])
	assert.NotEqual(t, data, mustJSON(t, e.ok(t, tools.ReadContext,
		`{"branch":"feature/en","language":"en","includeRules":false,"includeGlobalMemory":false}`)["branchMemory"]))

	// A budget leaves files out and says so.
	out = e.ok(t, tools.ReadContext, `{"branch":"feature/x","includeRules":false,"maxTokens":60}`)
	assert.Equal(t, true, out["truncated"])

	e.fail(t, tools.ReadContext, `{"branch":"feature/x","language":"fr"}`, tools.CodeInvalidArgument)
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}

func TestToolReadRules(t *testing.T) {
	e := newToolEnv(t, &memorybank.Options{DefaultRules: map[memorybank.Language]string{memorybank.Chinese: "规则"}})
	tests := []struct{ args, lang, content string }{
		{`{"language":"en"}`, "en", memorybank.BuiltinRules(memorybank.English)},
		{`{}`, "ja", memorybank.BuiltinRules(memorybank.Japanese)},
		{`{"language":"zh"}`, "zh", "规则"},
	}
	for _, tt := range tests {
		out := e.ok(t, tools.ReadRules, tt.args)
		assert.Equal(t, tt.lang, out["language"])
		assert.Equal(t, tt.content, out["content"])
	}
	// A rules document in the global bank wins.
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"rules/en.md","content":"our rules"}`)
	assert.Equal(t, "our rules", e.ok(t, tools.ReadRules, `{"language":"en"}`)["content"])
}

func TestToolSearchAndList(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"a.json","content":{"x":1},"tags":["auth","db"]}`)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"b.md","content":"b","tags":["auth"]}`)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"notes/c.md","content":"c","tags":["db"]}`)

	paths := func(out map[string]any) []string {
		var ps []string
		for _, d := range out["documents"].([]any) {
			doc := d.(map[string]any)
			ps = append(ps, fmt.Sprint(doc["scope"], ":", doc["path"]))
		}
		return ps
	}
	searches := []struct {
		args string
		want []string
	}{
		{`{"tags":["db"]}`, []string{"global:notes/c.md"}},
		{`{"tags":["db"],"branch":"main"}`, []string{"branch:a.json", "global:notes/c.md"}},
		{`{"tags":["auth","db"],"match":"and","branch":"main"}`, []string{"branch:a.json"}},
		{`{"tags":["auth"],"scope":"branch","branch":"main"}`, []string{"branch:a.json", "branch:b.md"}},
		{`{"tags":["nothing"],"branch":"main"}`, nil},
	}
	for _, s := range searches {
		t.Run("search "+s.args, func(t *testing.T) {
			out := e.ok(t, tools.SearchDocumentsByTags, s.args)
			assert.Equal(t, s.want, paths(out))
			assert.NotNil(t, out["documents"], "no hits is an empty list, not null")
		})
	}
	hit := e.ok(t, tools.SearchDocumentsByTags, `{"tags":["db"]}`)["documents"].([]any)[0].(map[string]any)
	assert.Equal(t, "c", hit["title"])
	e.fail(t, tools.SearchDocumentsByTags, `{"tags":["db"],"scope":"branch"}`, tools.CodeInvalidArgument)

	out := e.ok(t, tools.ListDocuments, `{"scope":"branch","branch":"main"}`)
	assert.Equal(t, []string{"branch:a.json", "branch:b.md"}, listPaths(out, "branch"))
	out = e.ok(t, tools.ListDocuments, `{"scope":"global","prefix":"notes/"}`)
	assert.Equal(t, []string{"global:notes/c.md"}, listPaths(out, "global"))
	out = e.ok(t, tools.ListDocuments, `{"scope":"branch","branch":"empty"}`)
	assert.Equal(t, []any{}, out["documents"])
	e.fail(t, tools.ListDocuments, `{"scope":"branch"}`, tools.CodeInvalidArgument)
	e.fail(t, tools.ListDocuments, `{"scope":"all"}`, tools.CodeInvalidArgument)
}

func listPaths(out map[string]any, scope string) []string {
	var ps []string
	for _, d := range out["documents"].([]any) {
		ps = append(ps, scope+":"+d.(map[string]any)["path"].(string))
	}
	return ps
}

func TestToolDelete(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"a.md","content":"a"}`)
	e.ok(t, tools.WriteBranchMemoryBank, `{"branch":"main","path":"a.md","content":"a2"}`)

	te := e.fail(t, tools.DeleteDocument, `{"scope":"branch","branch":"main","path":"a.md","ifVersion":1}`, tools.CodeConflict)
	assert.EqualValues(t, 2, te.Details["currentVersion"])
	te = e.fail(t, tools.DeleteDocument, `{"scope":"branch","branch":"main","path":"b.md"}`, tools.CodeNotFound)
	assert.Contains(t, te.Message, "a.md")

	out := e.ok(t, tools.DeleteDocument, `{"scope":"branch","branch":"main","path":"a.md","ifVersion":2}`)
	assert.Equal(t, map[string]any{"deleted": true, "scope": "branch", "branch": "main", "path": "a.md"}, out)
	e.fail(t, tools.ReadBranchMemoryBank, `{"branch":"main","path":"a.md"}`, tools.CodeNotFound)
	te = e.fail(t, tools.DeleteDocument, `{"scope":"branch","path":"a.md"}`, tools.CodeInvalidArgument)
	assert.Contains(t, te.Message, "branch")
}

// FuzzToolHandle: whatever a model sends, every tool answers with a JSON
// object or a *tools.Error, and never panics.
func FuzzToolHandle(f *testing.F) {
	f.Add(uint8(0), `{"branch":"main","path":"a.json","content":{"a":1}}`)
	f.Add(uint8(0), `{"branch":"main","path":"a.json","patches":[{"op":"add","path":"/content/b","value":[1]}]}`)
	f.Add(uint8(1), `{"path":"a.md","content":"---\ntags: [x]\n---\nhi"}`)
	f.Add(uint8(4), `{"branch":"x","maxTokens":10}`)
	f.Add(uint8(6), `{"tags":["a"],"match":"and"}`)
	f.Add(uint8(8), `{"scope":"global","path":"a.md","ifVersion":3}`)
	f.Add(uint8(2), `[`)
	f.Add(uint8(1), `{"path":"a.json","path":"b.json","content":{}}`)
	f.Add(uint8(1), `{"path":"a.json","content":"{\"schema\":\"memory_document_v2\",\"content\":\"{}\"}","patches":[]}`)
	f.Add(uint8(0), `{"branch":"main","path":"a.md","content":null,"patches":null}`)
	store := &memorybank.MemStore{}
	all := tools.For(memorybank.New(store, nil))
	f.Fuzz(func(t *testing.T, which uint8, args string) {
		tool := all[int(which)%len(all)]
		res, err := tool.Handle(t.Context(), tools.Env{}, json.RawMessage(args))
		if err != nil {
			var te *tools.Error
			require.ErrorAs(t, err, &te)
			require.NotEmpty(t, te.Code)
			_, merr := json.Marshal(te)
			require.NoError(t, merr)
			return
		}
		data, merr := json.Marshal(res)
		require.NoError(t, merr)
		require.True(t, strings.HasPrefix(string(data), "{"), "%s returned %s", tool.Name, data)
	})
}

// A read answers a document's metadata once: inside the envelope of a
// JSON document, beside the text of a text document; only version is
// repeated at the top, for ifVersion.
func TestReadAnswersMetadataOnce(t *testing.T) {
	e := newToolEnv(t, nil)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"n.json","content":{"a":1},"tags":["x"]}`)
	e.ok(t, tools.WriteGlobalMemoryBank, `{"path":"n.md","content":"# Notes","tags":["x"]}`)
	for _, path := range []string{"n.json", "n.md"} {
		out := e.ok(t, tools.ReadGlobalMemoryBank, `{"path":"`+path+`"}`)
		for _, dup := range []string{"title", "tags", "documentType", "id", "lastModified", "createdAt"} {
			assert.NotContains(t, out, dup, "%s: %s is in the metadata", path, dup)
		}
		meta, _ := out["metadata"].(map[string]any)
		if path == "n.json" {
			assert.Nil(t, meta, "a JSON document's metadata is in its envelope")
			meta = out["content"].(map[string]any)["metadata"].(map[string]any)
		}
		require.NotNil(t, meta, path)
		assert.Equal(t, []any{"x"}, meta["tags"], path)
		assert.EqualValues(t, 1, out["version"], path)
	}
}
