package plan

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/docpath"
	"github.com/mnemobank/mnemobank/memorybank/memorymd"
)

// Errors of applying a plan.
var (
	// ErrNotConfirmed: a plan that requires confirmation was applied
	// without ApplyRequest.Confirmed. Nothing was written.
	ErrNotConfirmed = errors.New("plan: plan requires the user's confirmation")
	// ErrUserBlock: an operation would write or remove the user block of a
	// document, which belongs to the user.
	ErrUserBlock = errors.New("plan: the user block belongs to the user")
	// ErrOutsideMachineBlock: an update would change text outside the
	// machine block of a document that has blocks.
	ErrOutsideMachineBlock = errors.New("plan: update changes text outside the machine block")
	// ErrMissingContent: a create or update operation has no content to
	// write.
	ErrMissingContent = errors.New("plan: operation has no content")
)

// OperationError reports the operation of a plan that failed. It wraps the
// cause (ErrUserBlock, ErrOutsideMachineBlock, ErrMissingContent,
// memorybank.ErrNotFound, memorybank.ErrExists, *memorybank.ConflictError,
// *memorymd.BlockError, ...).
type OperationError struct {
	Index int    // index in WritePlan.Operations
	Type  OpType // its type
	Path  string // its path
	Err   error
}

func (e *OperationError) Error() string {
	return fmt.Sprintf("plan: operation %d (%s %s): %v", e.Index, e.Type, e.Path, e.Err)
}

// Unwrap returns the cause.
func (e *OperationError) Unwrap() error { return e.Err }

// ApplyRequest applies a memory_ops plan to one bank.
type ApplyRequest struct {
	Root Root       `json:"root"`
	Plan *WritePlan `json:"plan"`
	// Confirmed says the user confirmed the plan (see ParseAnswer). A plan
	// with requiresConfirmation is refused without it.
	Confirmed bool `json:"confirmed"`
	// Actor, optional, is who applies the plan, recorded in the history
	// of every file it writes or deletes (see memorybank.WriteRequest).
	Actor string `json:"actor,omitempty"`
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
	format memorybank.Format
}

