// Package consolidatetools gives the consolidation agent tools to a host,
// as package tools gives a memory bank's: the model reads the candidates
// with their texts (consolidation_candidates), writes a plan, and submits
// it (apply_consolidation); the user confirms it, always, through the
// call's tools.Env (its Confirmer, or two calls as apply_memory_ops). What
// was applied comes back as undo; apply_consolidation with it instead of a
// plan undoes the plan. Both are declared with tools.Declare, so a host
// registers them with the bank's tools in one loop.
//
// The changes are recorded with the Env's actor ("consolidate" when it
// has none), so the history says who confirmed them.
package consolidatetools

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// Tool names.
const (
	ConsolidationCandidates = "consolidation_candidates"
	ApplyConsolidation      = "apply_consolidation"
)

// maxCandidates bounds the candidates one call returns.
const maxCandidates = 200

// defaultCandidates is the default limit of consolidation_candidates.
const defaultCandidates = 50

// target is what the tools consolidate: the bank's documents, and the
// memories when there are any.
type target struct {
	bank *memorybank.Bank
	mem  *memories.Manager
}

var decls = []tools.Decl[*target]{
	tools.Declare(ConsolidationCandidates,
		`Duplicate, conflicting, stale and promotable memories and documents, with texts and versions, for apply_consolidation.`,
		tools.ReadOnly, func(s *jsonschema.Schema) {
			tools.SetBounds(s, "limit", 1, maxCandidates)
			tools.SetDefault(s, "limit", defaultCandidates)
			p := tools.Property(s, "mergedBranches")
			p.Types, p.Type = nil, "array"
		}, nil, runCandidates),
	tools.Declare(ApplyConsolidation,
		`Apply a consolidation plan once the user confirms it (dialog, or two calls as apply_memory_ops); or undo one.`,
		tools.Overwriting, func(s *jsonschema.Schema) {
			tools.Property(s, "plan").Type = "object"
			tools.Property(s, "undo").Type = "object"
		}, nil, runApply),
}

// Defs returns the consolidation tools over b and mem (nil: only the
// bank is consolidated), in a fixed order: consolidation_candidates,
// apply_consolidation.
func Defs(b *memorybank.Bank, mem *memories.Manager) []tools.Def {
	return tools.Bind(&target{bank: b, mem: mem}, decls...)
}

// For returns the consolidation tools with their schemas, in the order of
// Defs.
func For(b *memorybank.Bank, mem *memories.Manager, opts ...tools.Option) []tools.Tool {
	return tools.Tools(Defs(b, mem), opts...)
}

func (t *target) targets(env tools.Env) consolidate.Targets {
	return consolidate.Targets{Bank: t.bank, Memories: t.mem, Actor: cmp.Or(env.Actor, "consolidate")}
}

type candidatesArgs struct {
	MergedBranches []string `json:"mergedBranches,omitempty" jsonschema:"branches git reports merged into the default branch"`
	StaleDays      int      `json:"staleDays,omitempty" jsonschema:"days unused before a memory is stale"`
	Limit          int      `json:"limit,omitempty"`
}

type candidatesResult struct {
	Candidates []consolidate.Candidate `json:"candidates"`
	Total      int                     `json:"total"`
	Memories   int                     `json:"memories"`
	Documents  int                     `json:"documents"`
	Next       string                  `json:"next"`
}

func runCandidates(ctx context.Context, t *target, _ tools.Env, a *candidatesArgs) (*candidatesResult, error) {
	opts := &consolidate.Options{MergedBranches: a.MergedBranches}
	if a.StaleDays < 0 {
		opts.StaleAfter = -1
	} else if a.StaleDays > 0 {
		opts.StaleAfter = time.Duration(min(a.StaleDays, 100000)) * 24 * time.Hour
	}
	c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: t.mem, Bank: t.bank}, opts)
	if err != nil {
		return nil, err
	}
	limit := cmp.Or(a.Limit, defaultCandidates)
	res := &candidatesResult{Candidates: tools.NonNil(c.Items[:min(limit, len(c.Items))]), Total: len(c.Items),
		Memories: c.Memories, Documents: c.Documents}
	res.Next = "Write a plan (merge duplicates into one text, retire what is stale or wrong, promote what a merged branch learned), " +
		"with each entry's ref and version as given, and call apply_consolidation; the user confirms it."
	if res.Total > len(res.Candidates) {
		res.Next += fmt.Sprintf(" %d more candidates follow; apply a plan for these first, then call again.", res.Total-len(res.Candidates))
	}
	return res, nil
}

