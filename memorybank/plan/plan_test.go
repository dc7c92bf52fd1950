package plan_test

import (
	"encoding/json"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/plan"
)

// The two outputs exactly as the specification of the formats shows them.
const (
	specSelectFiles = `{
  "schemaVersion": "2.0",
  "action": "select_files",
  "files": [
    "details/requirements/REQ-003-payment.md",
    "details/learnings/2024-01-20-payment-timeout.md"
  ],
  "reason": "用户讨论支付超时，加载相关需求和历史 bug 经验",
  "budget": {
    "filesSelected": 2,
    "filesLimit": 5,
    "linesSelected": 270,
    "linesLimit": 500
  },
  "riskAlerts": [
    {
      "level": "warning",
      "file": "details/learnings/2024-01-20-payment-timeout.md",
      "message": "历史上支付模块有超时问题，建议查看"
    }
  ]
}`
	specMemoryOps = `{
  "schemaVersion": "2.0",
  "action": "memory_ops",
  "operations": [
    {
      "type": "create",
      "path": "details/requirements/REQ-004-refund.md",
      "reason": "用户确认新增退款功能需求"
    },
    {
      "type": "update",
      "path": "MEMORY.md",
      "block": "MACHINE_BLOCK",
      "section": "Current Focus",
      "changes": "更新当前焦点为退款功能"
    },
    {
      "type": "update",
      "path": "details/requirements/index.md",
      "changes": "添加 REQ-004 路由条目"
    }
  ],
  "requiresConfirmation": true
}`
)

func TestDecodeSpecExamples(t *testing.T) {
	sel, err := plan.DecodeFileSelection([]byte(specSelectFiles))
	require.NoError(t, err)
	assert.Equal(t, plan.ActionSelectFiles, sel.Action)
	assert.Equal(t, []string{"details/requirements/REQ-003-payment.md", "details/learnings/2024-01-20-payment-timeout.md"}, sel.Files)
	assert.Equal(t, plan.Budget{FilesSelected: 2, FilesLimit: 5, LinesSelected: 270, LinesLimit: 500}, sel.Budget)
	require.Len(t, sel.RiskAlerts, 1)
	assert.Equal(t, plan.RiskWarning, sel.RiskAlerts[0].Level)

	wp, err := plan.DecodeWritePlan([]byte(specMemoryOps))
	require.NoError(t, err)
	require.Len(t, wp.Operations, 3)
	assert.Equal(t, plan.Operation{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.MachineBlock,
		Section: "Current Focus", Changes: "更新当前焦点为退款功能"}, wp.Operations[1])
	assert.True(t, wp.RequiresConfirmation)

	// Encoding gives the same JSON back (field names and values).
	for _, tc := range []struct {
		v    any
		spec string
	}{{sel, specSelectFiles}, {wp, specMemoryOps}} {
		out, err := json.Marshal(tc.v)
		require.NoError(t, err)
		assert.JSONEq(t, tc.spec, string(out))
	}
}

func TestSchemas(t *testing.T) {
	for _, a := range []plan.Action{plan.ActionSelectFiles, plan.ActionMemoryOps} {
		s, ok := plan.Schema(a)
		require.True(t, ok, a)
		var doc struct {
			Schema string `json:"$schema"`
			Title  string `json:"title"`
		}
		require.NoError(t, json.Unmarshal(s, &doc))
		assert.Equal(t, "http://json-schema.org/draft-07/schema#", doc.Schema)
		assert.Equal(t, string(a), doc.Title)
	}
	_, ok := plan.Schema("select")
	assert.False(t, ok)
}

// problems returns the pointers of a *plan.Error.
func planProblems(t *testing.T, err error) []string {
	t.Helper()
	var pe *plan.Error
	require.True(t, errors.As(err, &pe), "want *plan.Error, got %v", err)
	assert.ErrorIs(t, err, plan.ErrInvalid)
	var out []string
	for _, p := range pe.Problems {
		assert.NotEmpty(t, p.Message)
		out = append(out, p.Pointer)
	}
	return out
}

