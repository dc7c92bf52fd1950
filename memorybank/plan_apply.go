package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Errors of applying a plan.
var (
	// ErrNotConfirmed: a plan that requires confirmation was applied
	// without ApplyPlanRequest.Confirmed. Nothing was written.
	ErrNotConfirmed = errors.New("memorybank: plan requires the user's confirmation")
	// ErrUserBlock: an operation would write or remove the user block of a
	// document, which belongs to the user.
	ErrUserBlock = errors.New("memorybank: the user block belongs to the user")
	// ErrOutsideMachineBlock: an update would change text outside the
	// machine block of a document that has blocks.
	ErrOutsideMachineBlock = errors.New("memorybank: update changes text outside the machine block")
	// ErrMissingContent: a create or update operation has no content to
	// write.
	ErrMissingContent = errors.New("memorybank: operation has no content")
)

// OperationError reports the operation of a plan that failed. It wraps the
// cause (ErrUserBlock, ErrOutsideMachineBlock, ErrMissingContent,
// ErrNotFound, ErrExists, *ConflictError, *BlockError, ...).
type OperationError struct {
	Index int    // index in WritePlan.Operations
	Type  OpType // its type
	Path  string // its path
	Err   error
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("memorybank: plan operation %d (%s %s): %v", e.Index, e.Type, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *OperationError) Unwrap() error { return e.Err }

// ApplyPlanRequest applies a memory_ops plan to one bank.
type ApplyPlanRequest struct {
	Root PlanRoot   `json:"root"`
	Plan *WritePlan `json:"plan"`
	// Confirmed says the user confirmed the plan (see ParseAnswer). A plan
	// with requiresConfirmation is refused without it.
	Confirmed bool `json:"confirmed"`
}

// ApplyResult lists the files a plan changed, in the order of their first
// operation.
type ApplyResult struct {
	Files []AppliedFile `json:"files"`
}

// AppliedFile is one file a plan changed.
type AppliedFile struct {
	Path       string `json:"path"`
	Type       OpType `json:"type"`              // OpCreate, OpUpdate or OpDelete: the net effect
	Version    int64  `json:"version,omitempty"` // the new version (0 after a delete)
	Operations []int  `json:"operations"`        // indexes of the plan operations applied to it
	Unchanged  bool   `json:"unchanged,omitempty"`
}

// planFileOps is the work on one file: its operations in plan order.
type planFileOps struct {
	path string
	ops  []int
}

// planFileState is a file while a plan's operations are folded over it.
type planFileState struct {
	exists bool
	text   string
	format Format
}

// ApplyPlan applies a confirmed plan to the bank Root. Operations on the
// same file are combined into one write, which is atomic: a compare-and-swap
// on the version read (IfVersion), so a file is written whole or not at
// all, and a concurrent change is never overwritten. Before anything is
// written every operation is checked against the files as they are, so a
// plan with any refused operation changes nothing; a store failure (or a
// conflict) while writing leaves earlier files written, and the result
// lists them beside the error. Files changed only by machine block or
// section updates are recomputed on the latest version after a conflict,
// up to Options.MaxRetries times; other conflicts are a *ConflictError.
//
// Refused (as an *OperationError): an update with block USER_BLOCK; a
// delete of a document that has a user block; an update without block of a
// document with blocks whose new text differs outside the machine block; a
// section or machine block update of a document without a machine block
// or of a JSON document; a create of an existing file (ErrExists); an
// update or delete of a missing one (ErrNotFound); a create or update
// without content (ErrMissingContent); content over Options.MaxDocumentBytes
// (*LimitError); content of a .json path that is not the JSON text of an
// object (ErrInvalidRequest). Content is written as the text of the
// document; a .json document is also validated against its schema by
// Write, when it is written, so such a failure can follow earlier files.
func (b *Bank) ApplyPlan(ctx context.Context, req ApplyPlanRequest) (*ApplyResult, error) {
	p := req.Plan
	if p == nil {
		return nil, invalidRequest("apply plan: plan is missing")
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if p.RequiresConfirmation && !req.Confirmed {
		return nil, fmt.Errorf("%w: show WritePlan.Confirmation to the user and apply with Confirmed set once ParseAnswer says yes", ErrNotConfirmed)
	}
	if _, err := b.bankPrefix(ctx, req.Root.Scope, req.Root.Branch, false); err != nil {
		return nil, err
	}
	var files []*planFileOps
	byPath := map[string]*planFileOps{}
	for i, op := range p.Operations {
		f := byPath[op.Path]
		if f == nil {
			f = &planFileOps{path: op.Path}
			byPath[op.Path] = f
			files = append(files, f)
		}
		f.ops = append(f.ops, i)
	}
	// Check every file before writing any.
	type prepared struct {
		orig, next planFileState
		version    int64
	}
	preps := make([]prepared, len(files))
	for i, f := range files {
		orig, version, next, err := b.foldFile(ctx, req.Root, p, f)
		if err != nil {
			return nil, err
		}
		preps[i] = prepared{orig, next, version}
	}
	res := &ApplyResult{Files: []AppliedFile{}}
	for i, f := range files {
		pr := preps[i]
		for attempt := 0; ; attempt++ {
			af, err := b.writeFile(ctx, req.Root, f, pr.orig, pr.next, pr.version)
			if err == nil {
				if af != nil {
					res.Files = append(res.Files, *af)
				}
				break
			}
			first := f.ops[0]
			if !errors.Is(err, ErrConflict) || !planRetryable(p, f) || attempt >= b.opts.MaxRetries {
				return res, &OperationError{Index: first, Type: p.Operations[first].Type, Path: f.path, Err: err}
			}
			b.opts.Logger.DebugContext(ctx, "memorybank: plan write conflict, recomputing on the latest version", "path", f.path, "attempt", attempt+1)
			pr.orig, pr.version, pr.next, err = b.foldFile(ctx, req.Root, p, f)
			if err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// planRetryable: every operation on the file is a machine block update, whose
// result does not depend on what else the block held.
func planRetryable(p *WritePlan, f *planFileOps) bool {
	for _, i := range f.ops {
		if op := p.Operations[i]; op.Type != OpUpdate || op.Block != MachineBlock {
			return false
		}
	}
	return true
}

// foldFile reads a file and applies its operations in memory.
func (b *Bank) foldFile(ctx context.Context, root PlanRoot, p *WritePlan, f *planFileOps) (orig planFileState, version int64, next planFileState, err error) {
	fi, err := b.planFile(ctx, root, f.path)
	if err != nil {
		return orig, 0, next, err
	}
	orig = planFileState{exists: fi.exists, text: fi.text, format: fi.format}
	next = orig
	for _, i := range f.ops {
		op := p.Operations[i]
		if err := planApplyOp(&next, op, root); err != nil {
			return orig, 0, next, &OperationError{Index: i, Type: op.Type, Path: op.Path, Err: err}
		}
		if n := len(next.text); next.exists && n > b.opts.MaxDocumentBytes {
			return orig, 0, next, &OperationError{Index: i, Type: op.Type, Path: op.Path,
				Err: &LimitError{Limit: "document size", Max: b.opts.MaxDocumentBytes, Got: n, Path: op.Path}}
		}
	}
	return orig, fi.version, next, nil
}

// planApplyOp applies one operation to a file in memory.
func planApplyOp(st *planFileState, op Operation, root PlanRoot) error {
	content := ""
	if op.Content != nil {
		content = *op.Content
	}
	switch op.Type {
	case OpCreate:
		if st.exists {
			return fmt.Errorf("%w: %q is already in the %s; plan an update instead", ErrExists, op.Path, root.describe())
		}
		if op.Content == nil {
			return fmt.Errorf("%w: set content to the text of the new file", ErrMissingContent)
		}
		if err := planCheckJSON(st.format, op.Path, content); err != nil {
			return err
		}
		st.exists, st.text = true, content
		return nil
	case OpDelete:
		if !st.exists {
			return fmt.Errorf("%w: %q is not in the %s", ErrNotFound, op.Path, root.describe())
		}
		if planHasUserBlock(st) {
			return fmt.Errorf("%w: deleting %q would remove its user block; the user must delete it", ErrUserBlock, op.Path)
		}
		st.exists, st.text = false, ""
		return nil
	case OpUpdate:
	default:
		return invalidRequest("operation type %q is not create, update or delete", op.Type)
	}
	if !st.exists {
		return fmt.Errorf("%w: %q is not in the %s; plan a create instead", ErrNotFound, op.Path, root.describe())
	}
	if op.Block == UserBlock {
		return fmt.Errorf("%w: updates with block %q are refused; only %q can be written", ErrUserBlock, UserBlock, MachineBlock)
	}
	if op.Content == nil {
		what := "the whole new file"
		switch {
		case op.Section != "":
			what = fmt.Sprintf("the new body of section %q", op.Section)
		case op.Block == MachineBlock:
			what = "the new machine block content"
		}
		return fmt.Errorf("%w: set content to %s", ErrMissingContent, what)
	}
	if op.Block == MachineBlock && st.format != FormatText {
		return invalidRequest("%q is a JSON document; blocks and sections exist only in Markdown documents", op.Path)
	}
	if op.Block == "" {
		if err := planCheckJSON(st.format, op.Path, content); err != nil {
			return err
		}
		if st.format == FormatText {
			if err := planSameOutside(st.text, content); err != nil {
				return err
			}
		}
		st.text = content
		return nil
	}
	md, err := ParseMemoryMD(st.text)
	if err != nil {
		return err
	}
	if op.Section != "" {
		md, err = md.WithSection(op.Section, content)
	} else {
		md, err = md.WithMachineBlock(content)
	}
	if err != nil {
		return err
	}
	st.text = md.String()
	return nil
}

// planCheckJSON catches content the Bank would refuse for a JSON document
// before anything is written. (Schema validation by documentType still
// happens in Write.)
func planCheckJSON(format Format, p, content string) error {
	if format != FormatJSON {
		return nil
	}
	if t := strings.TrimSpace(content); !json.Valid([]byte(t)) || !strings.HasPrefix(t, "{") {
		return invalidRequest("content of %q must be the JSON text of an object (a memory_document_v2 envelope or the bare content), got %.40q", p, content)
	}
	return nil
}

// planSameOutside checks that a whole-file update of a document with blocks
// changes only its machine block.
func planSameOutside(old, new string) error {
	om, err := ParseMemoryMD(old)
	if err != nil {
		return fmt.Errorf("the stored document has malformed blocks, so a whole-file update could change the user's text: %w", err)
	}
	if om.machine == nil && om.user == nil {
		return nil
	}
	nm, err := ParseMemoryMD(new)
	if err != nil {
		return fmt.Errorf("%w: the new text: %w", ErrOutsideMachineBlock, err)
	}
	ob, oa := om.Outside()
	nb, na := nm.Outside()
	if om.machine == nil || nm.machine == nil || ob != nb || oa != na {
		line := planFirstDiff(ob+oa, nb+na)
		return fmt.Errorf("%w: the new text differs outside %s…%s (first at line %d of the text outside the block); "+
			"update a section with block %q instead", ErrOutsideMachineBlock, MachineBlockStart, MachineBlockEnd, line, MachineBlock)
	}
	return nil
}

func planFirstDiff(a, b string) int {
	n := min(len(a), len(b))
	i := 0
	for i < n && a[i] == b[i] {
		i++
	}
	return strings.Count(a[:i], "\n") + 1
}

func planHasUserBlock(st *planFileState) bool {
	if st.format != FormatText {
		return false
	}
	if md, err := ParseMemoryMD(st.text); err == nil {
		return md.user != nil
	}
	found := false
	mdLines(st.text, func(_ int, line string, _ int) bool {
		found = mdMarker(line) == mdUserStart || mdMarker(line) == mdUserEnd
		return !found
	})
	return found
}

// writeFile stores the folded state of one file with compare-and-swap.
func (b *Bank) writeFile(ctx context.Context, root PlanRoot, f *planFileOps, orig, next planFileState, version int64) (*AppliedFile, error) {
	af := &AppliedFile{Path: f.path, Operations: f.ops}
	switch {
	case orig.exists && !next.exists:
		af.Type = OpDelete
		return af, b.Delete(ctx, DeleteRequest{Scope: root.Scope, Branch: root.Branch, Path: f.path, IfVersion: version})
	case !orig.exists && !next.exists:
		return nil, nil // created and deleted by the same plan
	case orig.exists && next.text == orig.text:
		af.Type, af.Version, af.Unchanged = OpUpdate, version, true
		return af, nil
	}
	req := WriteRequest{Scope: root.Scope, Branch: root.Branch, Path: f.path, Content: TextContent(next.text)}
	af.Type = OpCreate
	if orig.exists {
		req.Mode, req.IfVersion = ModeUpdate, version
		af.Type = OpUpdate
	} else {
		req.Mode = ModeCreate
	}
	res, err := b.Write(ctx, req)
	if err != nil {
		return nil, err
	}
	af.Version = res.Version
	return af, nil
}
