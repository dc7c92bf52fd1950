package consolidate

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// Member is an entry a plan step acts on, at the version it was read.
type Member struct {
	Ref     Ref    `json:"ref"`
	Version string `json:"version"`
}

// Merge replaces Members with one entry holding Text. Members are all
// memories, or all documents of one bank.
type Merge struct {
	Members []Member `json:"members"`
	Text    string   `json:"text"`
	Tags    []string `json:"tags,omitempty"` // nil: the union of the members' tags
}

// Plan is a consolidation a person confirms: merges, retirements (the
// entries are removed, to the trash or the history) and promotions (a
// merged branch's document written to the global bank at its path).
type Plan struct {
	Merge   []Merge     `json:"merge,omitempty"`
	Retire  []Member    `json:"retire,omitempty"`
	Promote []Promotion `json:"promote,omitempty"`
}

// Promotion writes a branch bank's document (Member) to the global bank at
// its path. Global is the version of the global bank's document there
// when the plan was built ("" when there was none): a promotion never
// overwrites a global document the plan did not see.
type Promotion struct {
	Member
	Global string `json:"global,omitempty"`
}

// Empty reports whether p changes nothing.
func (p *Plan) Empty() bool { return len(p.Merge)+len(p.Retire)+len(p.Promote) == 0 }

// MaxSteps bounds the entries one plan names.
const MaxSteps = 1000

// Errors of Apply and Undo, checked with errors.Is.
var (
	// ErrInvalidPlan: the plan is malformed (see the *PlanError).
	ErrInvalidPlan = errors.New("consolidate: invalid plan")
	// ErrChanged: an entry changed since the plan was built.
	ErrChanged = errors.New("consolidate: entry changed since the plan was built")
)

// PlanError says what is wrong with a plan, and where.
type PlanError struct {
	Step   string // "merge[2].members[0]", "retire[1]", …
	Reason string
}

func (e *PlanError) Error() string {
	return fmt.Sprintf("%s: %s: %s; nothing was changed", ErrInvalidPlan, e.Step, e.Reason)
}

func (e *PlanError) Unwrap() error { return ErrInvalidPlan }

// ChangedError names the entry whose version is no longer the plan's.
type ChangedError struct {
	Ref  Ref
	Want string // the plan's version
	Got  string // the version now; "" when the entry is gone
}

func (e *ChangedError) Error() string {
	now := "is gone"
	if e.Got != "" {
		now = "is at version " + e.Got
	}
	return fmt.Sprintf("%s: %s was read at version %s and %s; nothing was changed: gather the candidates again and rebuild the plan",
		ErrChanged, e.Ref, e.Want, now)
}

func (e *ChangedError) Unwrap() error { return ErrChanged }

// Targets are what Apply and Undo change. Actor is recorded in the
// documents' history.
type Targets struct {
	Memories *memories.Manager
	Bank     *memorybank.Bank
	Actor    string
}

// DocChange is one document change Apply made, and how to undo it.
type DocChange struct {
	Ref Ref `json:"ref"`
	// Before is the version before the change (0: the document did not
	// exist); After the version the change left (0: deleted).
	Before int64 `json:"before"`
	After  int64 `json:"after"`
}

// Applied is what Apply did, for Undo.
type Applied struct {
	MemoriesRemoved []string    `json:"memoriesRemoved,omitempty"`
	MemoriesAdded   []Member    `json:"memoriesAdded,omitempty"`
	Documents       []DocChange `json:"documents,omitempty"`
}

