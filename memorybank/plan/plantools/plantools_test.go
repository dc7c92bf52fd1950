package plantools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/plan/plantools"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

const createPlan = `{"schemaVersion":"2.0","action":"memory_ops","requiresConfirmation":false,"operations":[` +
	`{"type":"create","path":"notes.md","reason":"record","content":"learned"}]}`

// A write plan is confirmed through the Env: without a Confirmer in two
// calls (the first returns the text), with one by its answer, whatever
// confirmed says; it is applied with the Env's actor.
func TestApplyMemoryOpsConfirmsThroughTheEnv(t *testing.T) {
	ctx := context.Background()
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	apply, err := tools.Lookup(plantools.Defs(b, nil), plantools.ApplyMemoryOps)
	require.NoError(t, err)
	args := json.RawMessage(`{"branch":"main","plan":` + createPlan + `}`)

	res, err := apply.Handle(ctx, tools.Env{}, args)
	require.NoError(t, err)
	out, _ := json.Marshal(res)
	assert.Contains(t, string(out), `"applied":false`)
	assert.Contains(t, string(out), "notes.md", "the confirmation text names the file")

	decline := func(context.Context, string, bool) (tools.Confirmation, error) {
		return tools.Confirmation{Action: "decline"}, nil
	}
	confirmed := json.RawMessage(`{"branch":"main","confirmed":true,"plan":` + createPlan + `}`)
	res, err = apply.Handle(ctx, tools.Env{Confirm: decline}, confirmed)
	require.NoError(t, err)
	out, _ = json.Marshal(res)
	assert.Contains(t, string(out), `"userAction":"decline"`, "the user's answer, not the model's confirmed")

	_, err = apply.Handle(ctx, tools.Env{Actor: "alice"}, confirmed)
	require.NoError(t, err)
	doc, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeBranch, Branch: "main", Path: "notes.md"})
	require.NoError(t, err)
	assert.Equal(t, "learned", doc.Text())
	h, err := history.Page(ctx, b, memorybank.HistoryRequest{Scope: memorybank.ScopeBranch, Branch: "main", Path: "notes.md", Limit: 5})
	require.NoError(t, err)
	require.NotEmpty(t, h.Items)
	assert.Equal(t, "alice", h.Items[0].Actor)
}

// With ConfirmOnlyAsked a plan that does not ask is applied at once.
func TestConfirmOnlyAsked(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	apply, err := tools.Lookup(plantools.Defs(b, &plantools.Options{ConfirmOnlyAsked: true}), plantools.ApplyMemoryOps)
	require.NoError(t, err)
	res, err := apply.Handle(context.Background(), tools.Env{}, json.RawMessage(`{"branch":"main","plan":`+createPlan+`}`))
	require.NoError(t, err)
	out, _ := json.Marshal(res)
	assert.Contains(t, string(out), `"applied":true`)
}
