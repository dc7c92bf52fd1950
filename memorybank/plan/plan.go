package plan

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/docpath"
	"github.com/mnemobank/mnemobank/memorybank/internal/pointer"
)

// SchemaVersion is the schemaVersion of both outputs.
const SchemaVersion = "2.0"

// Action names an output.
type Action string

const (
	ActionSelectFiles Action = "select_files"
	ActionMemoryOps   Action = "memory_ops"
)

// Default budget of a file selection.
const (
	DefaultFilesLimit = 5
	DefaultLinesLimit = 500
)

// Root is the memory bank a plan's paths are relative to: the branch bank
// of Branch (Scope memorybank.ScopeBranch) or the global bank
// (memorybank.ScopeGlobal). It plays the part of the "memory-bank/"
// directory a Markdown memory bank lives in.
type Root struct {
	Scope  memorybank.Scope `json:"scope"`
	Branch string           `json:"branch,omitempty"`
}

func (r Root) describe() string {
	if r.Scope == memorybank.ScopeBranch {
		return fmt.Sprintf("branch bank of %q", r.Branch)
	}
	return "global bank"
}

// FileSelection is the select_files output.
type FileSelection struct {
	SchemaVersion string      `json:"schemaVersion"` // SchemaVersion
	Action        Action      `json:"action"`        // ActionSelectFiles
	Files         []string    `json:"files"`
	Reason        string      `json:"reason"`
	Budget        Budget      `json:"budget"`
	RiskAlerts    []RiskAlert `json:"riskAlerts"`
}

// Budget holds the counts of a selection and its limits.
type Budget struct {
	FilesSelected int `json:"filesSelected"`
	FilesLimit    int `json:"filesLimit"`
	LinesSelected int `json:"linesSelected"`
	LinesLimit    int `json:"linesLimit"`
}

// RiskLevel is the level of a RiskAlert.
type RiskLevel string

const (
	RiskInfo    RiskLevel = "info"
	RiskWarning RiskLevel = "warning"
	RiskError   RiskLevel = "error"
)

// RiskAlert is a risk the user should know about.
type RiskAlert struct {
	Level   RiskLevel `json:"level"`
	File    string    `json:"file"`
	Message string    `json:"message"`
}

// WritePlan is the memory_ops output.
type WritePlan struct {
	SchemaVersion        string      `json:"schemaVersion"` // SchemaVersion
	Action               Action      `json:"action"`        // ActionMemoryOps
	Operations           []Operation `json:"operations"`
	RequiresConfirmation bool        `json:"requiresConfirmation"`
}

// OpType is the type of an Operation.
type OpType string

const (
	OpCreate OpType = "create"
	OpUpdate OpType = "update"
	OpDelete OpType = "delete"
)

// Block names a block of a MEMORY.md document.
type Block string

const (
	MachineBlock Block = "MACHINE_BLOCK"
	UserBlock    Block = "USER_BLOCK"
)

// Operation is one planned write. Changes and Reason are the descriptions
// the user confirms; Content, which the memory_ops format of a Markdown
// memory bank leaves out, carries the text that is written:
//
//   - create: Content is the whole new file.
//   - update with Block MACHINE_BLOCK and Section: Content is the new body
//     of that "## Section" (without the heading); the section is added at
//     the end of the machine block when missing.
//   - update with Block MACHINE_BLOCK and no Section: Content replaces the
//     whole machine block content.
//   - update without Block: Content is the whole new file; for a document
//     with blocks only its machine block may differ.
//   - delete: no Content.
type Operation struct {
	Type    OpType  `json:"type"`
	Path    string  `json:"path"`
	Block   Block   `json:"block,omitempty"`
	Section string  `json:"section,omitempty"`
	Changes string  `json:"changes,omitempty"`
	Reason  string  `json:"reason,omitempty"`
	Content *string `json:"content,omitempty"`
}

// MarshalJSON writes the selection with the schemaVersion and action filled
// in when empty and empty lists as [].
func (s FileSelection) MarshalJSON() ([]byte, error) {
	type plain FileSelection
	p := plain(s)
	if p.SchemaVersion == "" {
		p.SchemaVersion = SchemaVersion
	}
	if p.Action == "" {
		p.Action = ActionSelectFiles
	}
	if p.Files == nil {
		p.Files = []string{}
	}
	if p.RiskAlerts == nil {
		p.RiskAlerts = []RiskAlert{}
	}
	return json.Marshal(p)
}

