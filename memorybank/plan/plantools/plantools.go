// Package plantools gives the agent tools of package plan to a host, as
// package tools gives a memory bank's: check_file_selection checks a
// select_files output against the bank, apply_memory_ops applies a
// memory_ops write plan on one bank (scope "branch", the default, or
// "global") once the user confirms it. Both are declared with
// tools.Declare, so a host registers them with the bank's tools in one
// loop.
//
// Confirmation is the host's policy, never the model's: every write plan
// is confirmed by the user, whatever the plan's requiresConfirmation
// says, unless the host's Options say the person chose otherwise (then
// only plans asking for it are). The call's tools.Env says how to ask:
// its Confirmer (the MCP server's elicitation dialog, where the model's
// confirmed argument is ignored), or, without one, two calls: the first
// returns the text to show the user, the second, with confirmed true,
// applies. The plan is applied with the Env's actor.
package plantools

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Tool names.
const (
	CheckFileSelection = "check_file_selection"
	ApplyMemoryOps     = "apply_memory_ops"
)

// Options configure the plan tools; nil or the zero value confirms every
// write plan.
type Options struct {
	// ConfirmOnlyAsked confirms only the plans whose
	// requiresConfirmation is true: the person chose to let the model
	// write without asking (the server's --confirm-plans never).
	ConfirmOnlyAsked bool
}

type target struct {
	bank *memorybank.Bank
	opts Options
}

var decls = []tools.Decl[*target]{
	tools.Declare(CheckFileSelection,
		`Check a select_files output against the bank: files exist, counts true, within budget.`,
		tools.ReadOnly, adjustScope, nil, runCheck),
	tools.Declare(ApplyMemoryOps,
		`Apply a memory_ops plan once the user confirms it (client dialog, or show the returned text and call again with confirmed true).`,
		tools.Overwriting, adjustScope, nil, runApply),
}

// Defs returns the plan tools of b bound to it, in a fixed order:
// check_file_selection, apply_memory_ops; opts may be nil.
func Defs(b *memorybank.Bank, opts *Options) []tools.Def {
	t := &target{bank: b}
	if opts != nil {
		t.opts = *opts
	}
	return tools.Bind(t, decls...)
}

// For returns the plan tools of b with their schemas, in the order of
// Defs.
func For(b *memorybank.Bank, opts *Options, o ...tools.Option) []tools.Tool {
	return tools.Tools(Defs(b, opts), o...)
}

// scoped are the scope and branch of a plan's bank: the branch's unless
// scope is "global".
type scoped struct {
	Scope  string `json:"scope,omitempty"`
	Branch string `json:"branch,omitempty"`
}

func (a *scoped) BranchRef() *string { return &a.Branch }
func (a *scoped) NeedsBranch() bool  { return a.Scope != string(memorybank.ScopeGlobal) }

func (a *scoped) root() plan.Root {
	if a.Scope == string(memorybank.ScopeGlobal) {
		return plan.Root{Scope: memorybank.ScopeGlobal}
	}
	return plan.Root{Scope: memorybank.ScopeBranch, Branch: a.Branch}
}

func adjustScope(s *jsonschema.Schema) {
	tools.SetEnum(s, "scope", string(memorybank.ScopeBranch), string(memorybank.ScopeGlobal))
	tools.SetDefault(s, "scope", memorybank.ScopeBranch)
	for _, name := range []string{"selection", "plan"} {
		if p := s.Properties[name]; p != nil {
			p.Type = "object"
		}
	}
}

type checkArgs struct {
	Selection json.RawMessage `json:"selection" jsonschema:"{schemaVersion:2.0,action:select_files,files,reason,budget,riskAlerts}"`
	scoped
}

type checkResult struct {
	OK       bool                 `json:"ok"`
	Problems []memorybank.Problem `json:"problems" jsonschema:"Every problem, located by a JSON Pointer into the selection."`
}

