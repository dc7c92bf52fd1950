package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The consolidation tools: the model reads the candidates with their
// texts (consolidation_candidates), writes a plan, and submits it
// (apply_consolidation); the user confirms it, always, through the same
// confirmation as apply_memory_ops (the client's dialog, or two calls).
// --confirm-plans never does not extend to it: a consolidation deletes
// and merges. What was applied comes back as undo; apply_consolidation
// with it instead of a plan undoes the plan.

// maxCandidates bounds the candidates one call returns.
const maxCandidates = 200

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

type applyConsolidationArgs struct {
	Plan      json.RawMessage `json:"plan,omitempty" jsonschema:"{merge:[{members:[{ref,version}],text,tags}],retire:[{ref,version}],promote:[{ref,version,global}]}"`
	Confirmed bool            `json:"confirmed,omitempty" jsonschema:"only after the user said yes"`
	Undo      json.RawMessage `json:"undo,omitempty" jsonschema:"instead of plan: a result's undo, to undo it"`
}

type applyConsolidationResult struct {
	Applied      bool                 `json:"applied"`
	Undone       bool                 `json:"undone,omitempty"`
	Undo         *consolidate.Applied `json:"undo,omitempty"`
	Confirmation string               `json:"confirmation,omitempty"`
	Next         string               `json:"next,omitempty"`
	UserAction   string               `json:"userAction,omitempty"`
}

func (s *Server) consolidateTools() []toolDef {
	cands := define("consolidation_candidates", tools.ReadOnly,
		`Duplicate, conflicting, stale and promotable memories and documents, with texts and versions, for apply_consolidation.`,
		func(sc *jsonschema.Schema) {
			setDefault(sc, "limit", 50)
			if p := sc.Properties["limit"]; p != nil {
				p.Minimum, p.Maximum = ptr(1.0), ptr(float64(maxCandidates))
			}
		}, s.candidates)
	apply := define("apply_consolidation", tools.Overwriting,
		`Apply a consolidation plan once the user confirms it (dialog, or two calls as apply_memory_ops); or undo one.`,
		nil, s.applyConsolidation)
	return []toolDef{cands, apply}
}

// consolidationTargets are the server's memories and bank; a memories
// manager other than *memories.Manager has no near-duplicates or trash,
// so only the bank is consolidated then.
func (s *Server) consolidationTargets() consolidate.Targets {
	t := consolidate.Targets{Bank: s.bank, Actor: "mcp:consolidate"}
	if m, ok := s.mem.(*memories.Manager); ok {
		t.Memories = m
	}
	return t
}

func (s *Server) candidates(ctx context.Context, _ *mcp.CallToolRequest, a candidatesArgs) (*candidatesResult, error) {
	t := s.consolidationTargets()
	opts := &consolidate.Options{MergedBranches: a.MergedBranches}
	if a.StaleDays < 0 {
		opts.StaleAfter = -1
	} else if a.StaleDays > 0 {
		opts.StaleAfter = time.Duration(min(a.StaleDays, 100000)) * 24 * time.Hour
	}
	c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: t.Memories, Bank: t.Bank}, opts)
	if err != nil {
		return nil, err
	}
	limit := a.Limit
	if limit <= 0 {
		limit = 50
	}
	res := &candidatesResult{Candidates: c.Items[:min(limit, len(c.Items))], Total: len(c.Items),
		Memories: c.Memories, Documents: c.Documents}
	res.Next = "Write a plan (merge duplicates into one text, retire what is stale or wrong, promote what a merged branch learned), " +
		"with each entry's ref and version as given, and call apply_consolidation; the user confirms it."
	if res.Total > len(res.Candidates) {
		res.Next += fmt.Sprintf(" %d more candidates follow; apply a plan for these first, then call again.", res.Total-len(res.Candidates))
	}
	return res, nil
}

func (s *Server) applyConsolidation(ctx context.Context, req *mcp.CallToolRequest, a applyConsolidationArgs) (*applyConsolidationResult, error) {
	t := s.consolidationTargets()
	if (len(a.Plan) == 0) == (len(a.Undo) == 0) {
		return nil, toolError(tools.CodeInvalidArgument, consolidate.ErrInvalidPlan, nil,
			"give plan (to apply one) or undo (the undo of an applied plan), not both nor neither")
	}
	if len(a.Undo) > 0 {
		var u consolidate.Applied
		if err := json.Unmarshal(planArg(a.Undo), &u); err != nil {
			return nil, toolError(tools.CodeInvalidArgument, err, nil, "undo is not what apply_consolidation returned as undo: %v", err)
		}
		// Undoing restores what the user confirmed removing: no new
		// confirmation, and an entry changed since is not overwritten.
		if err := consolidate.Undo(ctx, t, &u); err != nil {
			return nil, consolidationError(err)
		}
		return &applyConsolidationResult{Undone: true}, nil
	}
	var p consolidate.Plan
	dec := json.NewDecoder(bytes.NewReader(planArg(a.Plan)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return nil, toolError(tools.CodeInvalidArgument, err, nil,
			"plan is not {merge:[{members:[{ref,version}],text,tags}],retire:[{ref,version}],promote:[{ref,version,global}]}: %v; nothing was changed", err)
	}
	text, err := consolidate.Describe(ctx, t, &p)
	if err != nil {
		return nil, consolidationError(err)
	}
	c, err := s.askUser(ctx, req, "Apply this consolidation?\n\n"+text, a.Confirmed, "apply_consolidation")
	if err != nil {
		return nil, err
	}
	switch {
	case c.action != "" && c.action != "accept":
		return &applyConsolidationResult{UserAction: c.action,
			Next: "The user did not accept the plan (" + c.action + "); nothing was changed. Ask what to change."}, nil
	case !c.confirmed:
		return &applyConsolidationResult{Confirmation: text, Next: "Nothing was changed. Show the confirmation text to the user verbatim; " +
			"if they answer yes, call apply_consolidation again with the same plan and confirmed true."}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	applied, err := consolidate.Apply(ctx, t, &p)
	if err != nil {
		return nil, consolidationError(err)
	}
	return &applyConsolidationResult{Applied: true, Undo: applied, UserAction: c.action}, nil
}

// consolidationError makes a bad or outdated plan INVALID_ARGUMENT: the
// model fixes the plan, or gathers again.
func consolidationError(err error) error {
	if errors.Is(err, consolidate.ErrInvalidPlan) || errors.Is(err, consolidate.ErrChanged) {
		return toolError(tools.CodeInvalidArgument, err, nil, "%v", err)
	}
	return err
}
