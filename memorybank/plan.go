package memorybank

import (
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/xeipuuv/gojsonschema"
)

// Plans are the structured outputs of seed 002 that an agent produces
// around a Markdown memory bank: a select_files output (which files to
// load, within a budget, with risk alerts) and a memory_ops output (which
// writes it plans, confirmed by the user before anything changes). The
// JSON Schemas of both are embedded (PlanSchema) so a host can give them to
// a model; DecodeFileSelection and DecodeWritePlan validate what comes
// back and report every problem by JSON Pointer in a *PlanError.
//
// Decisions where the seed is silent:
//
//   - Root. Seed paths are relative to "memory-bank/". Here they are
//     relative to a PlanRoot: the branch bank of one branch, or the global
//     bank. Markdown files are the Bank's text documents; .json paths are
//     its JSON documents. Paths follow the Bank's rules (relative, no "..",
//     no segment starting with ".").
//   - Lines. A file's lines are those of the text an agent reads: the text
//     of a text document without the front matter the Bank keeps, or the
//     indented JSON of a JSON document as stored (CountLines: a last line
//     without a line ending counts).
//   - Selection. SelectFiles orders candidates by caller relevance (higher
//     first), then fewer lines, then newer lastModified, then path, and
//     takes them greedily, skipping any that would pass a limit. Defaults:
//     5 files, 500 lines. Missing candidates are an error, not skipped.
//   - Schemas are strict: unknown fields are problems (a misspelt field is
//     the usual model mistake); create needs reason, update needs changes,
//     operations is non-empty, riskAlerts is optional.
//   - Content. The seed's operations describe changes but do not carry
//     them. Operation.Content, an added optional field, carries the text;
//     changes stays the description the user confirms (see Operation).
//   - Applying. Operations are grouped per file and each file is written
//     once with compare-and-swap; every file is checked before any is
//     written. The user block is never written or deleted; an update
//     without block of a document with blocks may change only its machine
//     block.
//   - Confirmation text: Chinese by default (the seed's), English and
//     Japanese in the same shape. Answers: see ParseAnswer.

// PlanSchemaVersion is the schemaVersion of both outputs.
const PlanSchemaVersion = "2.0"

// PlanAction names an output.
type PlanAction string

const (
	ActionSelectFiles PlanAction = "select_files"
	ActionMemoryOps   PlanAction = "memory_ops"
)

// Default budget of a file selection (seed 002).
const (
	DefaultFilesLimit = 5
	DefaultLinesLimit = 500
)

// PlanRoot is the memory bank a plan's paths are relative to: the branch
// bank of Branch (Scope ScopeBranch) or the global bank (ScopeGlobal). It
// plays the part of seed 002's "memory-bank/" directory.
type PlanRoot struct {
	Scope  Scope  `json:"scope"`
	Branch string `json:"branch,omitempty"`
}

func (r PlanRoot) describe() string {
	if r.Scope == ScopeBranch {
		return fmt.Sprintf("branch bank of %q", r.Branch)
	}
	return "global bank"
}

// FileSelection is the select_files output.
type FileSelection struct {
	SchemaVersion string      `json:"schemaVersion"` // PlanSchemaVersion
	Action        PlanAction  `json:"action"`        // ActionSelectFiles
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
	SchemaVersion        string      `json:"schemaVersion"` // PlanSchemaVersion
	Action               PlanAction  `json:"action"`        // ActionMemoryOps
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
// the user confirms (seed 002); Content, which the seed leaves out, carries
// the text that is written:
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
		p.SchemaVersion = PlanSchemaVersion
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
		q.SchemaVersion = PlanSchemaVersion
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
	// ErrInvalidPlan: an output does not match its schema or its rules, or
	// (CheckSelection) does not agree with the store. The error is a
	// *PlanError listing every problem.
	ErrInvalidPlan = errors.New("memorybank: invalid plan")
	// ErrOverBudget: a selection has more files or lines than its limits.
	// Reported by a *PlanError, which then matches ErrInvalidPlan too.
	ErrOverBudget = errors.New("memorybank: selection over budget")
)

// PlanError lists the problems of an output, each located by a JSON
// Pointer into it (e.g. "/budget/linesSelected", "/operations/1/path").
// It wraps ErrInvalidPlan and, when a limit is exceeded, ErrOverBudget.
type PlanError struct {
	Action     PlanAction
	Problems   []Problem
	OverBudget bool
}

func (e *PlanError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %s output:", ErrInvalidPlan.Error(), e.Action)
	for _, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(root)"
		}
		fmt.Fprintf(&b, " %s: %s;", ptr, p.Message)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns ErrInvalidPlan, and ErrOverBudget for an over-budget
// selection.
func (e *PlanError) Unwrap() []error {
	if e.OverBudget {
		return []error{ErrInvalidPlan, ErrOverBudget}
	}
	return []error{ErrInvalidPlan}
}

//go:embed planschemas/*.json
var planSchemaFS embed.FS

