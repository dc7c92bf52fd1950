// Package graphtools gives the skill graph agent tools to a host, as
// package tools gives a memory bank's: write_skill_graph stores a whole
// graph, read_skill_graph reads one as JSON or a rendering,
// apply_skill_graph_operations changes one by operations, all or nothing.
// Each is declared with tools.Declare (schemas from the Go types,
// arguments decoded once and checked, failures as *tools.Error), so a host
// registers them with the bank's tools in one loop.
//
// The graphs are documents of the bank's global bank, kept by package
// skilldoc; every stored change records the call's tools.Env actor, so
// the document's history says who changed the skill. The graph's own
// version (baseVersion) goes up by one per stored change; the document's
// version guards the read-modify-write against concurrent writers.
//
// Rules where the tool protocol leaves a choice: a graph or an operation
// list sent as a string holding its JSON is read as that JSON, and
// unknown members are refused in both, as the skillgraph parser does for
// operations; results are camelCase, empty lists as [] and absent members
// left out, never null.
package graphtools

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

// Tool names.
const (
	WriteSkillGraph           = "write_skill_graph"
	ReadSkillGraph            = "read_skill_graph"
	ApplySkillGraphOperations = "apply_skill_graph_operations"
)

var decls = []tools.Decl[*memorybank.Bank]{
	tools.Declare(WriteSkillGraph,
		`Store a whole skill graph (a skill's steps as a DAG), checked first; apply_skill_graph_operations changes part.`,
		tools.Replacing, func(s *jsonschema.Schema) { tools.Property(s, "graph").Type = "object" }, nil, runWrite),
	tools.Declare(ReadSkillGraph,
		`Read a skill graph as JSON, Mermaid, DOT or an Agent Skills SKILL.md.`,
		tools.ReadOnly, func(s *jsonschema.Schema) {
			tools.SetEnum(s, "format", "json", "mermaid", "dot", "skill_md")
			tools.SetDefault(s, "format", "json")
		}, nil, runRead),
	tools.Declare(ApplySkillGraphOperations,
		`Change a skill graph by operations, all or nothing (a new skillId starts empty); dryRun stores nothing.`,
		tools.Overwriting, adjustApply, nil, runApply),
}

// Defs returns the skill graph tools over the graphs of b, in a fixed
// order: write_skill_graph, read_skill_graph,
// apply_skill_graph_operations.
func Defs(b *memorybank.Bank) []tools.Def { return tools.Bind(b, decls...) }

// For returns the skill graph tools of b with their schemas, in the order
// of Defs.
func For(b *memorybank.Bank, opts ...tools.Option) []tools.Tool { return tools.Tools(Defs(b), opts...) }

type writeArgs struct {
	SkillID string          `json:"skillId" jsonschema:"1-64 of A-Z a-z 0-9 - _"`
	Graph   json.RawMessage `json:"graph" jsonschema:"{nodes:[{id,type:instruction|decision|tool|example,data:{label,markdown,toolName}}],edges:[{id,source,target}]}"`
}

type writeResult struct {
	SkillID         string             `json:"skillId"`
	Version         int                `json:"version" jsonschema:"The graph's version after this write; pass it as baseVersion."`
	Path            string             `json:"path" jsonschema:"The document of the global memory bank holding the graph."`
	DocumentVersion int64              `json:"documentVersion"`
	Warnings        []skillgraph.Issue `json:"warnings"`
}

// load reads a stored graph; a missing one is (nil, 0, nil).
func load(ctx context.Context, b *memorybank.Bank, id string) (*skillgraph.Graph, int64, error) {
	g, v, err := skilldoc.Load(ctx, b, id)
	if errors.Is(err, skilldoc.ErrInvalidID) {
		return nil, 0, tools.Errorf(tools.CodeInvalidArgument, memorybank.ErrInvalidRequest, nil,
			"skillId %q is not valid: use 1-64 letters, digits, - and _, starting with a letter or digit", id)
	}
	return g, v, err
}

