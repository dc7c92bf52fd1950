package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// manualRounds connects a 2026-07-28 client that declares elicitation but
// drives the rounds itself, so a test can send what it likes as answers
// and state.
func manualRounds(t *testing.T, ts *testServer) *mcp.ClientSession {
	t.Helper()
	client := newClient(&mcp.ClientOptions{
		MultiRoundTrip: &mcp.MultiRoundTripOptions{Disabled: true},
		ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			t.Error("the server asked outside the rounds")
			return &mcp.ElicitResult{Action: "decline"}, nil
		},
	})
	return ts.connect(t, client, multiRoundTripProtocol)
}

func applyArgs(t *testing.T) map[string]any {
	return map[string]any{"branch": "main", "plan": jsonValue(t, createPlan)}
}

func accept() mcp.InputResponseMap {
	return mcp.InputResponseMap{confirmRequestID: &mcp.ElicitResult{Action: "accept"}}
}

// callRound calls apply_memory_ops with answers and state.
func callRound(t *testing.T, s *mcp.ClientSession, args map[string]any, answers mcp.InputResponseMap, state string) *mcp.CallToolResult {
	t.Helper()
	res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "apply_memory_ops", Arguments: args, InputResponses: answers, RequestState: state})
	require.NoError(t, err)
	return res
}

func firstRound(t *testing.T, s *mcp.ClientSession) string {
	t.Helper()
	res := callRound(t, s, applyArgs(t), nil, "")
	require.True(t, res.NeedsInput(), "the first round asks the user")
	require.Contains(t, res.InputRequests, confirmRequestID)
	require.NotEmpty(t, res.RequestState)
	return res.RequestState
}

func refusedState(t *testing.T, res *mcp.CallToolResult, want string) {
	t.Helper()
	require.True(t, res.IsError, "a refused state is a tool error")
	text := res.Content[0].(*mcp.TextContent).Text
	assert.Contains(t, text, "INVALID_ARGUMENT")
	assert.Contains(t, text, want)
	assert.Contains(t, text, "Nothing was written")
}

func TestRequestStateRoundTrip(t *testing.T) {
	ts := newTestServer(t)
	s := manualRounds(t, ts)
	state := firstRound(t, s)
	res := callRound(t, s, applyArgs(t), accept(), state)
	require.False(t, res.IsError, "%v", res.Content)
	assert.FileExists(t, learningFile(ts, "main"))
}

func TestForgedRequestStateWritesNothing(t *testing.T) {
	ts := newTestServer(t)
	s := manualRounds(t, ts)
	state := firstRound(t, s)
	body, sig, _ := strings.Cut(state, ".")
	payload, err := base64.RawURLEncoding.DecodeString(body)
	require.NoError(t, err)
	var p requestStatePayload
	require.NoError(t, json.Unmarshal(payload, &p))
	p.Exp = time.Now().Add(24 * time.Hour).UnixMilli()
	changed, err := json.Marshal(p)
	require.NoError(t, err)
	otherArgs := applyArgs(t)
	otherArgs["scope"] = "global"
	otherSealer := newStateSealer(nil)

	for name, c := range map[string]struct {
		args  map[string]any
		state string
		want  string
	}{
		"no state":          {applyArgs(t), "", "without a request state"},
		"made up":           {applyArgs(t), "bm90LWEtc3RhdGU.c2ln", "not issued by this server"},
		"payload changed":   {applyArgs(t), base64.RawURLEncoding.EncodeToString(changed) + "." + sig, "signature does not verify"},
		"other key":         {applyArgs(t), otherSealer.issue("apply_memory_ops", confirmRequestID, json.RawMessage(`{}`)), "signature does not verify"},
		"other arguments":   {otherArgs, state, "other arguments"},
		"not base64":        {applyArgs(t), "!!!.???", "payload.signature"},
		"too long":          {applyArgs(t), strings.Repeat("a", maxRequestStateLen+1), "bytes long"},
		"other tool's form": {applyArgs(t), newStateSealerWithKey(ts).issue("write_branch_memory_bank", confirmRequestID, json.RawMessage(`{}`)), "belongs to another call"},
	} {
		t.Run(name, func(t *testing.T) {
			refusedState(t, callRound(t, s, c.args, accept(), c.state), c.want)
			assert.NoFileExists(t, learningFile(ts, "main"))
			assert.NoFileExists(t, strings.Replace(learningFile(ts, "main"), "branch-memory-bank/main", "global-memory-bank", 1))
		})
	}
	// The genuine state still works once, and only once.
	require.False(t, callRound(t, s, applyArgs(t), accept(), state).IsError)
	assert.FileExists(t, learningFile(ts, "main"))
}

// newStateSealerWithKey shares the server's key, to make a state that
// verifies but was issued for another tool.
func newStateSealerWithKey(ts *testServer) *stateSealer { return newStateSealer(ts.states.key) }

func TestReplayedRequestStateWritesNothing(t *testing.T) {
	ts := newTestServer(t)
	s := manualRounds(t, ts)
	state := firstRound(t, s)
	// Declined once: the state is spent, a replay with accept is refused.
	res := callRound(t, s, applyArgs(t), mcp.InputResponseMap{confirmRequestID: &mcp.ElicitResult{Action: "decline"}}, state)
	require.False(t, res.IsError)
	refusedState(t, callRound(t, s, applyArgs(t), accept(), state), "already used")
	assert.NoFileExists(t, learningFile(ts, "main"))
}

func TestExpiredRequestState(t *testing.T) {
	sealer := newStateSealer(nil)
	args := json.RawMessage(`{"b": 1, "a": [1, 2]}`)
	state := sealer.issue("apply_memory_ops", confirmRequestID, args)
	sealer.now = func() time.Time { return time.Now().Add(requestStateTTL + time.Second) }
	err := sealer.redeem("apply_memory_ops", confirmRequestID, args, state)
	require.ErrorIs(t, err, errRequestState)
	require.ErrorIs(t, err, errStateExpired)
	var se *requestStateError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "apply_memory_ops", se.Tool)

	// The same arguments re-encoded are the same call.
	sealer.now = time.Now
	state = sealer.issue("apply_memory_ops", confirmRequestID, args)
	require.NoError(t, sealer.redeem("apply_memory_ops", confirmRequestID, json.RawMessage(`{"a":[1,2],"b":1}`), state))
	require.ErrorIs(t, sealer.redeem("apply_memory_ops", confirmRequestID, args, state), errStateReplayed)
}