func TestDecodeFileSelectionProblems(t *testing.T) {
	const budget = `"budget":{"filesSelected":1,"filesLimit":5,"linesSelected":10,"linesLimit":500}`
	for _, tc := range []struct {
		name, json string
		pointers   []string
		over       bool
	}{
		{"not JSON", `{"files":`, []string{""}, false},
		{"missing fields", `{"schemaVersion":"2.0","action":"select_files"}`, []string{"/budget", "/files", "/reason"}, false},
		{"wrong version and action", `{"schemaVersion":"1.0","action":"memory_ops","files":["a.md"],"reason":"r",` + budget + `}`,
			[]string{"/action", "/schemaVersion"}, false},
		{"misspelled field", `{"schemaVersion":"2.0","action":"select_files","file":["a.md"],"files":["a.md"],"reason":"r",` + budget + `}`,
			[]string{"/file"}, false},
		{"bad alert level", `{"schemaVersion":"2.0","action":"select_files","files":["a.md"],"reason":"r",` + budget +
			`,"riskAlerts":[{"level":"fatal","file":"a.md","message":"m"}]}`, []string{"/riskAlerts/0/level"}, false},
		{"negative count", `{"schemaVersion":"2.0","action":"select_files","files":[],"reason":"r","budget":{"filesSelected":-1,"filesLimit":5,"linesSelected":0,"linesLimit":500}}`,
			[]string{"/budget/filesSelected"}, false},
		{"duplicate file", `{"schemaVersion":"2.0","action":"select_files","files":["a.md","a.md"],"reason":"r",` + budget + `}`,
			[]string{"/files"}, false},
		{"path escaping the root", `{"schemaVersion":"2.0","action":"select_files","files":["../secret.md"],"reason":"r",` + budget + `}`,
			[]string{"/files/0"}, false},
		{"count disagrees with files", `{"schemaVersion":"2.0","action":"select_files","files":["a.md","b.md"],"reason":"r",` + budget + `}`,
			[]string{"/budget/filesSelected"}, false},
		{"over its own file limit", `{"schemaVersion":"2.0","action":"select_files","files":["a","b","c"],"reason":"r","budget":{"filesSelected":3,"filesLimit":2,"linesSelected":3,"linesLimit":500}}`,
			[]string{"/files"}, true},
		{"over its own line limit", `{"schemaVersion":"2.0","action":"select_files","files":["a.md"],"reason":"r","budget":{"filesSelected":1,"filesLimit":5,"linesSelected":501,"linesLimit":500}}`,
			[]string{"/budget/linesSelected"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := plan.DecodeFileSelection([]byte(tc.json))
			require.Error(t, err)
			assert.Equal(t, tc.pointers, planProblems(t, err))
			assert.Equal(t, tc.over, errors.Is(err, plan.ErrOverBudget))
		})
	}
}