// MarshalJSON writes the plan with the schemaVersion and action filled in
// when empty and an empty operation list as [].
func (p WritePlan) MarshalJSON() ([]byte, error) {
	type plain WritePlan
	q := plain(p)
	if q.SchemaVersion == "" {
		q.SchemaVersion = SchemaVersion
	}
	if q.Action == "" {
		q.Action = ActionMemoryOps
	}
	if q.Operations == nil {
		q.Operations = []Operation{}
	}
	return json.Marshal(q)
}

// Errors of plans.
var (
	// ErrInvalid: an output does not match its schema or its rules, or
	// (CheckSelection) does not agree with the store. The error is a
	// *Error listing every problem.
	ErrInvalid = errors.New("plan: invalid plan")
	// ErrOverBudget: a selection has more files or lines than its limits.
	// Reported by a *Error, which then matches ErrInvalid too.
	ErrOverBudget = errors.New("plan: selection over budget")
)

// Error lists the problems of an output, each located by a JSON
// Pointer into it (e.g. "/budget/linesSelected", "/operations/1/path").
// It wraps ErrInvalid and, when a limit is exceeded, ErrOverBudget.
type Error struct {
	Action     Action
	Problems   []memorybank.Problem
	OverBudget bool
}

func (e *Error) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s output:", ErrInvalid.Error(), e.Action)
	for _, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(root)"
		}
		fmt.Fprintf(&b, " %s: %s;", ptr, p.Message)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns ErrInvalid, and ErrOverBudget for an over-budget
// selection.
func (e *Error) Unwrap() []error {
	if e.OverBudget {
		return []error{ErrInvalid, ErrOverBudget}
	}
	return []error{ErrInvalid}
}

//go:embed schemas/*.json
var schemaFS embed.FS

// Schema returns the draft-07 JSON Schema of an output, for hosts that
// give it to a language model (e.g. as a structured output format). ok is
// false for an unknown action.
func Schema(action Action) (schema json.RawMessage, ok bool) {
	switch action {
	case ActionSelectFiles, ActionMemoryOps:
	default:
		return nil, false
	}
	b, err := schemaFS.ReadFile("schemas/" + string(action) + ".json")
	return b, err == nil
}

var (
	planSchemasOnce sync.Once
	planSchemas     map[Action]*gojsonschema.Schema
	planSchemasErr  error
)

func planSchema(action Action) (*gojsonschema.Schema, error) {
	planSchemasOnce.Do(func() {
		planSchemas = map[Action]*gojsonschema.Schema{}
		for _, a := range []Action{ActionSelectFiles, ActionMemoryOps} {
			text, _ := Schema(a)
			s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(text))
			if err != nil {
				planSchemasErr = fmt.Errorf("plan: embedded plan schema %s: %w", a, err)
				return
			}
			planSchemas[a] = s
		}
	})
	return planSchemas[action], planSchemasErr
}

// planSchemaProblems validates data against the schema of action.
func planSchemaProblems(action Action, data []byte) ([]memorybank.Problem, error) {
	s, err := planSchema(action)
	if err != nil {
		return nil, err
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return []memorybank.Problem{{Pointer: "", Message: "not valid JSON: " + err.Error()}}, nil
	}
	var out []memorybank.Problem
	for _, re := range res.Errors() {
		if re.Type() == "number_all_of" || re.Type() == "condition_then" {
			continue // summaries of the problems reported beside them
		}
		out = append(out, memorybank.Problem{Pointer: pointer.Of(re), Message: re.Description()})
	}
	return out, nil
}