func (p *Plan) validate(t Targets) error {
	seen := map[Ref]string{}
	n := 0
	check := func(step string, m Member) error {
		n++
		if n > MaxSteps {
			return &PlanError{Step: step, Reason: fmt.Sprintf("a plan names at most %d entries", MaxSteps)}
		}
		if m.Version == "" {
			return &PlanError{Step: step, Reason: "version is required: the version the entry was read at, as Gather reported it"}
		}
		if m.Ref.IsMemory() {
			if t.Memories == nil {
				return &PlanError{Step: step, Reason: "names a memory, but no memories are configured"}
			}
		} else {
			if t.Bank == nil {
				return &PlanError{Step: step, Reason: "names a document, but no bank is configured"}
			}
			if m.Ref.Path == "" {
				return &PlanError{Step: step, Reason: "a ref names a memory id or a document path"}
			}
			if _, err := strconv.ParseInt(m.Version, 10, 64); err != nil {
				return &PlanError{Step: step, Reason: fmt.Sprintf("a document's version is a number, not %q", m.Version)}
			}
		}
		if prev, dup := seen[m.Ref]; dup {
			return &PlanError{Step: step, Reason: fmt.Sprintf("%s is named twice (also at %s)", m.Ref, prev)}
		}
		seen[m.Ref] = step
		return nil
	}
	for i, mg := range p.Merge {
		if len(mg.Members) < 2 {
			return &PlanError{Step: fmt.Sprintf("merge[%d]", i), Reason: "a merge needs at least two members"}
		}
		if strings.TrimSpace(mg.Text) == "" {
			return &PlanError{Step: fmt.Sprintf("merge[%d]", i), Reason: "text is empty: write the merged text"}
		}
		for k, m := range mg.Members {
			step := fmt.Sprintf("merge[%d].members[%d]", i, k)
			if err := check(step, m); err != nil {
				return err
			}
			first := mg.Members[0].Ref
			if m.Ref.IsMemory() != first.IsMemory() || !m.Ref.IsMemory() && (m.Ref.Scope != first.Scope || m.Ref.Branch != first.Branch) {
				return &PlanError{Step: step, Reason: "a merge's members are all memories or all documents of one bank"}
			}
		}
	}
	for i, m := range p.Retire {
		if err := check(fmt.Sprintf("retire[%d]", i), m); err != nil {
			return err
		}
	}
	for i, pr := range p.Promote {
		step, m := fmt.Sprintf("promote[%d]", i), pr.Member
		if err := check(step, m); err != nil {
			return err
		}
		if prev, ok := seen[Ref{Scope: memorybank.ScopeGlobal, Path: m.Ref.Path}]; ok {
			return &PlanError{Step: step, Reason: fmt.Sprintf(
				"the global bank's %s is also changed by %s; promote it in a plan of its own", m.Ref.Path, prev)}
		}
		if _, err := strconv.ParseInt(cmpOr(pr.Global, "0"), 10, 64); err != nil {
			return &PlanError{Step: step, Reason: fmt.Sprintf("global is the global document's version, a number or \"\", not %q", pr.Global)}
		}
		if m.Ref.IsMemory() || m.Ref.Scope != memorybank.ScopeBranch {
			return &PlanError{Step: step, Reason: "only a branch bank's document can be promoted to the global bank"}
		}
	}
	return nil
}

// Apply applies p to t, all or nothing (see the package doc), and returns
// what it did for Undo. Errors: *PlanError (ErrInvalidPlan), *ChangedError
// (ErrChanged), or the stores'.
func Apply(ctx context.Context, t Targets, p *Plan) (*Applied, error) {
	if err := p.validate(t); err != nil {
		return nil, err
	}
	docs, err := docVersions(ctx, t, p)
	if err != nil {
		return nil, err
	}
	var batch memories.Batch
	batch.Expect = map[string]string{}
	for _, mg := range p.Merge {
		if !mg.Members[0].Ref.IsMemory() {
			continue
		}
		var tags []string
		for _, m := range mg.Members {
			batch.Expect[m.Ref.Memory] = m.Version
			batch.Remove = append(batch.Remove, m.Ref.Memory)
		}
		tags = mg.Tags
		if tags == nil {
			tags, err = memberTags(ctx, t.Memories, mg.Members)
			if err != nil {
				return nil, err
			}
		}
		batch.Add = append(batch.Add, memories.Memory{Content: mg.Text, Tags: tags})
	}
	for _, m := range p.Retire {
		if m.Ref.IsMemory() {
			batch.Expect[m.Ref.Memory] = m.Version
			batch.Remove = append(batch.Remove, m.Ref.Memory)
		}
	}
	if n := len(batch.Remove); n > 0 && n > t.Memories.TrashCapacity() {
		return nil, &PlanError{Step: "plan", Reason: fmt.Sprintf(
			"removes %d memories but the trash keeps %d (memories.Options.Trash, TrashEntries), so they could not all be restored; split the plan or enlarge the trash",
			n, t.Memories.TrashCapacity())}
	}
	applied := &Applied{}
	if len(batch.Expect) > 0 {
		added, err := t.Memories.Apply(ctx, batch)
		if err != nil {
			var ce *memories.ChangedError
			if errors.As(err, &ce) {
				return nil, &ChangedError{Ref: Ref{Memory: ce.ID}, Want: ce.Want, Got: ce.Got}
			}
			return nil, err
		}
		applied.MemoriesRemoved = batch.Remove
		for _, a := range added {
			applied.MemoriesAdded = append(applied.MemoriesAdded, Member{Ref: Ref{Memory: a.ID}, Version: memories.Fingerprint(a)})
		}
	}
	if err := applyDocuments(ctx, t, p, docs, applied); err != nil {
		if uerr := Undo(ctx, t, applied); uerr != nil {
			return nil, fmt.Errorf("%w; undoing the steps already done failed too: %w", err, uerr)
		}
		return nil, err
	}
	return applied, nil
}

