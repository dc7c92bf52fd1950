package textsearch

import (
	"math"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A role weighs a document; it never hides one.
func TestRolesWeighDocuments(t *testing.T) {
	roles := map[string]float64{"user": 2, "assistant": 0.5}
	ix, err := NewIndex[string](Params{Fields: []Field{{"text", 1, 0.75}}, Roles: roles}, Analyzer{})
	require.NoError(t, err)
	roles["user"] = 0.1 // the index took a copy
	text := "the glaze is celadon green"
	require.NoError(t, ix.AddAs("a", "assistant", text))
	require.NoError(t, ix.AddAs("u", "user", text))
	require.NoError(t, ix.AddAs("n", "", text))
	require.NoError(t, ix.AddAs("o", "reviewer", text))
	require.NoError(t, ix.AddAs("x", "user", "nothing to see"))
	scores := map[string]float64{}
	ix.Each(QueryTerms("celadon glaze"), nil, func(k string, s float64) { scores[k] = s })
	require.Len(t, scores, 4, "every document holding the terms is found, whatever its role")
	assert.Greater(t, scores["u"], scores["n"])
	assert.Greater(t, scores["n"], scores["a"])
	assert.Equal(t, scores["n"], scores["o"], "a role without a weight weighs 1")

	// Add is AddAs without a role; replacing a document replaces its role.
	require.NoError(t, ix.Add("u", text))
	ix.Each(QueryTerms("celadon glaze"), nil, func(k string, s float64) { scores[k] = s })
	assert.Equal(t, scores["n"], scores["u"])
}

func TestRolesRejectBadWeights(t *testing.T) {
	for _, w := range []float64{0, -1, math.Inf(1), math.NaN()} {
		_, err := NewIndex[int](Params{Fields: []Field{{"text", 1, 0.75}}, Roles: map[string]float64{"user": w}}, Analyzer{})
		assert.ErrorIs(t, err, ErrParams, "weight %v", w)
	}
}

func TestRoleOf(t *testing.T) {
	p := Params{Roles: ChatRoles()}
	assert.Equal(t, "user", p.RoleOf([]string{"pattern", "user"}))
	assert.Equal(t, "assistant", p.RoleOf([]string{"ASSISTANT", "user"}), "tags compare folded; the first role wins")
	assert.Equal(t, "", p.RoleOf([]string{"pattern"}))
	assert.Equal(t, "", Params{}.RoleOf([]string{"user"}))
}