func TestDecodeWritePlanProblems(t *testing.T) {
	wrap := func(ops string) string {
		return `{"schemaVersion":"2.0","action":"memory_ops","operations":[` + ops + `],"requiresConfirmation":true}`
	}
	for _, tc := range []struct {
		name, json string
		pointers   []string
	}{
		{"no operations", wrap(``), []string{"/operations"}},
		{"missing requiresConfirmation", `{"schemaVersion":"2.0","action":"memory_ops","operations":[{"type":"delete","path":"a.md"}]}`,
			[]string{"/requiresConfirmation"}},
		{"unknown type", wrap(`{"type":"rename","path":"a.md"}`), []string{"/operations/0/type"}},
		{"create without reason", wrap(`{"type":"create","path":"a.md"}`), []string{"/operations/0/reason"}},
		{"update without changes", wrap(`{"type":"delete","path":"a.md"},{"type":"update","path":"b.md"}`), []string{"/operations/1/changes"}},
		{"unknown block", wrap(`{"type":"update","path":"MEMORY.md","block":"AI_BLOCK","changes":"c"}`), []string{"/operations/0/block"}},
		{"block on a create", wrap(`{"type":"create","path":"a.md","reason":"r","block":"MACHINE_BLOCK"}`), []string{"/operations/0/block"}},
		{"section without block", wrap(`{"type":"update","path":"MEMORY.md","section":"Current Focus","changes":"c"}`), []string{"/operations/0/section"}},
		{"section in the user block", wrap(`{"type":"update","path":"MEMORY.md","block":"USER_BLOCK","section":"Notes","changes":"c"}`), []string{"/operations/0/section"}},
		{"content on a delete", wrap(`{"type":"delete","path":"a.md","content":"x"}`), []string{"/operations/0/content"}},
		{"absolute path", wrap(`{"type":"delete","path":"/etc/passwd"}`), []string{"/operations/0/path"}},
		{"reserved path", wrap(`{"type":"delete","path":".branch.json"}`), []string{"/operations/0/path"}},
		{"misspelled field", wrap(`{"type":"delete","path":"a.md","paths":"b.md"}`), []string{"/operations/0/paths"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := plan.DecodeWritePlan([]byte(tc.json))
			require.Error(t, err)
			assert.Equal(t, tc.pointers, planProblems(t, err))
		})
	}
	// A plan touching the user block is a valid plan: Apply refuses it.
	_, err := plan.DecodeWritePlan([]byte(wrap(`{"type":"update","path":"MEMORY.md","block":"USER_BLOCK","changes":"c"}`)))
	assert.NoError(t, err)
}

func TestErrorMessage(t *testing.T) {
	_, err := plan.DecodeFileSelection([]byte(`{"schemaVersion":"2.0","action":"select_files","files":["a.md","b.md"],"reason":"r","budget":{"filesSelected":1,"filesLimit":5,"linesSelected":1,"linesLimit":500}}`))
	assert.EqualError(t, err, "plan: invalid plan: select_files output: /budget/filesSelected: is 1 but files lists 2 paths")
}

func TestMarshalFillsDefaults(t *testing.T) {
	out, err := json.Marshal(plan.FileSelection{Reason: "r", Budget: plan.Budget{FilesLimit: 5, LinesLimit: 500}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"schemaVersion":"2.0","action":"select_files","files":[],"reason":"r",
		"budget":{"filesSelected":0,"filesLimit":5,"linesSelected":0,"linesLimit":500},"riskAlerts":[]}`, string(out))
	_, err = plan.DecodeFileSelection(out)
	assert.NoError(t, err)

	out, err = json.Marshal(plan.WritePlan{Operations: []plan.Operation{{Type: plan.OpDelete, Path: "old.md"}}})
	require.NoError(t, err)
	assert.JSONEq(t, `{"schemaVersion":"2.0","action":"memory_ops","operations":[{"type":"delete","path":"old.md"}],"requiresConfirmation":false}`, string(out))
}

// Decoding a model's output never panics, and what it accepts survives a
// round trip through its own encoding.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(specSelectFiles))
	f.Add([]byte(specMemoryOps))
	f.Add([]byte(`{"schemaVersion":"2.0","action":"memory_ops","operations":[{"type":"delete","path":"../x"}],"requiresConfirmation":false}`))
	f.Add([]byte(`{`))
	f.Fuzz(func(t *testing.T, data []byte) {
		if sel, err := plan.DecodeFileSelection(data); err == nil {
			out, err := json.Marshal(sel)
			require.NoError(t, err)
			_, err = plan.DecodeFileSelection(out)
			require.NoError(t, err, "%s", out)
		} else {
			require.ErrorIs(t, err, plan.ErrInvalid)
		}
		if wp, err := plan.DecodeWritePlan(data); err == nil {
			out, err := json.Marshal(wp)
			require.NoError(t, err)
			_, err = plan.DecodeWritePlan(out)
			require.NoError(t, err, "%s", out)
		} else {
			require.ErrorIs(t, err, plan.ErrInvalid)
		}
	})
}
