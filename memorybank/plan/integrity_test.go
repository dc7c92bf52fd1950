package plan_test

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

// Markdown files written by other tools (no front matter) stay theirs: a
// plan changes exactly the bytes its operations change, and adds no front
// matter.
func TestPlanKeepsForeignMarkdown(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		prefix := "branch-memory-bank/feature-refund/"
		for p, text := range map[string]string{"MEMORY.md": memoryMD, "details/requirements/index.md": indexMD, "details/old.md": "# obsolete\n"} {
			_, err := store.Put(ctx, prefix+p, []byte(text), memorybank.Condition{})
			require.NoError(t, err)
		}
		// The first write to a branch bank records its marker.
		mustWrite(t, b, memorybank.WriteRequest{Scope: planRoot.Scope, Branch: planRoot.Branch, Path: "claim.md", Text: "x"})
		_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: decodePlan(t, fullPlan), Confirmed: true})
		require.NoError(t, err)
		obj, err := store.Get(ctx, prefix+"MEMORY.md")
		require.NoError(t, err)
		assert.False(t, strings.HasPrefix(string(obj.Data), "---"), "no front matter added:\n%s", obj.Data)
		assert.Contains(t, string(obj.Data), "退款功能（REQ-004）")
		assert.True(t, strings.HasPrefix(string(obj.Data), "# 项目记忆 / プロジェクトメモリ\n"))
		obj, err = store.Get(ctx, prefix+"details/requirements/index.md")
		require.NoError(t, err)
		assert.Equal(t, indexMD+"| REQ-004 | REQ-004-refund.md |\n", string(obj.Data), "only the bytes the plan changed")
	})
}

// Every check that can refuse a file runs before the first file is
// written: a plan whose last file would be refused changes nothing.
func TestPlanChecksEveryFileFirst(t *testing.T) {
	bigJSON := func() string {
		// Compact it is under 4 KiB; stored indented (one value per line,
		// two spaces deep) it is over.
		vals := make([]int, 900)
		data, _ := json.Marshal(map[string]any{"vals": vals})
		return string(data)
	}()
	refused := map[string]string{
		"createdAt that is no time":      `{"type": "create", "path": "z.md", "content": "---\ncreatedAt: yesterday\n---\nbody"}`,
		"tags that are no list":          `{"type": "create", "path": "z.md", "content": "---\ntags: 5\n---\nbody"}`,
		"more tags than the limit":       `{"type": "create", "path": "z.md", "content": "---\ntags: [a, b, c, d, e]\n---\nbody"}`,
		"front matter that is no YAML":   `{"type": "create", "path": "z.md", "content": "---\ntitle: [\n---\nbody"}`,
		"a tag of two lines":             `{"type": "create", "path": "z.md", "content": "---\ntags: [\"a\\nb\"]\n---\nbody"}`,
		"JSON over the size when stored": `{"type": "create", "path": "z.json", "content": ` + string(mustMarshal(t, bigJSON)) + `}`,
		"JSON against its schema":        `{"type": "create", "path": "progress.json", "content": "{\"schema\":\"memory_document_v2\",\"metadata\":{\"title\":\"P\",\"documentType\":\"progress\"},\"content\":{\"status\":5}}"}`,
		"a path beside another's case":   `{"type": "create", "path": "memory.md", "content": "x"}`,
	}
	for name, last := range refused {
		t.Run(name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			b := memorybank.New(store, &memorybank.Options{MaxTags: 4, MaxDocumentBytes: 4096})
			writeMemoryBank(t, b, memoryMD)
			before := snapshot(t, store)
			p := decodePlan(t, `{"schemaVersion": "2.0", "action": "memory_ops", "operations": [
				{"type": "create", "path": "a.md", "reason": "r", "content": "# A\n"},
				{"type": "update", "path": "details/old.md", "changes": "c", "content": "# new\n"},
				`+strings.Replace(last, `"type": "create",`, `"type": "create", "reason": "r",`, 1)+`], "requiresConfirmation": true}`)
			_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: p, Confirmed: true})
			var oe *plan.OperationError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, 2, oe.Index, "the refused operation is named: %v", err)
			assert.Equal(t, before, snapshot(t, store), "nothing written")
		})
	}
}

func mustMarshal(t *testing.T, v any) []byte {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return data
}

// The plan functions over a Bank that was never initialised return
// memorybank.ErrNotInitialised, never panic (CheckSelection reads the bank
// only for a selection that is otherwise valid, through the same calls).
func TestPlansOverNilBank(t *testing.T) {
	p := decodePlan(t, fullPlan)
	calls := map[string]func() error{
		"Apply": func() error {
			_, err := plan.Apply(ctx, nil, plan.ApplyRequest{Root: planRoot, Plan: p, Confirmed: true})
			return err
		},
		"SelectFiles": func() error {
			_, err := plan.SelectFiles(ctx, nil, planRoot, []plan.Candidate{{Path: "MEMORY.md"}}, nil)
			return err
		},
		"RiskAlerts": func() error {
			_, err := plan.RiskAlerts(ctx, nil, planRoot, []string{"MEMORY.md"}, nil)
			return err
		},
	}
	for name, call := range calls {
		var err error
		require.NotPanics(t, func() { err = call() }, name)
		assert.ErrorIs(t, err, memorybank.ErrNotInitialised, name)
	}
}
