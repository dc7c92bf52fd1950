package plan

import (
	"bytes"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Candidate is a file a selector may pick, with the caller's relevance.
type Candidate struct {
	Path string `json:"path"` // relative to the Root
	// Relevance orders candidates, higher first. It is compared exactly, so
	// use coarse grades (for example 0 to 3): among equally relevant files
	// the smaller, then the more recently modified, wins.
	Relevance int `json:"relevance"`
}

// SelectOptions configure SelectFiles and CheckSelection. nil gives the
// defaults.
type SelectOptions struct {
	FilesLimit int // default DefaultFilesLimit (5)
	LinesLimit int // default DefaultLinesLimit (500)
	// Reason is the reason of the selection; default a description of how
	// it was made.
	Reason string
	// RiskMarkers produce warning alerts for selected files (see RiskAlerts).
	RiskMarkers []RiskMarker
}

func (o *SelectOptions) limits() (files, lines int) {
	files, lines = DefaultFilesLimit, DefaultLinesLimit
	if o != nil && o.FilesLimit > 0 {
		files = o.FilesLimit
	}
	if o != nil && o.LinesLimit > 0 {
		lines = o.LinesLimit
	}
	return files, lines
}

// RiskMarker is a known risk: a selected file under PathPrefix whose path
// or content mentions one of Terms gets an alert. Terms match ignoring
// case and full-width/half-width differences; no Terms means every file
// under PathPrefix matches. An empty PathPrefix matches every path.
type RiskMarker struct {
	PathPrefix string    `json:"pathPrefix,omitempty"` // e.g. "details/learnings/"
	Terms      []string  `json:"terms,omitempty"`      // e.g. the words of the request
	Level      RiskLevel `json:"level,omitempty"`      // default RiskWarning
	Message    string    `json:"message,omitempty"`    // default: says which term matched where
}

// CountLines counts the lines of a text as a reader sees them: every line
// ending ends a line, and a last line without one counts too. "" has 0
// lines, "a" and "a\n" have 1, "a\n\n" has 2.
func CountLines(text string) int {
	n := strings.Count(text, "\n")
	if text != "" && !strings.HasSuffix(text, "\n") {
		n++
	}
	return n
}

// planDocText is the text of a document as an agent reads it: the text of a
// text document (without the front matter the Bank keeps), or the
// canonical envelope of a JSON document indented by two spaces, as stored.
func planDocText(d *memorybank.Document) string {
	if d.Format == memorybank.FormatText {
		return d.Text()
	}
	var out bytes.Buffer
	if json.Indent(&out, d.Content, "", "  ") != nil {
		return string(d.Content)
	}
	return out.String()
}

// planFileInfo is what selection needs of a stored document.
type planFileInfo struct {
	text    string
	lines   int
	mod     time.Time
	exists  bool
	version int64
	format  memorybank.Format
}

func readFile(ctx context.Context, b *memorybank.Bank, root Root, p string) (planFileInfo, error) {
	d, err := b.Read(ctx, memorybank.ReadRequest{Scope: root.Scope, Branch: root.Branch, Path: p})
	if errors.Is(err, memorybank.ErrNotFound) {
		return planFileInfo{format: formatOf(p)}, nil
	}
	if err != nil {
		return planFileInfo{}, err
	}
	t := planDocText(d)
	return planFileInfo{text: t, lines: CountLines(t), mod: d.LastModified, exists: true, version: d.Version, format: d.Format}, nil
}

// SelectFiles picks files from candidates within the budget and returns
// the select_files output, with lines counted from the store and risk
// alerts from opts.RiskMarkers.
//
// Order: relevance (higher first), then fewer lines, then more recently
// modified, then path. Candidates are taken greedily in that order; one
// that would exceed a limit is skipped and the next is tried, so a smaller
// file can still fill the rest of the budget. Every candidate must exist:
// missing ones are an error (memorybank.ErrNotFound) naming them, as are
// invalid (memorybank.ErrInvalidPath) and repeated
// (memorybank.ErrInvalidRequest) paths.
func SelectFiles(ctx context.Context, b *memorybank.Bank, root Root, candidates []Candidate, opts *SelectOptions) (*FileSelection, error) {
	filesLimit, linesLimit := opts.limits()
	type cand struct {
		Candidate
		planFileInfo
	}
	cs := make([]cand, 0, len(candidates))
	var missing []string
	seen := map[string]bool{}
	for _, c := range candidates {
		if seen[c.Path] {
			return nil, invalidRequest("candidate %q is listed twice", c.Path)
		}
		seen[c.Path] = true
		if err := memorybank.ValidatePath(c.Path); err != nil {
			return nil, err
		}
		fi, err := readFile(ctx, b, root, c.Path)
		if err != nil {
			return nil, err
		}
		if !fi.exists {
			missing = append(missing, c.Path)
			continue
		}
		cs = append(cs, cand{c, fi})
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("%w: candidates %q do not exist in the %s; list the bank and pass existing paths",
			memorybank.ErrNotFound, missing, root.describe())
	}
	slices.SortFunc(cs, func(x, y cand) int {
		return cmp.Or(
			cmp.Compare(y.Relevance, x.Relevance),
			cmp.Compare(x.lines, y.lines),
			y.mod.Compare(x.mod),
			strings.Compare(x.Path, y.Path))
	})
	sel := &FileSelection{SchemaVersion: SchemaVersion, Action: ActionSelectFiles, Files: []string{}}
	lines := 0
	for _, c := range cs {
		if len(sel.Files) == filesLimit {
			break
		}
		if lines+c.lines > linesLimit {
			continue
		}
		sel.Files = append(sel.Files, c.Path)
		lines += c.lines
	}
	sel.Budget = Budget{FilesSelected: len(sel.Files), FilesLimit: filesLimit, LinesSelected: lines, LinesLimit: linesLimit}
	sel.Reason = fmt.Sprintf("selected %d of %d candidates by relevance, then fewer lines, then newer, within %d files and %d lines",
		len(sel.Files), len(cs), filesLimit, linesLimit)
	var markers []RiskMarker
	if opts != nil {
		markers = opts.RiskMarkers
		if opts.Reason != "" {
			sel.Reason = opts.Reason
		}
	}
	alerts, err := RiskAlerts(ctx, b, root, sel.Files, markers)
	if err != nil {
		return nil, err
	}
	sel.RiskAlerts = alerts
	return sel, nil
}

// CheckSelection checks a select_files output against the store: it must
// be valid (as DecodeFileSelection checks), every file must exist, its
// limits must be the configured ones (opts, default 5 files and 500
// lines), its counts must be the true counts (lines counted from the store
// as SelectFiles counts them), and the selection must stay within the
// limits. Every problem is reported in a *Error, which also matches
// ErrOverBudget when a limit is exceeded. Other errors are the store's.
func CheckSelection(ctx context.Context, b *memorybank.Bank, root Root, sel *FileSelection, opts *SelectOptions) error {
	if sel == nil {
		return invalidRequest("check selection: selection is missing")
	}
	if err := sel.validate(false); err != nil {
		return err
	}
	filesLimit, linesLimit := opts.limits()
	var problems []memorybank.Problem
	over := false
	bu := sel.Budget
	if bu.FilesLimit != filesLimit {
		problems = append(problems, memorybank.Problem{Pointer: "/budget/filesLimit", Message: fmt.Sprintf("is %d but the limit is %d", bu.FilesLimit, filesLimit)})
	}
	if bu.LinesLimit != linesLimit {
		problems = append(problems, memorybank.Problem{Pointer: "/budget/linesLimit", Message: fmt.Sprintf("is %d but the limit is %d", bu.LinesLimit, linesLimit)})
	}
	if bu.FilesSelected != len(sel.Files) {
		problems = append(problems, memorybank.Problem{Pointer: "/budget/filesSelected",
			Message: fmt.Sprintf("is %d but files lists %d paths", bu.FilesSelected, len(sel.Files))})
	}
	if len(sel.Files) > filesLimit {
		over = true
		problems = append(problems, memorybank.Problem{Pointer: "/files",
			Message: fmt.Sprintf("selects %d files, over the limit of %d; drop the least relevant", len(sel.Files), filesLimit)})
	}
	lines, allExist := 0, true
	for i, f := range sel.Files {
		fi, err := readFile(ctx, b, root, f)
		if err != nil {
			return err
		}
		if !fi.exists {
			allExist = false
			problems = append(problems, memorybank.Problem{Pointer: fmt.Sprintf("/files/%d", i),
				Message: fmt.Sprintf("%q does not exist in the %s", f, root.describe())})
			continue
		}
		lines += fi.lines
	}
	if allExist && bu.LinesSelected != lines {
		problems = append(problems, memorybank.Problem{Pointer: "/budget/linesSelected",
			Message: fmt.Sprintf("is %d but the selected files have %d lines", bu.LinesSelected, lines)})
	}
	if lines > linesLimit {
		over = true
		problems = append(problems, memorybank.Problem{Pointer: "/files",
			Message: fmt.Sprintf("the selected files have %d lines, over the limit of %d; drop large or less relevant files", lines, linesLimit)})
	}
	if len(problems) == 0 {
		return nil
	}
	planSortProblems(problems)
	return &Error{Action: ActionSelectFiles, Problems: problems, OverBudget: over}
}

// RiskAlerts returns the alerts for a list of selected files, in file
// order: an error alert for each file that does not exist, and for each
// existing file one alert (default level warning) per marker it matches.
func RiskAlerts(ctx context.Context, b *memorybank.Bank, root Root, files []string, markers []RiskMarker) ([]RiskAlert, error) {
	alerts := []RiskAlert{}
	for _, f := range files {
		if err := memorybank.ValidatePath(f); err != nil {
			alerts = append(alerts, RiskAlert{Level: RiskError, File: f, Message: err.Error()})
			continue
		}
		fi, err := readFile(ctx, b, root, f)
		if err != nil {
			return nil, err
		}
		if !fi.exists {
			alerts = append(alerts, RiskAlert{Level: RiskError, File: f,
				Message: fmt.Sprintf("%q does not exist in the %s; remove it from the selection", f, root.describe())})
			continue
		}
		for _, m := range markers {
			if a, ok := m.match(f, fi.text); ok {
				alerts = append(alerts, a)
			}
		}
	}
	return alerts, nil
}

func (m RiskMarker) match(p, text string) (RiskAlert, bool) {
	if !strings.HasPrefix(p, m.PathPrefix) {
		return RiskAlert{}, false
	}
	level := m.Level
	if level == "" {
		level = RiskWarning
	}
	alert := RiskAlert{Level: level, File: p, Message: m.Message}
	if len(m.Terms) == 0 {
		if alert.Message == "" {
			alert.Message = fmt.Sprintf("%q is under %q, a known risk; review it", p, m.PathPrefix)
		}
		return alert, true
	}
	fp, ft := planFold(p), planFold(text)
	for _, t := range m.Terms {
		ff := planFold(strings.TrimSpace(t))
		if ff == "" {
			continue
		}
		where := ""
		switch {
		case strings.Contains(fp, ff):
			where = "its name"
		case strings.Contains(ft, ff):
			where = "its content"
		default:
			continue
		}
		if alert.Message == "" {
			alert.Message = fmt.Sprintf("%s mentions %q, a known risk; review it", where, t)
		}
		return alert, true
	}
	return RiskAlert{}, false
}

// planFold folds full-width ASCII and the ideographic space to half-width
// and lowers the case, so "ＰＡＹ" matches "pay".
func planFold(s string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 0xFF01 && r <= 0xFF5E:
			r -= 0xFF01 - 0x21
		case r == 0x3000:
			r = ' '
		}
		return unicode.ToLower(r)
	}, s)
}