func runCheck(ctx context.Context, t *target, _ tools.Env, a *checkArgs) (*checkResult, error) {
	sel, err := plan.DecodeFileSelection(a.Selection)
	if err == nil {
		err = plan.CheckSelection(ctx, t.bank, a.root(), sel, nil)
	}
	var pe *plan.Error
	if errors.As(err, &pe) {
		return &checkResult{OK: false, Problems: tools.NonNil(pe.Problems)}, nil
	}
	if err != nil {
		return nil, err
	}
	return &checkResult{OK: true, Problems: []memorybank.Problem{}}, nil
}

type applyArgs struct {
	Plan      json.RawMessage `json:"plan" jsonschema:"{schemaVersion:2.0,action:memory_ops,operations:[{type:create|update|delete,path,reason,changes,content}],requiresConfirmation}"`
	Confirmed bool            `json:"confirmed,omitempty" jsonschema:"only after the user said yes"`
	scoped
}

type applyResult struct {
	Applied      bool               `json:"applied"`
	Files        []plan.AppliedFile `json:"files"`
	Confirmation string             `json:"confirmation,omitempty" jsonschema:"The text to show the user when the plan awaits confirmation."`
	Next         string             `json:"next,omitempty" jsonschema:"What to do next when nothing was applied."`
	UserAction   string             `json:"userAction,omitempty" jsonschema:"The user's answer through elicitation: accept, decline or cancel."`
}

// ConfirmNext is what a model is told to do with a plan that awaits the
// user's confirmation in two calls.
const ConfirmNext = "Nothing was written. Show the confirmation text to the user verbatim; if they answer yes, " +
	"call apply_memory_ops again with the same plan and confirmed true."

func runApply(ctx context.Context, t *target, env tools.Env, a *applyArgs) (*applyResult, error) {
	wp, err := plan.DecodeWritePlan(a.Plan)
	if err != nil {
		return nil, Error(err)
	}
	root := a.root()
	if root.Scope == memorybank.ScopeBranch {
		if err := memorybank.ValidateBranch(root.Branch); err != nil {
			return nil, err
		}
	}
	// The host's policy decides, not the plan: the model's
	// requiresConfirmation may only add a confirmation.
	mustConfirm := !t.opts.ConfirmOnlyAsked || wp.RequiresConfirmation
	confirmed := !mustConfirm
	action := "" // the user's answer through a dialog
	if mustConfirm {
		text, err := wp.Confirmation(t.bank.Options().Language)
		if err != nil {
			return nil, err
		}
		c, err := env.AskUser(ctx, text, a.Confirmed)
		if err != nil {
			return nil, err
		}
		action = c.Action
		switch {
		case c.Action != "" && c.Action != "accept":
			return &applyResult{Files: []plan.AppliedFile{}, UserAction: c.Action,
				Next: "The user did not accept the plan (" + c.Action + "); nothing was written. Ask what to change."}, nil
		case !c.Confirmed:
			return &applyResult{Files: []plan.AppliedFile{}, Confirmation: text, Next: ConfirmNext}, nil
		}
		confirmed = true
	}
	// A request cancelled while the user was deciding applies nothing.
	if err := ctx.Err(); err != nil {
		return nil, tools.Cancelled(err)
	}
	wp.RequiresConfirmation = mustConfirm
	res, err := plan.Apply(ctx, t.bank, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: confirmed, Actor: env.Actor})
	if err != nil {
		return nil, Error(err)
	}
	return &applyResult{Applied: true, Files: tools.NonNil(res.Files), UserAction: action}, nil
}

// Error maps a plan's *plan.Error to INVALID_ARGUMENT with its problems,
// and a failed operation to its code (INVALID_ARGUMENT rather than
// INTERNAL); other errors are returned as they are.
func Error(err error) error {
	var pe *plan.Error
	if errors.As(err, &pe) {
		return tools.Errorf(tools.CodeInvalidArgument, err, map[string]any{"problems": tools.NonNil(pe.Problems)},
			"%v. Nothing was written; fix the plan (%d problems in details) and call again.", err, len(pe.Problems))
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
