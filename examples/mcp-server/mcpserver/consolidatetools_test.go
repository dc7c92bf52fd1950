package mcpserver

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// addDuplicates adds two memories that say the same thing and one other.
func addDuplicates(t *testing.T, ts *testServer) {
	t.Helper()
	m := ts.mem
	for _, c := range []string{"Run the integration tests with make itest; they need docker running",
		"Integration tests run with make itest and need docker running",
		"Prefer table tests with testify require for preconditions"} {
		_, err := m.Add(t.Context(), c, "go")
		require.NoError(t, err)
	}
}

// planFrom builds, from the candidates, the plan merging the duplicate
// cluster into its newest text.
func planFrom(t *testing.T, out map[string]any) string {
	t.Helper()
	var members []map[string]any
	for _, c := range out["candidates"].([]any) {
		cand := c.(map[string]any)
		if cand["kind"] != "duplicate" {
			continue
		}
		for _, e := range cand["entries"].([]any) {
			entry := e.(map[string]any)
			members = append(members, map[string]any{"ref": entry["ref"], "version": entry["version"]})
		}
	}
	require.Len(t, members, 2, "one duplicate cluster of two: %v", out)
	p, err := json.Marshal(map[string]any{"merge": []any{map[string]any{"members": members,
		"text": "Integration tests: make itest, with docker running"}}})
	require.NoError(t, err)
	return string(p)
}

func memoryCount(t *testing.T, ts *testServer) int {
	ms, err := ts.mem.List(t.Context())
	require.NoError(t, err)
	return len(ms)
}

// Candidates come with texts; the plan is confirmed in two calls, applied,
// and undone.
func TestConsolidationInTwoCalls(t *testing.T) {
	ts := newTestServer(t)
	addDuplicates(t, ts)
	s := ts.connect(t, nil, "")
	out := ok(t, s, "consolidation_candidates", `{}`)
	plan := planFrom(t, out)

	out = ok(t, s, "apply_consolidation", `{"plan":`+plan+`}`)
	assert.Equal(t, false, out["applied"])
	assert.Contains(t, out["confirmation"], "- Run the integration tests with make itest; they need docker running")
	assert.Contains(t, out["confirmation"], "+ Integration tests: make itest, with docker running")
	assert.Equal(t, 3, memoryCount(t, ts), "nothing changed before the user confirmed")

	out = ok(t, s, "apply_consolidation", `{"plan":`+plan+`,"confirmed":true}`)
	require.Equal(t, true, out["applied"])
	assert.Equal(t, 2, memoryCount(t, ts))

	// The same plan again: its members are gone, so it is refused.
	code, _ := fails(t, s, "apply_consolidation", `{"plan":`+plan+`,"confirmed":true}`)
	assert.Equal(t, "INVALID_ARGUMENT", code)

	undo, err := json.Marshal(out["undo"])
	require.NoError(t, err)
	out = ok(t, s, "apply_consolidation", `{"undo":`+string(undo)+`}`)
	assert.Equal(t, true, out["undone"])
	assert.Equal(t, 3, memoryCount(t, ts), "undo brings the merged memories back and removes the merged one")
}

// With a client dialog the user decides, whatever confirmed says; even
// with --confirm-plans never a consolidation is confirmed.
func TestConsolidationThroughTheDialog(t *testing.T) {
	for _, action := range []string{"accept", "decline"} {
		t.Run(action, func(t *testing.T) {
			ts := newTestServerWith(t, &Options{ConfirmPlans: ConfirmNever})
			addDuplicates(t, ts)
			ec := &elicitingClient{action: action}
			s := ts.connect(t, ec.client(), legacyProtocol)
			plan := planFrom(t, ok(t, s, "consolidation_candidates", `{}`))
			out := ok(t, s, "apply_consolidation", `{"plan":`+plan+`,"confirmed":true}`)
			require.Len(t, ec.messages, 1, "the user was asked")
			assert.Contains(t, ec.messages[0], "+ Integration tests: make itest, with docker running")
			if action == "accept" {
				assert.Equal(t, true, out["applied"])
				assert.Equal(t, 2, memoryCount(t, ts))
			} else {
				assert.Equal(t, false, out["applied"])
				assert.Equal(t, 3, memoryCount(t, ts))
			}
		})
	}
}