// Apply applies a confirmed plan to the bank req.Root of b. Operations on the
// same file are combined into one write, which is atomic: a compare-and-swap
// on the version read (IfVersion), so a file is written whole or not at
// all, and a concurrent change is never overwritten. Before anything is
// written every operation is checked against the files as they are, so a
// plan with any refused operation changes nothing; a store failure (or a
// conflict) while writing leaves earlier files written, and the result
// lists them beside the error. Files changed only by machine block or
// section updates are recomputed on the latest version after a conflict,
// up to the Bank's Options.MaxRetries times; other conflicts are a
// *memorybank.ConflictError.
//
// Refused (as an *OperationError): an update with block USER_BLOCK; a
// delete of a document that has a user block; an update without block of a
// document with blocks whose new text differs outside the machine block; a
// section or machine block update of a document without a machine block
// or of a JSON document; a create of an existing file
// (memorybank.ErrExists); an update or delete of a missing one
// (memorybank.ErrNotFound); a create or update without content
// (ErrMissingContent); content over the Bank's Options.MaxDocumentBytes
// (*memorybank.LimitError); content of a .json path that is not the JSON
// text of an object (memorybank.ErrInvalidRequest); and whatever
// Bank.CheckWrite refuses for the write of a file (front matter that is not
// YAML, tags that are not a list of one-line strings or over the limit, a
// document against its schema or over the size limit once stored, a path
// colliding with another); and a file created by the plan that collides
// with another file of the plan by letter case, Unicode normalisation
// ("é" composed or decomposed) or as file and folder ("a" and "a/b.md"),
// which the bank would refuse only once the first was written
// (memorybank.ErrPathConflict, on the later file's first operation).
// Content is written as the text of a text
// document, and as the JSON object of a .json document.
func Apply(ctx context.Context, b *memorybank.Bank, req ApplyRequest) (*ApplyResult, error) {
	p := req.Plan
	if p == nil {
		return nil, invalidRequest("apply plan: plan is missing")
	}
	if err := p.validate(); err != nil {
		return nil, err
	}
	if err := memorybank.ValidateActor(req.Actor); err != nil {
		return nil, err
	}
	if p.RequiresConfirmation && !req.Confirmed {
		return nil, fmt.Errorf("%w: show WritePlan.Confirmation to the user and apply with Confirmed set once ParseAnswer says yes", ErrNotConfirmed)
	}
	// An invalid root (scope, branch) fails the first read below, with the
	// Bank's own error, before anything is written.
	opts := b.Options()
	maxBytes := opts.MaxDocumentBytes
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
		orig, version, next, err := foldFile(ctx, b, maxBytes, req.Root, p, f)
		if err != nil {
			return nil, err
		}
		preps[i] = prepared{orig, next, version}
	}
	// The files the plan creates against each other: each is checked
	// below against the bank as it is, which cannot see the others.
	if err := planCollisions(p, files, func(i int) (created, exists bool) {
		return !preps[i].orig.exists && preps[i].next.exists, preps[i].next.exists
	}); err != nil {
		return nil, err
	}
	// Check the write of every file as the Bank would run it (front
	// matter, tags, schema, stored size, path collisions), still before
	// anything is written.
	for i, f := range files {
		pr := preps[i]
		if req, _, ok := fileRequest(req.Root, f, pr.orig, pr.next, pr.version); ok {
			// A conflict (another writer changed the file since it was
			// read) is left to the write, which retries or reports it.
			if _, err := b.CheckWrite(ctx, req); err != nil && !errors.Is(err, memorybank.ErrConflict) {
				first := f.ops[0]
				return nil, &OperationError{Index: first, Type: p.Operations[first].Type, Path: f.path, Err: err}
			}
		}
	}
	res := &ApplyResult{Files: []AppliedFile{}}
	for i, f := range files {
		pr := preps[i]
		for attempt := 0; ; attempt++ {
			af, err := writeFile(ctx, b, req.Root, req.Actor, f, pr.orig, pr.next, pr.version)
			if err == nil {
				if af != nil {
					res.Files = append(res.Files, *af)
				}
				break
			}
			first := f.ops[0]
			if !errors.Is(err, memorybank.ErrConflict) || !planRetryable(p, f) || attempt >= opts.MaxRetries {
				return res, &OperationError{Index: first, Type: p.Operations[first].Type, Path: f.path, Err: err}
			}
			opts.Logger.DebugContext(ctx, "plan: write conflict, recomputing on the latest version", "path", f.path, "attempt", attempt+1)
			pr.orig, pr.version, pr.next, err = foldFile(ctx, b, maxBytes, req.Root, p, f)
			if err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// planCollisions refuses a plan that creates a file colliding with another
// file of the plan (one that exists once the plan is applied), by letter
// case, Unicode normalisation or as file and folder: the Bank would refuse
// the second write after the first was done. The error names the later
// file's first operation and wraps memorybank.ErrPathConflict.
func planCollisions(p *WritePlan, files []*planFileOps, state func(i int) (created, exists bool)) error {
	folded := make([]string, len(files))
	for i, f := range files {
		folded[i] = docpath.Fold(f.path)
	}
	for j, g := range files {
		cj, ej := state(j)
		if !ej {
			continue
		}
		for i, f := range files[:j] {
			ci, ei := state(i)
			if !ei || !ci && !cj {
				continue
			}
			var why string
			switch docpath.Collide(folded[j], folded[i]) {
			case docpath.NoCollision:
				continue
			case docpath.SameFile:
				why = fmt.Sprintf("differs from %q, also in the plan, only by letter case or Unicode normalisation, and they would be one file on macOS and Windows; use one spelling, %q, for both", f.path, f.path)
			case docpath.UnderDocument:
				why = fmt.Sprintf("would be under %q, which the plan makes a document, not a folder; choose another path", f.path)
			case docpath.OverDocuments:
				why = fmt.Sprintf("is a folder holding %q, also in the plan, so it cannot also be a document; choose another path", f.path)
			}
			first := g.ops[0]
			return &OperationError{Index: first, Type: p.Operations[first].Type, Path: g.path,
				Err: fmt.Errorf("%w: %q %s", memorybank.ErrPathConflict, g.path, why)}
		}
	}
	return nil
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
func foldFile(ctx context.Context, b *memorybank.Bank, maxBytes int, root Root, p *WritePlan, f *planFileOps) (orig planFileState, version int64, next planFileState, err error) {
	fi, err := readFile(ctx, b, root, f.path)
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
		if n := len(next.text); next.exists && n > maxBytes {
			return orig, 0, next, &OperationError{Index: i, Type: op.Type, Path: op.Path,
				Err: &memorybank.LimitError{Limit: "document size", Max: maxBytes, Got: n, Path: op.Path}}
		}
	}
	return orig, fi.version, next, nil
}

// planApplyOp applies one operation to a file in memory.
func planApplyOp(st *planFileState, op Operation, root Root) error {
	content := ""
	if op.Content != nil {
		content = *op.Content
	}
	switch op.Type {
	case OpCreate:
		if st.exists {
			return fmt.Errorf("%w: %q is already in the %s; plan an update instead", memorybank.ErrExists, op.Path, root.describe())
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
			return fmt.Errorf("%w: %q is not in the %s", memorybank.ErrNotFound, op.Path, root.describe())
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
		return fmt.Errorf("%w: %q is not in the %s; plan a create instead", memorybank.ErrNotFound, op.Path, root.describe())
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
	if op.Block == MachineBlock && st.format != memorybank.FormatText {
		return invalidRequest("%q is a JSON document; blocks and sections exist only in Markdown documents", op.Path)
	}
	if op.Block == "" {
		if err := planCheckJSON(st.format, op.Path, content); err != nil {
			return err
		}
		if st.format == memorybank.FormatText {
			if err := planSameOutside(st.text, content); err != nil {
				return err
			}
		}
		st.text = content
		return nil
	}
	md, err := memorymd.Parse(st.text)
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
func planCheckJSON(format memorybank.Format, p, content string) error {
	if format != memorybank.FormatJSON {
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
	om, err := memorymd.Parse(old)
	if err != nil {
		return fmt.Errorf("the stored document has malformed blocks, so a whole-file update could change the user's text: %w", err)
	}
	if !om.HasMachineBlock() && !om.HasUserBlock() {
		return nil
	}
	nm, err := memorymd.Parse(new)
	if err != nil {
		return fmt.Errorf("%w: the new text: %w", ErrOutsideMachineBlock, err)
	}
	ob, oa := om.Outside()
	nb, na := nm.Outside()
	if !om.HasMachineBlock() || !nm.HasMachineBlock() || ob != nb || oa != na {
		line := planFirstDiff(ob+oa, nb+na)
		return fmt.Errorf("%w: the new text differs outside %s…%s (first at line %d of the text outside the block); "+
			"update a section with block %q instead", ErrOutsideMachineBlock, memorymd.MachineBlockStart, memorymd.MachineBlockEnd, line, MachineBlock)
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
	if st.format != memorybank.FormatText {
		return false
	}
	if md, err := memorymd.Parse(st.text); err == nil {
		return md.HasUserBlock()
	}
	return memorymd.MentionsUserBlock(st.text)
}

// writeFile stores the folded state of one file with compare-and-swap.
func writeFile(ctx context.Context, b *memorybank.Bank, root Root, actor string, f *planFileOps, orig, next planFileState, version int64) (*AppliedFile, error) {
	af := &AppliedFile{Path: f.path, Operations: f.ops}
	switch {
	case orig.exists && !next.exists:
		af.Type = OpDelete
		return af, b.Delete(ctx, memorybank.DeleteRequest{Scope: root.Scope, Branch: root.Branch, Path: f.path, IfVersion: version, Actor: actor})
	case !orig.exists && !next.exists:
		return nil, nil // created and deleted by the same plan
	case orig.exists && next.text == orig.text:
		af.Type, af.Version, af.Unchanged = OpUpdate, version, true
		return af, nil
	}
	req, typ, _ := fileRequest(root, f, orig, next, version)
	req.Actor = actor
	af.Type = typ
	res, err := b.Write(ctx, req)
	if err != nil {
		return nil, err
	}
	af.Version = res.Version
	return af, nil
}

// fileRequest is the write that stores the folded state of a file that is
// created or changed (ok false for a delete or no change).
func fileRequest(root Root, f *planFileOps, orig, next planFileState, version int64) (req memorybank.WriteRequest, typ OpType, ok bool) {
	if !next.exists || orig.exists && next.text == orig.text {
		return req, "", false
	}
	req = memorybank.WriteRequest{Scope: root.Scope, Branch: root.Branch, Path: f.path}
	if next.format == memorybank.FormatJSON {
		req.Content = bytes.TrimSpace([]byte(next.text)) // an object: planCheckJSON checked it
	} else {
		req.Text = next.text
	}
	typ = OpCreate
	if orig.exists {
		req.Mode, req.IfVersion = memorybank.ModeUpdate, version
		typ = OpUpdate
	} else {
		req.Mode = memorybank.ModeCreate
	}
	return req, typ, true
}
