package ui

import (
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/skilldoc"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/skillgraph"
)

// graphTimeout bounds the drawing of one skill graph.
const graphTimeout = 10 * time.Second

// skills lists a page of the stored skill graphs.
func (h *Handler) skills(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	offset, limit, err := paging(q)
	if err != nil {
		return err
	}
	ids, err := skilldoc.IDs(r.Context(), h.opts.Bank)
	if err != nil {
		return err
	}
	shown := ids[min(offset, len(ids)):min(offset+limit, len(ids))]
	type item struct{ ID, URL string }
	items := make([]item, len(shown))
	for i, id := range shown {
		items[i] = item{id, Prefix + "skill?" + url.Values{"id": {id}}.Encode()}
	}
	return h.render(w, r, http.StatusOK, "skills", "Skill graphs", "skills", struct {
		Skills []item
		Pager  pager
	}{items, newPager(Prefix+"skills", q, offset, limit, len(items), len(ids))})
}

func (h *Handler) loadSkill(ctx context.Context, q url.Values) (*skillgraph.Graph, int64, error) {
	id := q.Get("id")
	g, v, err := skilldoc.Load(ctx, h.opts.Bank, id)
	if err != nil {
		return nil, 0, badRequest("%v", err)
	}
	if g == nil {
		return nil, 0, &httpError{status: http.StatusNotFound, err: memorybank.ErrNotFound,
			msg: fmt.Sprintf("no skill graph %q is stored; the stored ones are listed at %sskills", id, Prefix)}
	}
	return g, v, nil
}

// skill shows one skill graph drawn, beside its SKILL.md.
func (h *Handler) skill(w http.ResponseWriter, r *http.Request) error {
	g, docVersion, err := h.loadSkill(r.Context(), r.URL.Query())
	if err != nil {
		return err
	}
	lang := skillgraph.LangEN
	if h.opts.Bank.Options().Language == memorybank.Japanese {
		lang = skillgraph.LangJA
	}
	md, err := skillgraph.SkillMD(g, &skillgraph.SkillMDOptions{Description: "The " + g.SkillID + " skill.", Lang: lang})
	var skillMD template.HTML
	if err != nil {
		skillMD = template.HTML("<p>" + template.HTMLEscapeString("No SKILL.md: "+err.Error()) + "</p>")
	} else {
		skillMD = render.Markdown([]byte(md))
	}
	doc := ref{Scope: memorybank.ScopeGlobal, Path: skilldoc.Path(g.SkillID)}
	return h.render(w, r, http.StatusOK, "skill", "Skill "+g.SkillID, "skills", struct {
		Graph    *skillgraph.Graph
		SVG      string
		Doc      ref
		SkillMD  template.HTML
		Problems int
	}{g, Prefix + "skill/graph.svg?" + url.Values{"id": {g.SkillID}, "v": {strconv.FormatInt(docVersion, 10)}}.Encode(), doc, skillMD,
		len(skillgraph.Validate(g).Errors)})
}

// graphSVG draws a skill graph from the DOT skillgraph writes. The picture
// gets a policy of its own: it is opened as a document when someone opens
// the image alone.
func (h *Handler) graphSVG(w http.ResponseWriter, r *http.Request) error {
	g, _, err := h.loadSkill(r.Context(), r.URL.Query())
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(r.Context(), graphTimeout)
	defer cancel()
	svg, err := render.GraphSVG(ctx, []byte(skillgraph.DOT(g)))
	if err != nil {
		return fmt.Errorf("drawing skill graph %s: %w", g.SkillID, err)
	}
	w.Header().Set("Content-Security-Policy", svgCSP)
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(svg)
	return nil
}
