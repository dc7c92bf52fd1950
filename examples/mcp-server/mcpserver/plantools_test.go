package mcpserver

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

const createPlan = `{"schemaVersion":"2.0","action":"memory_ops","requiresConfirmation":true,"operations":[` +
	`{"type":"create","path":"details/learnings/flaky-test.md","reason":"record why the test was flaky","content":"# Flaky test\nThe clock was not injected.\n"}]}`

const legacyProtocol = "2025-11-25" // server-initiated elicitation and roots requests

// elicitingClient answers every elicitation with action and records the
// messages it was shown.
type elicitingClient struct {
	mu       sync.Mutex
	action   string
	messages []string
}

func (e *elicitingClient) client() *mcp.Client {
	return newClient(&mcp.ClientOptions{ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		e.mu.Lock()
		defer e.mu.Unlock()
		e.messages = append(e.messages, req.Params.Message)
		return &mcp.ElicitResult{Action: e.action}, nil
	}})
}

func learningFile(ts *testServer, branch string) string {
	return filepath.Join(ts.root, "branch-memory-bank", branch, "details", "learnings", "flaky-test.md")
}

func TestApplyMemoryOpsWithElicitation(t *testing.T) {
	for _, protocol := range []string{"", legacyProtocol} {
		for _, action := range []string{"accept", "decline", "cancel"} {
			t.Run(action+" protocol "+protocol, func(t *testing.T) {
				ts := newTestServer(t)
				ec := &elicitingClient{action: action}
				s := ts.connect(t, ec.client(), protocol)
				// confirmed:true written by the model does not skip the user.
				out := ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+createPlan+`,"confirmed":true}`)
				require.Len(t, ec.messages, 1, "the user was asked once")
				assert.Contains(t, ec.messages[0], "details/learnings/flaky-test.md", "the confirmation text names the file")
				assert.Contains(t, ec.messages[0], "record why the test was flaky")
				assert.Equal(t, action, out["userAction"])
				if action == "accept" {
					assert.Equal(t, true, out["applied"])
					assert.FileExists(t, learningFile(ts, "main"))
				} else {
					assert.Equal(t, false, out["applied"])
					assert.NoFileExists(t, learningFile(ts, "main"), "a %s writes nothing", action)
				}
			})
		}
	}
}

func TestApplyMemoryOpsInTwoCalls(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "") // no elicitation
	out := ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+createPlan+`}`)
	assert.Equal(t, false, out["applied"])
	assert.Contains(t, out["confirmation"], "details/learnings/flaky-test.md")
	assert.Contains(t, out["next"], "confirmed true")
	assert.NoFileExists(t, learningFile(ts, "main"))

	out = ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+createPlan+`,"confirmed":true}`)
	assert.Equal(t, true, out["applied"])
	assert.FileExists(t, learningFile(ts, "main"))

	// A plan given as a string holding the JSON is read the same.
	code, _ := fails(t, s, "apply_memory_ops", `{"branch":"main","plan":"{\"action\":\"memory_ops\"}"}`)
	assert.Equal(t, "INVALID_ARGUMENT", code)
	code, _ = fails(t, s, "apply_memory_ops", `{"plan":`+createPlan+`}`)
	assert.Equal(t, "INVALID_ARGUMENT", code, "no branch and no roots")
}

// A request cancelled while the user is deciding writes nothing, even if
// the user accepts afterwards.
func TestCancelledApplyWritesNothing(t *testing.T) {
	ts := newTestServer(t)
	serverCtx := make(chan context.Context, 1)
	callDone := make(chan struct{}, 1)
	ts.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method != "tools/call" {
				return next(ctx, method, req)
			}
			serverCtx <- ctx
			defer func() { callDone <- struct{}{} }()
			return next(ctx, method, req)
		}
	})
	asked, release := make(chan struct{}), make(chan struct{})
	client := newClient(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		close(asked)
		<-release
		return &mcp.ElicitResult{Action: "accept"}, nil
	}})
	s := ts.connect(t, client, legacyProtocol)
	ctx, cancel := context.WithCancel(t.Context())
	errc := make(chan error, 1)
	go func() {
		_, err := s.CallTool(ctx, &mcp.CallToolParams{Name: "apply_memory_ops", Arguments: map[string]any{"branch": "main", "plan": jsonValue(t, createPlan)}})
		errc <- err
	}()
	sctx := <-serverCtx
	<-asked
	cancel()
	require.ErrorIs(t, <-errc, context.Canceled)
	<-sctx.Done() // the server saw the cancellation
	close(release)
	<-callDone
	assert.NoFileExists(t, learningFile(ts, "main"))
}

