package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The plan tools check a select_files output and apply a memory_ops write
// plan on one bank (scope "branch", the default, or "global").
//
// Confirmation is the server's policy, never the model's: every write plan
// is confirmed by the user, whatever the plan's requiresConfirmation says,
// unless the person started the server with --confirm-plans never (then
// only plans asking for it are). When the client offers MCP elicitation,
// the confirmation text is shown to the user through it: accept applies,
// decline or cancel writes nothing, and confirmed in the arguments is
// ignored, since the model wrote it; a failed elicitation request is
// refused (nothing written, the next call asks again), never turned into
// trust. Only a client without elicitation confirms in two calls: the first
// returns the text to show the user, the second, with confirmed true,
// applies.

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

const confirmNext = "Nothing was written. Show the confirmation text to the user verbatim; if they answer yes, " +
	"call apply_memory_ops again with the same plan and confirmed true."

type checkSelectionArgs struct {
	Selection json.RawMessage `json:"selection" jsonschema:"{schemaVersion:2.0,action:select_files,files,reason,budget,riskAlerts}"`
	Scope     string          `json:"scope,omitempty"`
	Branch    string          `json:"branch,omitempty"`
}

func (a *checkSelectionArgs) branchRef() *string { return &a.Branch }
func (a *checkSelectionArgs) needsBranch() bool  { return a.Scope != string(memorybank.ScopeGlobal) }

type checkSelectionResult struct {
	OK       bool                 `json:"ok"`
	Problems []memorybank.Problem `json:"problems" jsonschema:"Every problem, located by a JSON Pointer into the selection."`
}

type applyOpsArgs struct {
	Plan      json.RawMessage `json:"plan" jsonschema:"{schemaVersion:2.0,action:memory_ops,operations:[{type:create|update|delete,path,reason,changes,content}],requiresConfirmation}"`
	Confirmed bool            `json:"confirmed,omitempty" jsonschema:"only after the user said yes"`
	Scope     string          `json:"scope,omitempty"`
	Branch    string          `json:"branch,omitempty"`
}

func (a *applyOpsArgs) branchRef() *string { return &a.Branch }
func (a *applyOpsArgs) needsBranch() bool  { return a.Scope != string(memorybank.ScopeGlobal) }

type applyOpsResult struct {
	Applied      bool               `json:"applied"`
	Files        []plan.AppliedFile `json:"files"`
	Confirmation string             `json:"confirmation,omitempty" jsonschema:"The text to show the user when the plan awaits confirmation."`
	Next         string             `json:"next,omitempty" jsonschema:"What to do next when nothing was applied."`
	UserAction   string             `json:"userAction,omitempty" jsonschema:"The user's answer through elicitation: accept, decline or cancel."`
}

func scopeSchema(s *jsonschema.Schema) {
	setEnum(s, "scope", "branch", "global")
	setDefault(s, "scope", "branch")
}

func (s *Server) planTools() []toolDef {
	check := define("check_file_selection", tools.ReadOnly,
		`Check a select_files output against the bank: files exist, counts true, within budget.`,
		scopeSchema, s.checkSelection)
	apply := define("apply_memory_ops", tools.Overwriting,
		`Apply a memory_ops plan once the user confirms it (client dialog, or show the returned text and call again with confirmed true).`,
		scopeSchema, s.applyOps)
	return []toolDef{check, apply}
}

func planRoot(scope, branch string) plan.Root {
	if scope == string(memorybank.ScopeGlobal) {
		return plan.Root{Scope: memorybank.ScopeGlobal}
	}
	return plan.Root{Scope: memorybank.ScopeBranch, Branch: branch}
}

// planArg decodes a plan argument that a model may also have sent as a
// string holding the JSON.
func planArg(raw json.RawMessage) []byte {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return []byte(s)
	}
	return raw
}

func (s *Server) checkSelection(ctx context.Context, _ *mcp.CallToolRequest, a checkSelectionArgs) (*checkSelectionResult, error) {
	sel, err := plan.DecodeFileSelection(planArg(a.Selection))
	if err == nil {
		err = plan.CheckSelection(ctx, s.bank, planRoot(a.Scope, a.Branch), sel, nil)
	}
	var pe *plan.Error
	if errors.As(err, &pe) {
		return &checkSelectionResult{OK: false, Problems: nonNil(pe.Problems)}, nil
	}
	if err != nil {
		return nil, err
	}
	return &checkSelectionResult{OK: true, Problems: []memorybank.Problem{}}, nil
}

