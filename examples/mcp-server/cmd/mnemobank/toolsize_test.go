package main

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The tools/list answer goes into the model's context on every turn.
// The goal is 16 KB (about 4,000 tokens) for every tool; maxToolListBytes
// is where it stands, a ceiling lowered as descriptions and input schemas
// are cut (the output schemas carry no descriptions), never raised.
const (
	toolListGoalBytes = 16 << 10
	maxToolListBytes  = 47 << 10
)

// The whole tools/list answer, as the in-memory client receives it, stays
// within maxToolListBytes; the parts are logged to see where bytes go.
func TestToolListFitsItsBudget(t *testing.T) {
	s := newTestServer(t).connect(t, nil, "")
	res, err := s.ListTools(t.Context(), nil)
	require.NoError(t, err)
	all, err := json.Marshal(res)
	require.NoError(t, err)
	var desc, in, out int
	for _, tool := range res.Tools {
		desc += len(tool.Description)
		b, err := json.Marshal(tool.InputSchema)
		require.NoError(t, err)
		in += len(b)
		b, err = json.Marshal(tool.OutputSchema)
		require.NoError(t, err)
		out += len(b)
	}
	t.Logf("tools/list: %d bytes (goal %d) for %d tools; descriptions %d, input schemas %d, output schemas %d", len(all), toolListGoalBytes, len(res.Tools), desc, in, out)
	assert.LessOrEqual(t, len(all), maxToolListBytes, "tools/list is too large for the model's context")
}