func runWrite(ctx context.Context, b *memorybank.Bank, env tools.Env, a *writeArgs) (*writeResult, error) {
	old, docVersion, err := load(ctx, b, a.SkillID)
	if err != nil {
		return nil, err
	}
	var g skillgraph.Graph
	// Unknown members are refused, as in the operations: a misspelt
	// "edge" would otherwise store a graph without its edges.
	dec := json.NewDecoder(bytes.NewReader(a.Graph))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&g); err != nil {
		return nil, tools.Errorf(tools.CodeInvalidArgument, err, nil,
			"graph is not a skill graph: %v. A graph is {nodes:[{id,type,data:{label,markdown,toolName},position}],edges:[{id,source,target,metadata}]}; nothing was stored.", err)
	}
	if g.SkillID != "" && g.SkillID != a.SkillID {
		return nil, tools.Errorf(tools.CodeInvalidArgument, memorybank.ErrInvalidRequest, nil,
			"graph.skillId %q differs from skillId %q; omit graph.skillId or make them equal", g.SkillID, a.SkillID)
	}
	g.SkillID = a.SkillID
	if len(g.Nodes) > skillgraph.DefaultMaxNodes || len(g.Edges) > skillgraph.DefaultMaxEdges {
		return nil, tools.Errorf(tools.CodeLimitExceeded, skillgraph.ErrLimit, nil,
			"the graph has %d nodes and %d edges; the limits are %d and %d", len(g.Nodes), len(g.Edges), skillgraph.DefaultMaxNodes, skillgraph.DefaultMaxEdges)
	}
	rep := skillgraph.Validate(&g)
	if !rep.OK() {
		return nil, tools.Errorf(tools.CodeValidationFailed, skillgraph.ErrInvariant, map[string]any{"problems": rep.Errors},
			"the graph is not valid: %s (and %d more problems in details). Nothing was stored.", rep.Errors[0].Message, len(rep.Errors)-1)
	}
	g.Version = 1
	if old != nil {
		g.Version = old.Version + 1
	}
	res, err := skilldoc.Store(ctx, b, &g, docVersion, env.Actor)
	if err != nil {
		return nil, err
	}
	return &writeResult{SkillID: g.SkillID, Version: g.Version, Path: res.Path, DocumentVersion: res.Version,
		Warnings: tools.NonNil(rep.Warnings)}, nil
}

type readArgs struct {
	SkillID     string `json:"skillId"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty" jsonschema:"skill_md's description"`
}

type readResult struct {
	SkillID string            `json:"skillId"`
	Version int               `json:"version"`
	Format  string            `json:"format"`
	Graph   *skillgraph.Graph `json:"graph,omitempty" jsonschema:"The graph, for format json."`
	Text    string            `json:"text,omitempty" jsonschema:"The rendering, for the other formats."`
}

func runRead(ctx context.Context, b *memorybank.Bank, _ tools.Env, a *readArgs) (*readResult, error) {
	g, _, err := load(ctx, b, a.SkillID)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, notFound(ctx, b, a.SkillID)
	}
	out := &readResult{SkillID: g.SkillID, Version: g.Version, Format: a.Format}
	switch a.Format {
	case "mermaid":
		out.Text = skillgraph.Mermaid(g)
	case "dot":
		out.Text = skillgraph.DOT(g)
	case "skill_md":
		desc := a.Description
		if desc == "" {
			desc = "The " + g.SkillID + " skill."
		}
		lang := skillgraph.LangEN
		if b.Options().Language == memorybank.Japanese {
			lang = skillgraph.LangJA
		}
		out.Text, err = skillgraph.SkillMD(g, &skillgraph.SkillMDOptions{Description: desc, Lang: lang})
		if err != nil {
			return nil, tools.Errorf(tools.CodeInvalidArgument, err, nil, "cannot write SKILL.md: %v", err)
		}
	default:
		out.Format = "json"
		out.Graph = g
	}
	return out, nil
}

func notFound(ctx context.Context, b *memorybank.Bank, id string) error {
	ids, _ := skilldoc.IDs(ctx, b)
	return tools.Errorf(tools.CodeNotFound, memorybank.ErrNotFound, map[string]any{"skills": tools.NonNil(ids)},
		"no skill graph %q is stored; stored skills: %v. write_skill_graph stores one.", id, ids)
}