// memberTags is the union of the members' tags, in order.
func memberTags(ctx context.Context, mm *memories.Manager, members []Member) ([]string, error) {
	var tags []string
	for _, m := range members {
		mem, err := mm.Get(ctx, m.Ref.Memory)
		if errors.Is(err, memories.ErrNotFound) {
			return nil, &ChangedError{Ref: m.Ref, Want: m.Version}
		}
		if err != nil {
			return nil, err
		}
		for _, tg := range mem.Tags {
			if !slices.Contains(tags, tg) {
				tags = append(tags, tg)
			}
		}
	}
	return tags, nil
}

// docVersions checks every document the plan names against its version
// before anything is written, and returns the documents read.
func docVersions(ctx context.Context, t Targets, p *Plan) (map[Ref]*memorybank.Document, error) {
	out := map[Ref]*memorybank.Document{}
	var all []Member
	for _, mg := range p.Merge {
		all = append(all, mg.Members...)
	}
	all = append(all, p.Retire...)
	for _, pr := range p.Promote {
		all = append(all, pr.Member)
	}
	for _, m := range all {
		if m.Ref.IsMemory() {
			continue
		}
		d, err := t.Bank.Read(ctx, memorybank.ReadRequest{Scope: m.Ref.Scope, Branch: m.Ref.Branch, Path: m.Ref.Path})
		if errors.Is(err, memorybank.ErrNotFound) {
			return nil, &ChangedError{Ref: m.Ref, Want: m.Version}
		}
		if err != nil {
			return nil, err
		}
		if got := strconv.FormatInt(d.Version, 10); got != m.Version {
			return nil, &ChangedError{Ref: m.Ref, Want: m.Version, Got: got}
		}
		out[m.Ref] = d
	}
	return out, nil
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func version(s string) int64 { v, _ := strconv.ParseInt(s, 10, 64); return v }

// docError turns a conflicting write into a *ChangedError.
func docError(ref Ref, want string, err error) error {
	var ce *memorybank.ConflictError
	if errors.As(err, &ce) {
		got := ""
		if ce.CurrentVersion != 0 {
			got = strconv.FormatInt(ce.CurrentVersion, 10)
		}
		return &ChangedError{Ref: ref, Want: want, Got: got}
	}
	return err
}

func applyDocuments(ctx context.Context, t Targets, p *Plan, docs map[Ref]*memorybank.Document, applied *Applied) error {
	del := func(m Member, reason string) error {
		err := t.Bank.Delete(ctx, memorybank.DeleteRequest{Scope: m.Ref.Scope, Branch: m.Ref.Branch, Path: m.Ref.Path,
			IfVersion: version(m.Version), Actor: t.Actor})
		if err != nil {
			return docError(m.Ref, m.Version, err)
		}
		applied.Documents = append(applied.Documents, DocChange{Ref: m.Ref, Before: version(m.Version)})
		return nil
	}
	for _, mg := range p.Merge {
		if mg.Members[0].Ref.IsMemory() {
			continue
		}
		// The newest member keeps its path and takes the merged text.
		keep := mg.Members[0]
		for _, m := range mg.Members[1:] {
			if docs[m.Ref].LastModified.After(docs[keep.Ref].LastModified) {
				keep = m
			}
		}
		req := memorybank.WriteRequest{Scope: keep.Ref.Scope, Branch: keep.Ref.Branch, Path: keep.Ref.Path,
			IfVersion: version(keep.Version), Tags: mg.Tags, Actor: t.Actor, Reason: "consolidate: merged"}
		if docs[keep.Ref].Format == memorybank.FormatText {
			req.Text = mg.Text
		} else {
			req.Content = []byte(mg.Text)
		}
		res, err := t.Bank.Write(ctx, req)
		if err != nil {
			return docError(keep.Ref, keep.Version, err)
		}
		applied.Documents = append(applied.Documents, DocChange{Ref: keep.Ref, Before: version(keep.Version), After: res.Version})
		for _, m := range mg.Members {
			if m.Ref != keep.Ref {
				if err := del(m, "consolidate: merged into "+keep.Ref.Path); err != nil {
					return err
				}
			}
		}
	}
	for _, m := range p.Retire {
		if !m.Ref.IsMemory() {
			if err := del(m, "consolidate: retired"); err != nil {
				return err
			}
		}
	}
	for _, pr := range p.Promote {
		m := pr.Member
		d := docs[m.Ref]
		g := Ref{Scope: memorybank.ScopeGlobal, Path: m.Ref.Path}
		before := version(pr.Global)
		mode := memorybank.ModeCreate
		if before != 0 {
			mode = memorybank.ModeUpdate
		}
		req := memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: m.Ref.Path,
			Mode: mode, IfVersion: before, Actor: t.Actor, Tags: d.Tags,
			Reason: "consolidate: promoted from branch " + m.Ref.Branch}
		if d.Format == memorybank.FormatText {
			req.Text = d.Text()
		} else {
			req.Content = d.Content
		}
		res, err := t.Bank.Write(ctx, req)
		if errors.Is(err, memorybank.ErrExists) {
			return &ChangedError{Ref: g, Want: "(none)", Got: "an existing document"}
		}
		if err != nil {
			return docError(g, cmpOr(pr.Global, "(none)"), err)
		}
		applied.Documents = append(applied.Documents, DocChange{Ref: g, Before: before, After: res.Version})
	}
	return nil
}

