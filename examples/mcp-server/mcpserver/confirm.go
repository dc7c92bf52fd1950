package mcpserver

import (
	"context"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The write plans of apply_memory_ops and apply_consolidation are
// confirmed by the user (plantools and consolidatetools say when). When
// the client offers MCP elicitation, the server's Confirmer shows the
// confirmation text to the user through it: accept applies, decline or
// cancel writes nothing, and confirmed in the arguments is ignored, since
// the model wrote it; a failed elicitation request is refused (nothing
// written, the next call asks again), never turned into trust. Only a
// client without elicitation confirms in two calls: the first returns the
// text to show the user, the second, with confirmed true, applies.

const confirmRequestID = "mnemobank/confirm"

// ConfirmPolicy says which write plans the person confirms
// (--confirm-plans).
type ConfirmPolicy string

const (
	// ConfirmAlways: every write plan is confirmed, whatever its
	// requiresConfirmation says (the default).
	ConfirmAlways ConfirmPolicy = "always"
	// ConfirmNever: only plans whose requiresConfirmation is true are
	// confirmed; the person chose to let the model write without asking.
	ConfirmNever ConfirmPolicy = "never"
)

// errConfirmationFailed: the client offers elicitation but the request to
// confirm a plan failed; nothing was written.
var errConfirmationFailed = errors.New("the confirmation request failed")

// ErrBadConfirmPolicy: --confirm-plans is not always or never.
var ErrBadConfirmPolicy = errors.New("--confirm-plans must be always or never")

func ParseConfirmPolicy(s string) (ConfirmPolicy, error) {
	switch p := ConfirmPolicy(s); p {
	case ConfirmAlways, ConfirmNever:
		return p, nil
	}
	return "", fmt.Errorf("%w, not %s", ErrBadConfirmPolicy, quoteInput(s))
}

// askUser asks the user to confirm text. When the client offers
// elicitation it shows the text there (confirmedArg, written by the
// model, is ignored); otherwise the user confirms in two calls: the first
// (confirmedArg false) returns unconfirmed, for the model to show the
// text, the second, with confirmedArg true, is confirmed. tool names the
// tool to call again.
func (s *Server) askUser(ctx context.Context, req *mcp.CallToolRequest, text string, confirmedArg bool, tool string) (tools.Confirmation, error) {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return tools.Confirmation{Confirmed: confirmedArg}, nil
	}
	params := &mcp.ElicitParams{
		Message:         text,
		RequestedSchema: &jsonschema.Schema{Type: "object", Properties: map[string]*jsonschema.Schema{}},
	}
	answer, given := req.Params.InputResponses[confirmRequestID].(*mcp.ElicitResult)
	if given {
		// An answer counts only with the sealed state of the round that
		// asked for it, once: the client cannot make one up, nor send one
		// again.
		if err := s.states.redeem(req.Params.Name, confirmRequestID, req.Params.Arguments, req.Params.RequestState); err != nil {
			return tools.Confirmation{}, stateError(err)
		}
	}
	if !given && req.ProtocolVersion() >= multiRoundTripProtocol {
		return tools.Confirmation{}, &needInput{requests: mcp.InputRequestMap{confirmRequestID: params},
			state: s.states.issue(req.Params.Name, confirmRequestID, req.Params.Arguments)}
	}
	if !given {
		var err error
		answer, err = req.Session.Elicit(ctx, params)
		if ctx.Err() != nil {
			return tools.Confirmation{}, tools.Cancelled(ctx.Err())
		}
		if err != nil {
			// Refused, and not remembered: the next call asks again.
			return tools.Confirmation{}, &tools.Error{Code: tools.CodeInternal, Err: fmt.Errorf("%w: %w", errConfirmationFailed, err),
				Message: "the client's confirmation dialog failed (" + err.Error() + "); nothing was written. " +
					"Call " + tool + " again to ask the user again"}
		}
	}
	return tools.Confirmation{Confirmed: answer.Action == "accept", Action: answer.Action}, nil
}

// stateError is the tool error of a refused request state.
func stateError(err error) *tools.Error {
	return tools.Errorf(tools.CodeInvalidArgument, err, nil,
		"%v. Nothing was written; call the tool again without inputResponses and requestState to ask the user again.", err)
}
