package ui

import (
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
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
	var front string
	if err != nil {
		skillMD = template.HTML("<p>" + template.HTMLEscapeString("No SKILL.md: "+err.Error()) + "</p>")
	} else {
		front, md = splitFrontMatter(md)
		skillMD = render.Markdown([]byte(md))
	}
	doc := ref{Scope: memorybank.ScopeGlobal, Path: skilldoc.Path(g.SkillID)}
	// The picture is drawn now, not only when the browser asks for it, so
	// that a graph that cannot be drawn is shown as its DOT source with the
	// reason instead of a broken image; the picture's own request then
	// finds it in the cache.
	svgURL, graphErr, dot := "", "", ""
	if _, err := h.drawGraph(r.Context(), g, docVersion); err != nil {
		if errors.Is(err, context.Canceled) {
			return err
		}
		h.log.Warn("ui: skill graph not drawn", "skill", g.SkillID, "err", err)
		dot = skillgraph.DOT(g)
		graphErr = "The graph could not be drawn: " + err.Error()
		if errors.Is(err, render.ErrNoRenderer) {
			graphErr = "The graph is not drawn: the server has no program to draw it with. To see it, " + render.InstallHint + ", then reload. Its DOT source:"
		}
	} else {
		svgURL = Prefix + "skill/graph.svg?" + url.Values{"id": {g.SkillID}, "v": {strconv.FormatInt(docVersion, 10)}}.Encode()
	}
	return h.render(w, r, http.StatusOK, "skill", "Skill "+g.SkillID, "skills", struct {
		Graph       *skillgraph.Graph
		SVG         string
		GraphError  string
		DOT         string
		Doc         ref
		FrontMatter string
		SkillMD     template.HTML
		Problems    int
	}{g, svgURL, graphErr, dot, doc, front, skillMD, len(skillgraph.Validate(g).Errors)})
}

// drawGraph returns the SVG of version docVersion of g, from the cache or
// drawn by the renderer program within graphTimeout.
func (h *Handler) drawGraph(ctx context.Context, g *skillgraph.Graph, docVersion int64) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, graphTimeout)
	defer cancel()
	svg, err := h.graphs.svg(ctx, graphKey{g.SkillID, docVersion}, []byte(skillgraph.DOT(g)))
	if err != nil {
		return nil, fmt.Errorf("drawing skill graph %s: %w", g.SkillID, err)
	}
	return svg, nil
}

// splitFrontMatter cuts the YAML front matter off a SKILL.md, which
// Markdown would show as a rule and a heading.
func splitFrontMatter(md string) (front, body string) {
	rest, ok := strings.CutPrefix(md, "---\n")
	if !ok {
		return "", md
	}
	front, body, ok = strings.Cut(rest, "\n---\n")
	if !ok {
		return "", md
	}
	return front, body
}

// graphSVG draws a skill graph from the DOT skillgraph writes. The picture
// gets a policy of its own: it is opened as a document when someone opens
// the image alone.
func (h *Handler) graphSVG(w http.ResponseWriter, r *http.Request) error {
	g, docVersion, err := h.loadSkill(r.Context(), r.URL.Query())
	if err != nil {
		return err
	}
	svg, err := h.drawGraph(r.Context(), g, docVersion)
	if errors.Is(err, render.ErrNoRenderer) {
		return &httpError{status: http.StatusServiceUnavailable, msg: err.Error(), err: err}
	}
	if err != nil {
		return err
	}
	w.Header().Set("Content-Security-Policy", svgCSP)
	w.Header().Set("Content-Type", "image/svg+xml")
	_, _ = w.Write(svg)
	return nil
}