type applyArgs struct {
	SkillID     string          `json:"skillId"`
	Operations  json.RawMessage `json:"operations" jsonschema:"[{operationId,kind:addNode|deleteNode|updateNode|addEdge|deleteEdge,...}]"`
	BaseVersion *int            `json:"baseVersion,omitempty"`
	DryRun      bool            `json:"dryRun,omitempty"`
}

func adjustApply(s *jsonschema.Schema) {
	tools.Property(s, "operations").Type = "array"
	base := tools.Property(s, "baseVersion")
	base.Types, base.Type = nil, "integer" // absent, not null, when there is none
}

type applyResult struct {
	SkillID      string              `json:"skillId"`
	Version      int                 `json:"version" jsonschema:"The graph's version after the change (unchanged by a dry run)."`
	DryRun       bool                `json:"dryRun"`
	Stored       bool                `json:"stored"`
	Summary      string              `json:"summary"`
	Changes      []skillgraph.Change `json:"changes"`
	AddedNodeIDs map[string]string   `json:"addedNodeIds"`
	Warnings     []skillgraph.Issue  `json:"warnings"`
}

func runApply(ctx context.Context, b *memorybank.Bank, env tools.Env, a *applyArgs) (*applyResult, error) {
	g, docVersion, err := load(ctx, b, a.SkillID)
	if err != nil {
		return nil, err
	}
	if g == nil {
		g = &skillgraph.Graph{SkillID: a.SkillID}
	}
	ops, err := skillgraph.ParseOperations(a.Operations)
	if err != nil {
		return nil, tools.Errorf(tools.CodeInvalidArgument, err, nil, "operations: %v. Nothing was stored.", err)
	}
	ed := skillgraph.NewEditor(nil)
	apply := ed.Apply
	if a.BaseVersion != nil {
		apply = func(g *skillgraph.Graph, ops []skillgraph.Operation) (*skillgraph.Graph, *skillgraph.Result, error) {
			return ed.ApplyAt(g, *a.BaseVersion, ops)
		}
	}
	ng, res, err := apply(g, ops)
	if err != nil {
		return nil, applyError(err)
	}
	out := &applyResult{SkillID: a.SkillID, Version: g.Version, DryRun: a.DryRun, Summary: res.Summary,
		Changes: tools.NonNil(res.Changes), AddedNodeIDs: res.AddedNodeIDs, Warnings: tools.NonNil(res.Warnings)}
	if out.AddedNodeIDs == nil {
		out.AddedNodeIDs = map[string]string{}
	}
	if a.DryRun || ng.Version == g.Version {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, tools.Cancelled(err)
	}
	if _, err := skilldoc.Store(ctx, b, ng, docVersion, env.Actor); err != nil {
		return nil, err
	}
	out.Version, out.Stored = ng.Version, true
	return out, nil
}

// applyError maps the editor's typed errors to the tools' codes.
func applyError(err error) error {
	var (
		vc *skillgraph.VersionConflictError
		oe *skillgraph.OperationError
	)
	switch {
	case errors.As(err, &vc):
		return tools.Errorf(tools.CodeConflict, err, map[string]any{"currentVersion": vc.Current},
			"baseVersion %d is stale: the graph is at version %d. Read it again (read_skill_graph) and remake the operations. Nothing was stored.", vc.Base, vc.Current)
	case errors.As(err, &oe):
		code := tools.CodeInvalidArgument
		if errors.Is(err, skillgraph.ErrLimit) {
			code = tools.CodeLimitExceeded
		}
		return tools.Errorf(code, err, map[string]any{"operation": map[string]any{"index": oe.Index, "operationId": oe.OperationID, "kind": oe.Kind, "code": oe.Code}},
			"%v. Nothing was stored.", err)
	case errors.Is(err, skillgraph.ErrLimit):
		return tools.Errorf(tools.CodeLimitExceeded, err, nil, "%v. Nothing was stored.", err)
	}
	return tools.Errorf(tools.CodeInvalidArgument, err, nil, "%v. Nothing was stored.", err)
}