func planSortProblems(ps []memorybank.Problem) {
	slices.SortStableFunc(ps, func(a, b memorybank.Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
}

// planPathProblem checks a plan path as the Bank checks document paths.
func planPathProblem(ptr, p string) *memorybank.Problem {
	if err := memorybank.ValidatePath(p); err != nil {
		return &memorybank.Problem{Pointer: ptr, Message: strings.TrimPrefix(err.Error(), memorybank.ErrInvalidPath.Error()+": ") +
			"; paths are relative to the memory bank root, e.g. \"MEMORY.md\" or \"details/learnings/2024-01-20-payment-timeout.md\""}
	}
	return nil
}

// DecodeFileSelection decodes and validates a select_files output: its
// schema, its paths and that its budget counts agree with its files and
// stay within its own limits. Every problem is reported in a *Error.
// Whether the files exist and the counts and limits are true is for
// CheckSelection.
func DecodeFileSelection(data []byte) (*FileSelection, error) {
	var s FileSelection
	decoded := json.Unmarshal(data, &s) == nil
	if err := selectionProblems(data, &s, decoded, true); err != nil {
		return nil, err
	}
	return &s, nil
}

// validate checks the selection against its schema and paths, and with
// budget also its counts against its files and its own limits.
func (s *FileSelection) validate(budget bool) error {
	data, err := json.Marshal(s)
	if err != nil {
		return err
	}
	return selectionProblems(data, s, true, budget)
}

// addProblem appends p unless the schema already reported its pointer.
func addProblem(problems []memorybank.Problem, p memorybank.Problem) []memorybank.Problem {
	for _, q := range problems {
		if q.Pointer == p.Pointer {
			return problems
		}
	}
	return append(problems, p)
}

// selectionProblems checks the JSON of a selection against the schema and,
// when decoded, s against the rules the schema cannot say.
func selectionProblems(data []byte, s *FileSelection, decoded, budget bool) error {
	problems, err := planSchemaProblems(ActionSelectFiles, data)
	if err != nil {
		return err
	}
	over := false
	if decoded {
		for i, f := range s.Files {
			if p := planPathProblem(fmt.Sprintf("/files/%d", i), f); p != nil {
				problems = addProblem(problems, *p)
			}
		}
	}
	if decoded && budget && len(problems) == 0 {
		bu := s.Budget
		if bu.FilesSelected != len(s.Files) {
			problems = append(problems, memorybank.Problem{Pointer: "/budget/filesSelected",
				Message: fmt.Sprintf("is %d but files lists %d paths", bu.FilesSelected, len(s.Files))})
		}
		if len(s.Files) > bu.FilesLimit {
			over = true
			problems = append(problems, memorybank.Problem{Pointer: "/files",
				Message: fmt.Sprintf("selects %d files, over the filesLimit of %d; drop the least relevant", len(s.Files), bu.FilesLimit)})
		}
		if bu.LinesSelected > bu.LinesLimit {
			over = true
			problems = append(problems, memorybank.Problem{Pointer: "/budget/linesSelected",
				Message: fmt.Sprintf("is %d, over the linesLimit of %d; drop large or less relevant files", bu.LinesSelected, bu.LinesLimit)})
		}
	}
	if len(problems) == 0 {
		return nil
	}
	planSortProblems(problems)
	return &Error{Action: ActionSelectFiles, Problems: problems, OverBudget: over}
}

// DecodeWritePlan decodes and validates a memory_ops output: its schema,
// its paths, and the rules the schema cannot say (block only on updates, a
// section only with block MACHINE_BLOCK, no content on a delete). Every
// problem is reported in a *Error. A plan that passes may still be
// refused by Apply (for example an update of the user block, or a
// missing content).
func DecodeWritePlan(data []byte) (*WritePlan, error) {
	var p WritePlan
	decoded := json.Unmarshal(data, &p) == nil
	if err := planProblems(data, &p, decoded); err != nil {
		return nil, err
	}
	return &p, nil
}

// validate checks the plan against its schema and rules.
func (p *WritePlan) validate() error {
	data, err := json.Marshal(p)
	if err != nil {
		return err
	}
	return planProblems(data, p, true)
}

func planProblems(data []byte, p *WritePlan, decoded bool) error {
	problems, err := planSchemaProblems(ActionMemoryOps, data)
	if err != nil {
		return err
	}
	if decoded {
		for i, op := range p.Operations {
			at := fmt.Sprintf("/operations/%d", i)
			if pp := planPathProblem(at+"/path", op.Path); pp != nil {
				problems = addProblem(problems, *pp)
			}
			if op.Type != OpUpdate && op.Block != "" {
				problems = addProblem(problems, memorybank.Problem{Pointer: at + "/block",
					Message: fmt.Sprintf("is only for type \"update\", this operation is %q; remove block", op.Type)})
			}
			if op.Section != "" && op.Block != MachineBlock {
				problems = addProblem(problems, memorybank.Problem{Pointer: at + "/section",
					Message: fmt.Sprintf("needs block %q: sections are replaced inside the machine block of MEMORY.md", MachineBlock)})
			}
			if op.Type == OpDelete && op.Content != nil {
				problems = addProblem(problems, memorybank.Problem{Pointer: at + "/content", Message: "is not used by a delete; remove it"})
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	planSortProblems(problems)
	return &Error{Action: ActionMemoryOps, Problems: problems}
}

// formatOf is the format the Bank gives a document at path p.
func formatOf(p string) memorybank.Format {
	if docpath.IsJSON(p) {
		return memorybank.FormatJSON
	}
	return memorybank.FormatText
}

// invalidRequest is an error wrapping memorybank.ErrInvalidRequest, as the
// Bank words its own.
func invalidRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", memorybank.ErrInvalidRequest, fmt.Sprintf(format, args...))
}
