// Package skilldoc keeps skill graphs as documents of a memory bank: one
// JSON document per skill in the global bank, at skills/<skillId>.json,
// with documentType "skill_graph" and the graph as the envelope's content.
// The skill graph tools (skillgraph/graphtools) and the MCP server's viewer
// read and write them through these functions, so the layout has one
// owner.
//
// The graph's own version (what skillgraph's baseVersion refers to) goes up
// by one on every stored change; the document's version guards the
// read-modify-write against concurrent writers.
package skilldoc

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/skillgraph"
)

// DocumentType is the metadata.documentType of a skill graph document.
const DocumentType = "skill_graph"

// dir is the folder of the global bank holding the skill graphs.
const dir = "skills/"

// ErrInvalidID: a skill id that is not 1-64 letters, digits, - and _,
// starting with a letter or digit.
var ErrInvalidID = errors.New("skilldoc: invalid skill id")

// ValidID reports whether id may name a skill: 1-64 ASCII letters, digits,
// - and _, starting with a letter or digit, so that it is a file name in
// every store. (A regexp for it took a tenth of the server's package
// initialisation to compile, in every process.)
func ValidID(id string) bool {
	if len(id) == 0 || len(id) > 64 {
		return false
	}
	for i := 0; i < len(id); i++ {
		c := id[i]
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case (c == '-' || c == '_') && i > 0:
		default:
			return false
		}
	}
	return true
}

// Path is the path, in the global bank, of the skill's document.
func Path(id string) string { return dir + id + ".json" }

// Load reads a stored graph and its document's version. A skill that is not
// stored is (nil, 0, nil); an invalid id is an error matching ErrInvalidID.
func Load(ctx context.Context, b *memorybank.Bank, id string) (*skillgraph.Graph, int64, error) {
	if !ValidID(id) {
		return nil, 0, fmt.Errorf("%w: %q; use 1-64 letters, digits, - and _, starting with a letter or digit", ErrInvalidID, id)
	}
	doc, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: Path(id)})
	if errors.Is(err, memorybank.ErrNotFound) {
		return nil, 0, nil
	}
	if err != nil {
		return nil, 0, err
	}
	var env struct {
		Content skillgraph.Graph `json:"content"`
	}
	if err := json.Unmarshal(doc.Content, &env); err != nil {
		return nil, 0, fmt.Errorf("stored skill graph %s is not a graph: %w", Path(id), err)
	}
	env.Content.SkillID = id
	return &env.Content, doc.Version, nil
}

// Store writes g as the skill's document, only if the document is still
// at docVersion (0: it must not exist yet), recording actor as who wrote
// it in the document's history ("" for none).
func Store(ctx context.Context, b *memorybank.Bank, g *skillgraph.Graph, docVersion int64, actor string) (*memorybank.WriteResult, error) {
	content, err := json.Marshal(g)
	if err != nil {
		return nil, err
	}
	env, err := json.Marshal(map[string]any{
		"schema":   memorybank.SchemaV2,
		"metadata": map[string]any{"title": "Skill graph " + g.SkillID, "documentType": DocumentType, "tags": []string{"skill-graph"}},
		"content":  json.RawMessage(content),
	})
	if err != nil {
		return nil, err
	}
	req := memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: Path(g.SkillID), Content: env, IfVersion: docVersion, Actor: actor}
	if docVersion == 0 {
		req.Mode = memorybank.ModeCreate
	}
	return b.Write(ctx, req)
}

// IDs lists the ids of the stored skills, sorted.
func IDs(ctx context.Context, b *memorybank.Bank) ([]string, error) {
	paths, err := b.Paths(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal, Prefix: dir})
	if err != nil {
		return nil, err
	}
	var ids []string
	for _, p := range paths {
		name := strings.TrimPrefix(p, dir)
		if id, ok := strings.CutSuffix(name, ".json"); ok && ValidID(id) {
			ids = append(ids, id)
		}
	}
	return ids, nil
}