func TestCheckFileSelection(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	ok(t, s, "write_global_memory_bank", `{"path":"MEMORY.md","content":"# Memory\none\ntwo\n"}`)
	good := `{"schemaVersion":"2.0","action":"select_files","files":["MEMORY.md"],"reason":"the index",` +
		`"budget":{"filesSelected":1,"filesLimit":5,"linesSelected":3,"linesLimit":500},"riskAlerts":[]}`
	out := ok(t, s, "check_file_selection", `{"scope":"global","selection":`+good+`}`)
	assert.Equal(t, true, out["ok"], "%v", out["problems"])
	bad := `{"schemaVersion":"2.0","action":"select_files","files":["MEMORY.md","missing.md"],"reason":"x",` +
		`"budget":{"filesSelected":2,"filesLimit":5,"linesSelected":99,"linesLimit":500},"riskAlerts":[]}`
	out = ok(t, s, "check_file_selection", `{"scope":"global","selection":`+bad+`}`)
	assert.Equal(t, false, out["ok"])
	assert.NotEmpty(t, out["problems"])
}

// A client that declares elicitation but fails the request gets an error
// that says nothing was written; the failure is never remembered as trust:
// confirmed true from the model does not apply the plan then or later.
func TestFailedElicitationIsNeverTrust(t *testing.T) {
	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			ts := newTestServer(t)
			var asked atomic.Int32
			client := newClient(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
				asked.Add(1)
				return nil, errors.New("no dialog here")
			}})
			s := ts.connect(t, client, protocol)
			for i := range 2 {
				res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: "apply_memory_ops",
					Arguments: map[string]any{"branch": "main", "plan": jsonValue(t, createPlan), "confirmed": true}})
				if err == nil {
					// Refused as a tool error, or asked again as input.
					require.True(t, res.IsError, "call %d: a failed confirmation applies nothing", i)
					assert.Contains(t, res.Content[0].(*mcp.TextContent).Text, "nothing was written")
				}
				assert.NoFileExists(t, learningFile(ts, "main"), "call %d", i)
			}
			assert.EqualValues(t, 2, asked.Load(), "every call asks the user again")
		})
	}
}

const deletePlan = `{"schemaVersion":"2.0","action":"memory_ops","requiresConfirmation":false,"operations":[` +
	`{"type":"delete","path":"notes.md","reason":"stale"}]}`

// Confirmation is the server's policy, not the plan's field: a plan that
// says requiresConfirmation false, a delete included, is shown to the user.
func TestPlanWithoutRequiresConfirmationIsConfirmed(t *testing.T) {
	notes := func(ts *testServer) string { return filepath.Join(ts.root, "branch-memory-bank", "main", "notes.md") }
	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("elicitation, protocol "+protocol, func(t *testing.T) {
			ts := newTestServer(t)
			ec := &elicitingClient{action: "decline"}
			s := ts.connect(t, ec.client(), protocol)
			ok(t, s, "write_branch_memory_bank", `{"branch":"main","path":"notes.md","content":"keep me"}`)
			out := ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+deletePlan+`}`)
			require.Len(t, ec.messages, 1, "the user was asked")
			assert.Contains(t, ec.messages[0], "notes.md")
			assert.Equal(t, false, out["applied"])
			assert.FileExists(t, notes(ts), "a declined delete deletes nothing")
		})
	}
	t.Run("two calls", func(t *testing.T) {
		ts := newTestServer(t)
		s := ts.connect(t, nil, "")
		ok(t, s, "write_branch_memory_bank", `{"branch":"main","path":"notes.md","content":"keep me"}`)
		out := ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+deletePlan+`}`)
		assert.Equal(t, false, out["applied"])
		assert.Contains(t, out["confirmation"], "notes.md")
		assert.FileExists(t, notes(ts))
	})
	t.Run("--confirm-plans never", func(t *testing.T) {
		ts := newTestServerWith(t, &Options{ConfirmPlans: ConfirmNever})
		ec := &elicitingClient{action: "decline"}
		s := ts.connect(t, ec.client(), "")
		ok(t, s, "write_branch_memory_bank", `{"branch":"main","path":"notes.md","content":"keep me"}`)
		out := ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+deletePlan+`}`)
		assert.Equal(t, true, out["applied"], "the person turned confirmation off")
		assert.Empty(t, ec.messages)
		assert.NoFileExists(t, notes(ts))
		// The model may still ask for confirmation.
		out = ok(t, s, "apply_memory_ops", `{"branch":"main","plan":`+createPlan+`}`)
		assert.Equal(t, false, out["applied"])
		assert.Len(t, ec.messages, 1)
	})
}

func TestConfirmPlansFlag(t *testing.T) {
	for _, c := range []struct {
		in   string
		want ConfirmPolicy
	}{{"always", ConfirmAlways}, {"never", ConfirmNever}} {
		got, err := ParseConfirmPolicy(c.in)
		require.NoError(t, err)
		assert.Equal(t, c.want, got)
	}
	_, err := ParseConfirmPolicy("sometimes")
	require.ErrorIs(t, err, ErrBadConfirmPolicy)
	assert.Contains(t, err.Error(), "always")
}