type applyArgs struct {
	Plan      json.RawMessage `json:"plan,omitempty" jsonschema:"{merge:[{members:[{ref,version}],text,tags}],retire:[{ref,version}],promote:[{ref,version,global}]}"`
	Confirmed bool            `json:"confirmed,omitempty" jsonschema:"only after the user said yes"`
	Undo      json.RawMessage `json:"undo,omitempty" jsonschema:"instead of plan: a result's undo, to undo it"`
}

type applyResult struct {
	Applied      bool                 `json:"applied"`
	Undone       bool                 `json:"undone,omitempty"`
	Undo         *consolidate.Applied `json:"undo,omitempty"`
	Confirmation string               `json:"confirmation,omitempty"`
	Next         string               `json:"next,omitempty"`
	UserAction   string               `json:"userAction,omitempty"`
}

func runApply(ctx context.Context, t *target, env tools.Env, a *applyArgs) (*applyResult, error) {
	tg := t.targets(env)
	if (len(a.Plan) == 0) == (len(a.Undo) == 0) {
		return nil, tools.Errorf(tools.CodeInvalidArgument, consolidate.ErrInvalidPlan, nil,
			"give plan (to apply one) or undo (the undo of an applied plan), not both nor neither")
	}
	if len(a.Undo) > 0 {
		var u consolidate.Applied
		if err := json.Unmarshal(a.Undo, &u); err != nil {
			return nil, tools.Errorf(tools.CodeInvalidArgument, err, nil, "undo is not what apply_consolidation returned as undo: %v", err)
		}
		// Undoing restores what the user confirmed removing: no new
		// confirmation, and an entry changed since is not overwritten.
		if err := consolidate.Undo(ctx, tg, &u); err != nil {
			return nil, Error(err)
		}
		return &applyResult{Undone: true}, nil
	}
	var p consolidate.Plan
	dec := json.NewDecoder(bytes.NewReader(a.Plan))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidArgument, err, nil,
			"plan is not {merge:[{members:[{ref,version}],text,tags}],retire:[{ref,version}],promote:[{ref,version,global}]}: %v; nothing was changed", err)
	}
	text, err := consolidate.Describe(ctx, tg, &p)
	if err != nil {
		return nil, Error(err)
	}
	c, err := env.AskUser(ctx, "Apply this consolidation?\n\n"+text, a.Confirmed)
	if err != nil {
		return nil, err
	}
	switch {
	case c.Action != "" && c.Action != "accept":
		return &applyResult{UserAction: c.Action,
			Next: "The user did not accept the plan (" + c.Action + "); nothing was changed. Ask what to change."}, nil
	case !c.Confirmed:
		return &applyResult{Confirmation: text, Next: "Nothing was changed. Show the confirmation text to the user verbatim; " +
			"if they answer yes, call apply_consolidation again with the same plan and confirmed true."}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, tools.Cancelled(err)
	}
	applied, err := consolidate.Apply(ctx, tg, &p)
	if err != nil {
		return nil, Error(err)
	}
	return &applyResult{Applied: true, Undo: applied, UserAction: c.Action}, nil
}

// Error makes a bad or outdated plan INVALID_ARGUMENT: the model fixes
// the plan, or gathers again; other errors are returned as they are.
func Error(err error) error {
	if errors.Is(err, consolidate.ErrInvalidPlan) || errors.Is(err, consolidate.ErrChanged) {
		return tools.Errorf(tools.CodeInvalidArgument, err, nil, "%v", err)
	}
	return err
}
