package mcpserver

import (
	"context"
	"encoding/json"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/skilldoc"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph"
)

// Skill graphs are JSON documents of the global bank, one per skill (see
// package skilldoc for the layout).

type writeSkillGraphArgs struct {
	SkillID string          `json:"skillId" jsonschema:"1-64 of A-Z a-z 0-9 - _"`
	Graph   json.RawMessage `json:"graph" jsonschema:"{nodes:[{id,type:instruction|decision|tool|example,data:{label,markdown,toolName}}],edges:[{id,source,target}]}"`
}

type skillGraphWriteResult struct {
	SkillID         string             `json:"skillId"`
	Version         int                `json:"version" jsonschema:"The graph's version after this write; pass it as baseVersion."`
	Path            string             `json:"path" jsonschema:"The document of the global memory bank holding the graph."`
	DocumentVersion int64              `json:"documentVersion"`
	Warnings        []skillgraph.Issue `json:"warnings"`
}

type readSkillGraphArgs struct {
	SkillID     string `json:"skillId"`
	Format      string `json:"format,omitempty"`
	Description string `json:"description,omitempty" jsonschema:"skill_md's description"`
}

type skillGraphReadResult struct {
	SkillID string            `json:"skillId"`
	Version int               `json:"version"`
	Format  string            `json:"format"`
	Graph   *skillgraph.Graph `json:"graph,omitempty" jsonschema:"The graph, for format json."`
	Text    string            `json:"text,omitempty" jsonschema:"The rendering, for the other formats."`
}

type applySkillGraphArgs struct {
	SkillID     string          `json:"skillId"`
	Operations  json.RawMessage `json:"operations" jsonschema:"[{operationId,kind:addNode|deleteNode|updateNode|addEdge|deleteEdge,...}]"`
	BaseVersion *int            `json:"baseVersion,omitempty"`
	DryRun      bool            `json:"dryRun,omitempty"`
}

type skillGraphApplyResult struct {
	SkillID      string              `json:"skillId"`
	Version      int                 `json:"version" jsonschema:"The graph's version after the change (unchanged by a dry run)."`
	DryRun       bool                `json:"dryRun"`
	Stored       bool                `json:"stored"`
	Summary      string              `json:"summary"`
	Changes      []skillgraph.Change `json:"changes"`
	AddedNodeIDs map[string]string   `json:"addedNodeIds"`
	Warnings     []skillgraph.Issue  `json:"warnings"`
}

func (s *Server) skillTools() []toolDef {
	return []toolDef{
		define("write_skill_graph", tools.Replacing,
			`Store a whole skill graph (a skill's steps as a DAG), checked first; apply_skill_graph_operations changes part.`,
			nil, s.writeSkillGraph),
		define("read_skill_graph", tools.ReadOnly,
			`Read a skill graph as JSON, Mermaid, DOT or an Agent Skills SKILL.md.`,
			func(sc *jsonschema.Schema) {
				setEnum(sc, "format", "json", "mermaid", "dot", "skill_md")
				setDefault(sc, "format", "json")
			}, s.readSkillGraph),
		define("apply_skill_graph_operations", tools.Overwriting,
			`Change a skill graph by operations, all or nothing (a new skillId starts empty); dryRun stores nothing.`,
			nil, s.applySkillGraph),
	}
}

// loadSkill reads a stored graph; a missing one is (nil, 0, nil).
func (s *Server) loadSkill(ctx context.Context, id string) (*skillgraph.Graph, int64, error) {
	g, v, err := skilldoc.Load(ctx, s.bank, id)
	if errors.Is(err, skilldoc.ErrInvalidID) {
		return nil, 0, toolError(tools.CodeInvalidArgument, memorybank.ErrInvalidRequest, nil,
			"skillId %q is not valid: use 1-64 letters, digits, - and _, starting with a letter or digit", id)
	}
	return g, v, err
}

