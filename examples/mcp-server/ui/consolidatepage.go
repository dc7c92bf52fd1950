package ui

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

// The consolidation page shows the plan a person may confirm without an
// agent: each duplicate cluster of memories and documents merged into its
// newest text with the union of the tags, every change as a line diff,
// and the other candidates (conflicts, stale memories) listed. The form
// carries the plan with the versions it was built on, so a memory or
// document changed after the page was shown refuses it; applied memories
// go to the trash, documents keep their history.

type diffLine struct{ Class, Text string }

func (h *Handler) consolidation(w http.ResponseWriter, r *http.Request) error {
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	c, err := consolidate.Gather(r.Context(), consolidate.Sources{Memories: m, Bank: h.opts.Bank}, nil)
	if err != nil {
		return err
	}
	t := consolidate.Targets{Memories: m, Bank: h.opts.Bank, Actor: actor(r, "ui")}
	p := consolidate.DefaultPlan(c)
	var lines []diffLine
	if !p.Empty() {
		text, err := consolidate.Describe(r.Context(), t, p)
		if err != nil {
			return err
		}
		for l := range strings.SplitSeq(strings.TrimRight(text, "\n"), "\n") {
			class := "step"
			switch {
			case strings.HasPrefix(l, "    - "):
				class = "removed"
			case strings.HasPrefix(l, "    + "):
				class = "added"
			case strings.HasPrefix(l, "    "):
				class = "kept"
			case strings.HasPrefix(l, "  "):
				class = "entry"
			}
			lines = append(lines, diffLine{class, l})
		}
	}
	planJSON, err := json.Marshal(p)
	if err != nil {
		return err
	}
	var others []consolidate.Candidate
	for _, it := range c.Items {
		if it.Kind != consolidate.KindDuplicate {
			others = append(others, it)
		}
	}
	action, csrf := Prefix+"memories/consolidate", ""
	if h.may(r, tokens.ScopeWrite) {
		csrf = h.csrfToken(r, action)
	}
	return h.render(w, r, http.StatusOK, "consolidate", "Consolidate", "memories", struct {
		Lines  []diffLine
		Empty  bool
		Plan   string
		Action string
		CSRF   string // "" when this page may not apply the plan
		Others []consolidate.Candidate
	}{lines, p.Empty(), string(planJSON), action, csrf, others})
}

func (h *Handler) applyConsolidation(w http.ResponseWriter, r *http.Request) error {
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	var p consolidate.Plan
	dec := json.NewDecoder(strings.NewReader(r.PostForm.Get("plan")))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return badRequest("the plan could not be read: %v; reload the consolidation page", err)
	}
	t := consolidate.Targets{Memories: m, Bank: h.opts.Bank, Actor: actor(r, "ui")}
	if _, err := consolidate.Apply(r.Context(), t, &p); err != nil {
		return err
	}
	h.log.Info("ui: consolidation applied", "merges", len(p.Merge))
	http.Redirect(w, r, Prefix+"memories", http.StatusSeeOther)
	return nil
}
