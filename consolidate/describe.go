package consolidate

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Describe renders p for a person to confirm: each step with the entries
// it changes as a line diff ("-" removed, "+" added, "  " kept), read now
// from t. An entry changed or gone since the plan was built is a
// *ChangedError, as Apply would report it.
func Describe(ctx context.Context, t Targets, p *Plan) (string, error) {
	if err := p.validate(t); err != nil {
		return "", err
	}
	var b strings.Builder
	for i, mg := range p.Merge {
		fmt.Fprintf(&b, "merge %d: %d entries into one\n", i+1, len(mg.Members))
		for _, m := range mg.Members {
			text, err := member(ctx, t, m)
			if err != nil {
				return "", err
			}
			fmt.Fprintf(&b, "  %s\n", m.Ref)
			writeDiff(&b, text, mg.Text)
		}
	}
	for i, m := range p.Retire {
		text, err := member(ctx, t, m)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "retire %d: %s\n", i+1, m.Ref)
		writeDiff(&b, text, "")
	}
	for i, pr := range p.Promote {
		m := pr.Member
		text, err := member(ctx, t, m)
		if err != nil {
			return "", err
		}
		g := Ref{Scope: memorybank.ScopeGlobal, Path: m.Ref.Path}
		old, err := current(ctx, t, g)
		if err != nil {
			return "", err
		}
		fmt.Fprintf(&b, "promote %d: %s to the global bank\n", i+1, m.Ref)
		writeDiff(&b, old, text)
	}
	return b.String(), nil
}

// current is an entry's text now; "" when it does not exist.
func current(ctx context.Context, t Targets, r Ref) (string, error) {
	text, _, err := currentAt(ctx, t, r)
	return text, err
}

// currentAt is an entry's text and version now; "", "" when it does not
// exist.
func currentAt(ctx context.Context, t Targets, r Ref) (text, version string, err error) {
	if r.IsMemory() {
		m, err := t.Memories.Get(ctx, r.Memory)
		if errors.Is(err, memories.ErrNotFound) {
			return "", "", nil
		}
		if err != nil {
			return "", "", err
		}
		return m.Content, memories.Fingerprint(m), nil
	}
	d, err := t.Bank.Read(ctx, memorybank.ReadRequest{Scope: r.Scope, Branch: r.Branch, Path: r.Path})
	if errors.Is(err, memorybank.ErrNotFound) {
		return "", "", nil
	}
	if err != nil {
		return "", "", err
	}
	return docText(d), strconv.FormatInt(d.Version, 10), nil
}

// member is a plan member's text now, or a *ChangedError when it is no
// longer at the plan's version.
func member(ctx context.Context, t Targets, m Member) (string, error) {
	text, v, err := currentAt(ctx, t, m.Ref)
	if err != nil {
		return "", err
	}
	if v != m.Version {
		return "", &ChangedError{Ref: m.Ref, Want: m.Version, Got: v}
	}
	return text, nil
}

// maxDiffLines bounds the lines a diff compares (LCS is quadratic); past
// it, the old text is shown removed and the new added.
const maxDiffLines = 2000

// writeDiff writes the line diff of a to b, indented by four spaces.
func writeDiff(b *strings.Builder, a, c string) {
	for _, l := range Diff(a, c) {
		b.WriteString("    ")
		b.WriteString(l)
		b.WriteString("\n")
	}
}

// Diff returns the lines of a line diff from a to b: "- " for a line only
// in a, "+ " for one only in b, "  " for one in both (a longest common
// subsequence).
func Diff(a, b string) []string {
	split := func(s string) []string {
		if s == "" {
			return nil
		}
		return strings.Split(strings.TrimRight(s, "\n"), "\n")
	}
	la, lb := split(a), split(b)
	var out []string
	if len(la) > maxDiffLines || len(lb) > maxDiffLines {
		for _, l := range la {
			out = append(out, "- "+l)
		}
		for _, l := range lb {
			out = append(out, "+ "+l)
		}
		return out
	}
	// lcs[i][j]: the longest common subsequence of la[i:] and lb[j:].
	lcs := make([][]int, len(la)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(lb)+1)
	}
	for i := len(la) - 1; i >= 0; i-- {
		for j := len(lb) - 1; j >= 0; j-- {
			if la[i] == lb[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	i, j := 0, 0
	for i < len(la) || j < len(lb) {
		switch {
		case i < len(la) && j < len(lb) && la[i] == lb[j]:
			out = append(out, "  "+la[i])
			i++
			j++
		case j < len(lb) && (i == len(la) || lcs[i][j+1] >= lcs[i+1][j]):
			out = append(out, "+ "+lb[j])
			j++
		default:
			out = append(out, "- "+la[i])
			i++
		}
	}
	return out
}