// Undo reverses what Apply did: the documents' changes newest first (a
// document written is reverted to its version before, one created is
// deleted, one deleted is restored from its history), then the memories
// (the added ones deleted, the removed ones restored from the trash).
// An entry changed since Apply is not overwritten: Undo stops with a
// *ChangedError, the steps before it undone.
func Undo(ctx context.Context, t Targets, a *Applied) error {
	for i := len(a.Documents) - 1; i >= 0; i-- {
		c := a.Documents[i]
		var err error
		switch {
		case c.Before == 0:
			err = t.Bank.Delete(ctx, memorybank.DeleteRequest{Scope: c.Ref.Scope, Branch: c.Ref.Branch, Path: c.Ref.Path,
				IfVersion: c.After, Actor: t.Actor})
		default:
			_, err = history.Revert(ctx, t.Bank, memorybank.RevertRequest{Scope: c.Ref.Scope, Branch: c.Ref.Branch, Path: c.Ref.Path,
				ToVersion: c.Before, IfVersion: c.After, Actor: t.Actor, Reason: "consolidate: undone"})
		}
		if err != nil {
			return docError(c.Ref, strconv.FormatInt(c.After, 10), err)
		}
		a.Documents = a.Documents[:i]
	}
	if len(a.MemoriesAdded)+len(a.MemoriesRemoved) == 0 {
		return nil
	}
	expect := map[string]string{}
	var remove []string
	for _, m := range a.MemoriesAdded {
		expect[m.Ref.Memory] = m.Version
		remove = append(remove, m.Ref.Memory)
	}
	if len(remove) > 0 {
		if _, err := t.Memories.Apply(ctx, memories.Batch{Expect: expect, Remove: remove}); err != nil {
			var ce *memories.ChangedError
			if errors.As(err, &ce) {
				return &ChangedError{Ref: Ref{Memory: ce.ID}, Want: ce.Want, Got: ce.Got}
			}
			return err
		}
		a.MemoriesAdded = nil
	}
	for len(a.MemoriesRemoved) > 0 {
		id := a.MemoriesRemoved[0]
		if _, err := t.Memories.Restore(ctx, id); err != nil {
			return err
		}
		a.MemoriesRemoved = a.MemoriesRemoved[1:]
	}
	return nil
}
