package consolidate

import "slices"

// DefaultPlan is the plan a person tidying without a model applies: every
// duplicate cluster merged into its newest entry's text, with the union of
// the members' tags (newest first). Conflicts, stale entries and
// promotions need a judgement, so they are left out: a host lists them.
func DefaultPlan(c *Candidates) *Plan {
	p := &Plan{}
	for _, cand := range c.Items {
		if cand.Kind != KindDuplicate || len(cand.Entries) < 2 {
			continue
		}
		mg := Merge{Text: cand.Entries[0].Text, Tags: []string{}}
		for _, e := range cand.Entries {
			mg.Members = append(mg.Members, Member{Ref: e.Ref, Version: e.Version})
			for _, tg := range e.Tags {
				if !slices.Contains(mg.Tags, tg) {
					mg.Tags = append(mg.Tags, tg)
				}
			}
		}
		p.Merge = append(p.Merge, mg)
	}
	return p
}
