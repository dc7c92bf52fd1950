package textsearch

// Who said it.
//
// Where a document's author is known, its role is one of its tags: a chat
// stored a message a document tags each with "user" or "assistant"; a
// note can be told from an imported page the same way. The role weighs
// the document's term counts (Params.Roles) before saturation, as a field
// weight does: a user's remark that holds a query word counts more than an
// assistant's answer holding it as often, but a document of any role is
// still found. It is a weight, not a filter.

// RoleOf returns the first of tags that names a role of p.Roles, compared
// after Fold, or "" when none does.
func (p Params) RoleOf(tags []string) string {
	if len(p.Roles) == 0 {
		return ""
	}
	for _, t := range tags {
		if _, ok := p.Roles[t]; ok {
			return t
		}
		if f := Fold(t); f != t {
			if _, ok := p.Roles[f]; ok {
				return f
			}
		}
	}
	return ""
}

// RoleOf is Params().RoleOf.
func (ix *Index[K]) RoleOf(tags []string) string { return ix.p.RoleOf(tags) }