func (s *Server) writeSkillGraph(ctx context.Context, _ *mcp.CallToolRequest, a writeSkillGraphArgs) (*skillGraphWriteResult, error) {
	old, docVersion, err := s.loadSkill(ctx, a.SkillID)
	if err != nil {
		return nil, err
	}
	var g skillgraph.Graph
	if err := json.Unmarshal(a.Graph, &g); err != nil {
		return nil, toolError(tools.CodeInvalidArgument, err, nil, "graph is not a skill graph: %v", err)
	}
	if g.SkillID != "" && g.SkillID != a.SkillID {
		return nil, toolError(tools.CodeInvalidArgument, memorybank.ErrInvalidRequest, nil,
			"graph.skillId %q differs from skillId %q; omit graph.skillId or make them equal", g.SkillID, a.SkillID)
	}
	g.SkillID = a.SkillID
	if len(g.Nodes) > skillgraph.DefaultMaxNodes || len(g.Edges) > skillgraph.DefaultMaxEdges {
		return nil, toolError(tools.CodeLimitExceeded, skillgraph.ErrLimit, nil,
			"the graph has %d nodes and %d edges; the limits are %d and %d", len(g.Nodes), len(g.Edges), skillgraph.DefaultMaxNodes, skillgraph.DefaultMaxEdges)
	}
	if rep := skillgraph.Validate(&g); !rep.OK() {
		return nil, toolError(tools.CodeValidationFailed, skillgraph.ErrInvariant, map[string]any{"problems": rep.Errors},
			"the graph is not valid: %s (and %d more problems in details). Nothing was stored.", rep.Errors[0].Message, len(rep.Errors)-1)
	}
	g.Version = 1
	if old != nil {
		g.Version = old.Version + 1
	}
	res, err := skilldoc.Store(ctx, s.bank, &g, docVersion)
	if err != nil {
		return nil, err
	}
	return &skillGraphWriteResult{SkillID: g.SkillID, Version: g.Version, Path: res.Path, DocumentVersion: res.Version,
		Warnings: nonNil(skillgraph.Validate(&g).Warnings)}, nil
}

func (s *Server) readSkillGraph(ctx context.Context, _ *mcp.CallToolRequest, a readSkillGraphArgs) (*skillGraphReadResult, error) {
	g, _, err := s.loadSkill(ctx, a.SkillID)
	if err != nil {
		return nil, err
	}
	if g == nil {
		return nil, s.skillNotFound(ctx, a.SkillID)
	}
	out := &skillGraphReadResult{SkillID: g.SkillID, Version: g.Version, Format: a.Format}
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
		if s.bank.Options().Language == memorybank.Japanese {
			lang = skillgraph.LangJA
		}
		out.Text, err = skillgraph.SkillMD(g, &skillgraph.SkillMDOptions{Description: desc, Lang: lang})
		if err != nil {
			return nil, toolError(tools.CodeInvalidArgument, err, nil, "cannot write SKILL.md: %v", err)
		}
	default:
		out.Format = "json"
		out.Graph = g
	}
	return out, nil
}

func (s *Server) skillNotFound(ctx context.Context, id string) error {
	ids, _ := skilldoc.IDs(ctx, s.bank)
	return toolError(tools.CodeNotFound, memorybank.ErrNotFound, map[string]any{"skills": nonNil(ids)},
		"no skill graph %q is stored; stored skills: %v. write_skill_graph stores one.", id, ids)
}

func (s *Server) applySkillGraph(ctx context.Context, _ *mcp.CallToolRequest, a applySkillGraphArgs) (*skillGraphApplyResult, error) {
	g, docVersion, err := s.loadSkill(ctx, a.SkillID)
	if err != nil {
		return nil, err
	}
	if g == nil {
		g = &skillgraph.Graph{SkillID: a.SkillID}
	}
	ops, err := skillgraph.ParseOperations(a.Operations)
	if err != nil {
		return nil, toolError(tools.CodeInvalidArgument, err, nil, "operations: %v. Nothing was stored.", err)
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
		return nil, skillApplyError(err)
	}
	out := &skillGraphApplyResult{SkillID: a.SkillID, Version: g.Version, DryRun: a.DryRun, Summary: res.Summary,
		Changes: nonNil(res.Changes), AddedNodeIDs: res.AddedNodeIDs, Warnings: nonNil(res.Warnings)}
	if out.AddedNodeIDs == nil {
		out.AddedNodeIDs = map[string]string{}
	}
	if a.DryRun || ng.Version == g.Version {
		return out, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, cancelled(err)
	}
	if _, err := skilldoc.Store(ctx, s.bank, ng, docVersion); err != nil {
		return nil, err
	}
	out.Version, out.Stored = ng.Version, true
	return out, nil
}

// skillApplyError maps the editor's typed errors to tool error codes.
func skillApplyError(err error) error {
	var (
		vc *skillgraph.VersionConflictError
		oe *skillgraph.OperationError
	)
	switch {
	case errors.As(err, &vc):
		return toolError(tools.CodeConflict, err, map[string]any{"currentVersion": vc.Current},
			"baseVersion %d is stale: the graph is at version %d. Read it again (read_skill_graph) and remake the operations. Nothing was stored.", vc.Base, vc.Current)
	case errors.As(err, &oe):
		code := tools.CodeInvalidArgument
		if errors.Is(err, skillgraph.ErrLimit) {
			code = tools.CodeLimitExceeded
		}
		return toolError(code, err, map[string]any{"operation": map[string]any{"index": oe.Index, "operationId": oe.OperationID, "kind": oe.Kind, "code": oe.Code}},
			"%v. Nothing was stored.", err)
	case errors.Is(err, skillgraph.ErrLimit):
		return toolError(tools.CodeLimitExceeded, err, nil, "%v. Nothing was stored.", err)
	}
	return toolError(tools.CodeInvalidArgument, err, nil, "%v. Nothing was stored.", err)
}