// PlanSchema returns the draft-07 JSON Schema of an output, for hosts that
// give it to a language model (e.g. as a structured output format). ok is
// false for an unknown action.
func PlanSchema(action PlanAction) (schema json.RawMessage, ok bool) {
	switch action {
	case ActionSelectFiles, ActionMemoryOps:
	default:
		return nil, false
	}
	b, err := planSchemaFS.ReadFile("planschemas/" + string(action) + ".json")
	return b, err == nil
}

var (
	planSchemasOnce sync.Once
	planSchemas     map[PlanAction]*gojsonschema.Schema
	planSchemasErr  error
)

func planSchema(action PlanAction) (*gojsonschema.Schema, error) {
	planSchemasOnce.Do(func() {
		planSchemas = map[PlanAction]*gojsonschema.Schema{}
		for _, a := range []PlanAction{ActionSelectFiles, ActionMemoryOps} {
			text, _ := PlanSchema(a)
			s, err := gojsonschema.NewSchema(gojsonschema.NewBytesLoader(text))
			if err != nil {
				planSchemasErr = fmt.Errorf("memorybank: embedded plan schema %s: %w", a, err)
				return
			}
			planSchemas[a] = s
		}
	})
	return planSchemas[action], planSchemasErr
}

// planSchemaProblems validates data against the schema of action.
func planSchemaProblems(action PlanAction, data []byte) ([]Problem, error) {
	s, err := planSchema(action)
	if err != nil {
		return nil, err
	}
	res, err := s.Validate(gojsonschema.NewBytesLoader(data))
	if err != nil {
		return []Problem{{Pointer: "", Message: "not valid JSON: " + err.Error()}}, nil
	}
	var out []Problem
	for _, re := range res.Errors() {
		if re.Type() == "number_all_of" || re.Type() == "condition_then" {
			continue // summaries of the problems reported beside them
		}
		ptr := pointerOf(re.Context())
		if re.Type() == "required" || re.Type() == "additional_property_not_allowed" {
			if prop, ok := re.Details()["property"].(string); ok {
				ptr += "/" + escapePointer(prop)
			}
		}
		out = append(out, Problem{Pointer: ptr, Message: re.Description()})
	}
	return out, nil
}

func planSortProblems(ps []Problem) {
	slices.SortStableFunc(ps, func(a, b Problem) int { return strings.Compare(a.Pointer, b.Pointer) })
}

// planPathProblem checks a plan path as the Bank checks document paths.
func planPathProblem(ptr, p string) *Problem {
	if err := validatePath(p); err != nil {
		return &Problem{Pointer: ptr, Message: strings.TrimPrefix(err.Error(), ErrInvalidPath.Error()+": ") +
			"; paths are relative to the memory bank root, e.g. \"MEMORY.md\" or \"details/learnings/2024-01-20-payment-timeout.md\""}
	}
	return nil
}

// DecodeFileSelection decodes and validates a select_files output: its
// schema, its paths and that its budget counts agree with its files and
// stay within its own limits. Every problem is reported in a *PlanError.
// Whether the files exist and the counts and limits are true is for
// Bank.CheckSelection.
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
func addProblem(problems []Problem, p Problem) []Problem {
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
			problems = append(problems, Problem{Pointer: "/budget/filesSelected",
				Message: fmt.Sprintf("is %d but files lists %d paths", bu.FilesSelected, len(s.Files))})
		}
		if len(s.Files) > bu.FilesLimit {
			over = true
			problems = append(problems, Problem{Pointer: "/files",
				Message: fmt.Sprintf("selects %d files, over the filesLimit of %d; drop the least relevant", len(s.Files), bu.FilesLimit)})
		}
		if bu.LinesSelected > bu.LinesLimit {
			over = true
			problems = append(problems, Problem{Pointer: "/budget/linesSelected",
				Message: fmt.Sprintf("is %d, over the linesLimit of %d; drop large or less relevant files", bu.LinesSelected, bu.LinesLimit)})
		}
	}
	if len(problems) == 0 {
		return nil
	}
	planSortProblems(problems)
	return &PlanError{Action: ActionSelectFiles, Problems: problems, OverBudget: over}
}

// DecodeWritePlan decodes and validates a memory_ops output: its schema,
// its paths, and the rules the schema cannot say (block only on updates, a
// section only with block MACHINE_BLOCK, no content on a delete). Every
// problem is reported in a *PlanError. A plan that passes may still be
// refused by ApplyPlan (for example an update of the user block, or a
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
				problems = addProblem(problems, Problem{Pointer: at + "/block",
					Message: fmt.Sprintf("is only for type \"update\", this operation is %q; remove block", op.Type)})
			}
			if op.Section != "" && op.Block != MachineBlock {
				problems = addProblem(problems, Problem{Pointer: at + "/section",
					Message: fmt.Sprintf("needs block %q: sections are replaced inside the machine block of MEMORY.md", MachineBlock)})
			}
			if op.Type == OpDelete && op.Content != nil {
				problems = addProblem(problems, Problem{Pointer: at + "/content", Message: "is not used by a delete; remove it"})
			}
		}
	}
	if len(problems) == 0 {
		return nil
	}
	planSortProblems(problems)
	return &PlanError{Action: ActionMemoryOps, Problems: problems}
}
