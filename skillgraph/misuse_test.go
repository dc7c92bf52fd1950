package skillgraph

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Nil and zero values are errors or defaults, never a panic.
func TestNilEditorIsAnError(t *testing.T) {
	var ed *Editor
	require.NotPanics(t, func() {
		out, res, err := ed.Apply(graph([]string{"a"}), nil)
		assert.ErrorIs(t, err, ErrNotInitialized)
		assert.Nil(t, out)
		assert.Nil(t, res)
	})
}

func TestZeroEditorUsesDefaults(t *testing.T) {
	require.NotPanics(t, func() {
		out, _, err := (&Editor{}).Apply(graph([]string{"a"}), []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")}})
		require.NoError(t, err)
		assert.Equal(t, 2, out.Version)
		assert.False(t, out.UpdatedAt.IsZero(), "the default clock stamps UpdatedAt")
	})
	// A NewEditor with a nil clock also falls back on time.Now.
	out, _, err := NewEditor(&Options{Now: nil}).Apply(graph([]string{"a"}), []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")}})
	require.NoError(t, err)
	assert.False(t, out.UpdatedAt.IsZero())
}

func TestNilGraphOptionsAndOperations(t *testing.T) {
	require.NotPanics(t, func() {
		out, res, err := NewEditor(nil).Apply(nil, nil)
		require.NoError(t, err)
		assert.Empty(t, out.Nodes)
		assert.Empty(t, res.Changes)

		_, _, err = NewEditor(nil).Apply(nil, []Operation{{}})
		assert.ErrorIs(t, err, ErrInvalidOperation, "a zero operation")
		for _, k := range kinds {
			_, _, err = NewEditor(nil).Apply(nil, []Operation{{OperationID: "op1", Kind: k}})
			assert.Error(t, err, "%s with no fields", k)
		}
		_, _, err = NewEditor(nil).Apply(&Graph{Edges: []Edge{{ID: "e1", Source: "a", Target: "b"}}}, nil)
		assert.ErrorIs(t, err, ErrInvalidGraph, "edges without nodes")

		_, err = SkillMD(nil, nil)
		assert.Error(t, err)
		_, err = SkillMD(nil, &SkillMDOptions{Description: "d"})
		assert.ErrorIs(t, err, ErrInvalidGraph, "the nil graph has no name")
		assert.Equal(t, "flowchart TD\n", Mermaid(nil))
		assert.Contains(t, DOT(nil), "digraph")
		assert.True(t, Validate(nil).OK())
		assert.Nil(t, (*Graph)(nil).Clone())
		b, err := json.Marshal((*Graph)(nil))
		require.NoError(t, err)
		assert.Equal(t, "null", string(b))

		_, err = ParseOperations(nil)
		assert.ErrorIs(t, err, ErrSyntax)
		_, err = ParseEnvelopeWithOptions(nil, nil)
		assert.ErrorIs(t, err, ErrSyntax)
		_, err = ParseOperations([]byte("null"))
		assert.ErrorIs(t, err, ErrSchema)
		_, err = ParseOperations([]byte(`[null]`))
		assert.ErrorIs(t, err, ErrSchema)
		_, err = ParseOperations([]byte(`{"operations":null}`))
		assert.ErrorIs(t, err, ErrSchema)
		_, err = KindSchema("")
		assert.ErrorIs(t, err, ErrInvalidOperation)
	})
}
