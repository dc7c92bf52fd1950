package graphtools_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph/graphtools"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

func call(t *testing.T, b *memorybank.Bank, env tools.Env, name, args string) (map[string]any, error) {
	t.Helper()
	d, err := tools.Lookup(graphtools.Defs(b), name)
	require.NoError(t, err)
	res, err := d.Handle(context.Background(), env, json.RawMessage(args))
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(res)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out))
	return out, nil
}

// Every stored change of a skill graph records the call's actor in the
// document's history, as the bank's writes do: over HTTP the server
// passes the token's name.
func TestSkillGraphWritesRecordTheActor(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	_, err := call(t, b, tools.Env{Actor: "alice"}, graphtools.WriteSkillGraph,
		`{"skillId":"deploy","graph":{"nodes":[{"id":"a","type":"instruction","data":{"label":"Build"}}],"edges":[]}}`)
	require.NoError(t, err)
	_, err = call(t, b, tools.Env{Actor: "bob"}, graphtools.ApplySkillGraphOperations,
		`{"skillId":"deploy","operations":[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"Ship"}}]}`)
	require.NoError(t, err)
	p, err := history.Page(t.Context(), b, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: skilldoc.Path("deploy"), Limit: 10})
	require.NoError(t, err)
	require.Len(t, p.Items, 2)
	assert.Equal(t, "bob", p.Items[0].Actor, "newest first")
	assert.Equal(t, "alice", p.Items[1].Actor)
}

// write_skill_graph refuses a graph with a member it does not know, as
// apply_skill_graph_operations refuses such an operation: a misspelt
// member would otherwise be dropped without a word.
func TestWriteSkillGraphRefusesUnknownMembers(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	for _, graph := range []string{
		`{"nodes":[{"id":"a","type":"instruction","data":{"label":"Build"}}],"edge":[]}`,
		`{"nodes":[{"id":"a","type":"instruction","data":{"label":"Build","colour":"red"}}],"edges":[]}`,
	} {
		_, err := call(t, b, tools.Env{}, graphtools.WriteSkillGraph, `{"skillId":"deploy","graph":`+graph+`}`)
		var te *tools.Error
		require.ErrorAs(t, err, &te, graph)
		assert.Equal(t, tools.CodeInvalidArgument, te.Code, graph)
		assert.Contains(t, te.Message, "unknown field", graph)
	}
	ops := `[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"Ship"},"colour":"red"}]`
	_, err := call(t, b, tools.Env{}, graphtools.ApplySkillGraphOperations, `{"skillId":"deploy","operations":`+ops+`}`)
	var te *tools.Error
	require.ErrorAs(t, err, &te)
	assert.Equal(t, tools.CodeInvalidArgument, te.Code)
}

// A skill graph change answers camelCase members, and leaves out the
// empty ones rather than answering null.
func TestApplyAnswersCamelCaseWithoutNulls(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	out, err := call(t, b, tools.Env{}, graphtools.ApplySkillGraphOperations,
		`{"skillId":"deploy","operations":[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"Ship"}}]}`)
	require.NoError(t, err)
	change := out["changes"].([]any)[0].(map[string]any)
	assert.Equal(t, "op1", change["operationId"])
	assert.Equal(t, "addNode", change["kind"])
	assert.EqualValues(t, 0, change["index"])
	assert.NotContains(t, change, "nodesRemoved", "empty, so left out")
	for k, v := range change {
		assert.NotNil(t, v, k)
	}
}