func (s *Server) applyOps(ctx context.Context, req *mcp.CallToolRequest, a applyOpsArgs) (*applyOpsResult, error) {
	wp, err := plan.DecodeWritePlan(planArg(a.Plan))
	if err != nil {
		return nil, planError(err)
	}
	root := planRoot(a.Scope, a.Branch)
	if root.Scope == memorybank.ScopeBranch {
		if err := memorybank.ValidateBranch(root.Branch); err != nil {
			return nil, err
		}
	}
	// The server's policy decides, not the plan: the model's
	// requiresConfirmation may only add a confirmation.
	mustConfirm := s.confirmPlans != ConfirmNever || wp.RequiresConfirmation
	confirmed := !mustConfirm
	action := "" // the user's answer through elicitation
	if mustConfirm {
		text, err := wp.Confirmation(s.bank.Options().Language)
		if err != nil {
			return nil, err
		}
		c, err := s.askUser(ctx, req, text, a.Confirmed, "apply_memory_ops")
		if err != nil {
			return nil, err
		}
		action = c.action
		switch {
		case c.action != "" && c.action != "accept":
			return &applyOpsResult{Files: []plan.AppliedFile{}, UserAction: c.action,
				Next: "The user did not accept the plan (" + c.action + "); nothing was written. Ask what to change."}, nil
		case !c.confirmed:
			return &applyOpsResult{Files: []plan.AppliedFile{}, Confirmation: text, Next: confirmNext}, nil
		}
		confirmed = true
	}
	// A request cancelled while the user was deciding applies nothing.
	if err := ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	wp.RequiresConfirmation = mustConfirm
	res, err := plan.Apply(ctx, s.bank, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: confirmed, Actor: actor(req)})
	if err != nil {
		return nil, planError(err)
	}
	return &applyOpsResult{Applied: true, Files: nonNil(res.Files), UserAction: action}, nil
}

// confirmation is what askUser learned: confirmed, and the user's
// answer through elicitation ("" when the client has none).
type confirmation struct {
	confirmed bool
	action    string
}

// askUser asks the user to confirm text. When the client offers
// elicitation it shows the text there (confirmedArg, written by the
// model, is ignored); otherwise the user confirms in two calls: the first
// (confirmedArg false) returns unconfirmed, for the model to show the
// text, the second, with confirmedArg true, is confirmed. tool names the
// tool to call again.
func (s *Server) askUser(ctx context.Context, req *mcp.CallToolRequest, text string, confirmedArg bool, tool string) (confirmation, error) {
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return confirmation{confirmed: confirmedArg}, nil
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
			return confirmation{}, stateError(err)
		}
	}
	if !given && req.ProtocolVersion() >= multiRoundTripProtocol {
		return confirmation{}, &needInput{requests: mcp.InputRequestMap{confirmRequestID: params},
			state: s.states.issue(req.Params.Name, confirmRequestID, req.Params.Arguments)}
	}
	if !given {
		var err error
		answer, err = req.Session.Elicit(ctx, params)
		if ctx.Err() != nil {
			return confirmation{}, cancelled(ctx.Err())
		}
		if err != nil {
			// Refused, and not remembered: the next call asks again.
			return confirmation{}, &tools.Error{Code: tools.CodeInternal, Err: fmt.Errorf("%w: %w", errConfirmationFailed, err),
				Message: "the client's confirmation dialog failed (" + err.Error() + "); nothing was written. " +
					"Call " + tool + " again to ask the user again"}
		}
	}
	return confirmation{confirmed: answer.Action == "accept", action: answer.Action}, nil
}

// planError maps a plan's *Error to INVALID_ARGUMENT with its problems.
func planError(err error) error {
	var pe *plan.Error
	if errors.As(err, &pe) {
		return toolError(tools.CodeInvalidArgument, err, map[string]any{"problems": pe.Problems},
			"%v. Nothing was written; fix the plan (%s problems in details) and call again.", err, strconv.Itoa(len(pe.Problems)))
	}
	var oe *plan.OperationError
	if errors.As(err, &oe) {
		te := tools.AsError(err)
		if te.Code == tools.CodeInternal {
			te.Code = tools.CodeInvalidArgument
		}
		return te
	}
	return err
}

// stateError is the tool error of a refused request state.
func stateError(err error) *tools.Error {
	return toolError(tools.CodeInvalidArgument, err, nil,
		"%v. Nothing was written; call the tool again without inputResponses and requestState to ask the user again.", err)
}
