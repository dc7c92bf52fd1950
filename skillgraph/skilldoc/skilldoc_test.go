package skilldoc_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

func TestStoreLoadIDs(t *testing.T) {
	ctx := context.Background()
	b := memorybank.New(&memorybank.MemStore{}, nil)

	g, v, err := skilldoc.Load(ctx, b, "deploy")
	require.NoError(t, err)
	assert.Nil(t, g, "a skill never stored loads as nil")
	assert.Zero(t, v)

	in := &skillgraph.Graph{SkillID: "deploy", Version: 1, Nodes: []skillgraph.Node{{ID: "start", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Start"}}}}
	_, err = skilldoc.Store(ctx, b, in, 0, "")
	require.NoError(t, err)
	_, err = skilldoc.Store(ctx, b, in, 0, "")
	assert.ErrorIs(t, err, memorybank.ErrExists, "version 0 means: must not exist yet")

	g, v, err = skilldoc.Load(ctx, b, "deploy")
	require.NoError(t, err)
	require.NotNil(t, g)
	assert.Equal(t, int64(1), v)
	assert.Equal(t, "Start", g.Nodes[0].Data.Label)

	doc, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: skilldoc.Path("deploy")})
	require.NoError(t, err)
	assert.Equal(t, skilldoc.DocumentType, doc.DocumentType)

	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "skills/not a skill.json", Content: []byte(`{"a":1}`)})
	require.NoError(t, err)
	ids, err := skilldoc.IDs(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, []string{"deploy"}, ids, "a document whose name is no skill id is not listed")
}

func TestLoadRefusesInvalidID(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, nil)
	for _, id := range []string{"", "../x", "-a", "a b", string(make([]byte, 65))} {
		_, _, err := skilldoc.Load(context.Background(), b, id)
		assert.ErrorIs(t, err, skilldoc.ErrInvalidID, "id %q", id)
		assert.False(t, skilldoc.ValidID(id))
	}
}
