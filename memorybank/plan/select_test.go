package plan_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

var planRoot = plan.Root{Scope: memorybank.ScopeBranch, Branch: "feature/refund"}

// nLines returns a Markdown text of n lines, the first being a heading.
func nLines(title string, n int) string {
	var b strings.Builder
	b.WriteString("# " + title + "\n")
	for i := 1; i < n; i++ {
		fmt.Fprintf(&b, "- line %d\n", i)
	}
	return b.String()
}

// writeTexts writes text documents in order (each a second newer than the
// one before, with the test clock).
func writeTexts(t *testing.T, b *memorybank.Bank, root plan.Root, docs ...[2]string) {
	t.Helper()
	for _, d := range docs {
		mustWrite(t, b, memorybank.WriteRequest{Scope: root.Scope, Branch: root.Branch, Path: d[0], Text: d[1]})
	}
}

func TestCountLines(t *testing.T) {
	for text, want := range map[string]int{"": 0, "a": 1, "a\n": 1, "a\nb": 2, "a\n\n": 2, "\n": 1, "a\r\nb\r\n": 2, "支付\n超时": 2} {
		assert.Equal(t, want, plan.CountLines(text), "%q", text)
	}
}

func TestSelectFilesOrder(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		writeTexts(t, b, planRoot,
			[2]string{"old-small.md", nLines("old small", 10)},
			[2]string{"new-small.md", nLines("new small", 10)},
			[2]string{"big.md", nLines("big", 40)},
			[2]string{"relevant-big.md", nLines("relevant big", 200)},
			[2]string{"a-tie.md", nLines("tie", 20)},
			[2]string{"b-tie.md", nLines("tie", 20)},
		)
		// a-tie and b-tie have the same relevance and lines; b-tie is newer.
		sel, err := plan.SelectFiles(ctx, b, planRoot, []plan.Candidate{
			{Path: "big.md", Relevance: 1},
			{Path: "old-small.md", Relevance: 1},
			{Path: "new-small.md", Relevance: 1},
			{Path: "relevant-big.md", Relevance: 3},
			{Path: "b-tie.md", Relevance: 0},
			{Path: "a-tie.md", Relevance: 0},
		}, nil)
		require.NoError(t, err)
		// Relevance first, then fewer lines, then newer.
		assert.Equal(t, []string{"relevant-big.md", "new-small.md", "old-small.md", "big.md", "b-tie.md"}, sel.Files)
		assert.Equal(t, plan.Budget{FilesSelected: 5, FilesLimit: 5, LinesSelected: 280, LinesLimit: 500}, sel.Budget)
		assert.Equal(t, plan.SchemaVersion, sel.SchemaVersion)
		assert.Equal(t, plan.ActionSelectFiles, sel.Action)
		assert.NotEmpty(t, sel.Reason)
		assert.Empty(t, sel.RiskAlerts)
		// The output checks out against the store.
		assert.NoError(t, plan.CheckSelection(ctx, b, planRoot, sel, nil))
	})
}

func TestSelectFilesBudget(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		writeTexts(t, b, planRoot,
			[2]string{"huge.md", nLines("huge", 450)},
			[2]string{"medium.md", nLines("medium", 120)},
			[2]string{"small.md", nLines("small", 30)},
		)
		cands := []plan.Candidate{{Path: "huge.md", Relevance: 2}, {Path: "medium.md", Relevance: 1}, {Path: "small.md", Relevance: 0}}
		sel, err := plan.SelectFiles(ctx, b, planRoot, cands, nil)
		require.NoError(t, err)
		// medium would pass 500 lines after huge: skipped, and small still fits.
		assert.Equal(t, []string{"huge.md", "small.md"}, sel.Files)
		assert.Equal(t, 480, sel.Budget.LinesSelected)

		sel, err = plan.SelectFiles(ctx, b, planRoot, cands, &plan.SelectOptions{FilesLimit: 1, LinesLimit: 200, Reason: "只看小文件"})
		require.NoError(t, err)
		assert.Equal(t, []string{"medium.md"}, sel.Files)
		assert.Equal(t, plan.Budget{FilesSelected: 1, FilesLimit: 1, LinesSelected: 120, LinesLimit: 200}, sel.Budget)
		assert.Equal(t, "只看小文件", sel.Reason)

		// Nothing fits: an empty, valid selection.
		sel, err = plan.SelectFiles(ctx, b, planRoot, cands[:1], &plan.SelectOptions{LinesLimit: 100})
		require.NoError(t, err)
		assert.Empty(t, sel.Files)
		assert.NoError(t, plan.CheckSelection(ctx, b, planRoot, sel, &plan.SelectOptions{LinesLimit: 100}))
	})
}

func TestSelectFilesBadCandidates(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	writeTexts(t, b, planRoot, [2]string{"a.md", "a\n"})
	_, err := plan.SelectFiles(ctx, b, planRoot, []plan.Candidate{{Path: "a.md"}, {Path: "ghost.md"}, {Path: "gone/x.md"}}, nil)
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
	assert.ErrorContains(t, err, `["ghost.md" "gone/x.md"]`)
	_, err = plan.SelectFiles(ctx, b, planRoot, []plan.Candidate{{Path: "a.md"}, {Path: "a.md"}}, nil)
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	_, err = plan.SelectFiles(ctx, b, planRoot, []plan.Candidate{{Path: "../a.md"}}, nil)
	assert.ErrorIs(t, err, memorybank.ErrInvalidPath)
	_, err = plan.SelectFiles(ctx, b, plan.Root{Scope: memorybank.ScopeBranch}, []plan.Candidate{{Path: "a.md"}}, nil)
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	assert.ErrorIs(t, plan.CheckSelection(ctx, b, planRoot, nil, nil), memorybank.ErrInvalidRequest)
}

func TestSelectFilesCountsJSONAsStored(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	root := plan.Root{Scope: memorybank.ScopeGlobal}
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.json",
		Content: json.RawMessage(`{"decisions":["use CAS","keep MEMORY.md user block"],"owner":"платёж"}`)})
	sel, err := plan.SelectFiles(ctx, b, root, []plan.Candidate{{Path: "notes.json"}}, nil)
	require.NoError(t, err)
	// A JSON document counts the lines of its stored, indented form.
	obj, err := store.Get(ctx, memorybank.GlobalPrefix+"notes.json")
	require.NoError(t, err)
	assert.Greater(t, sel.Budget.LinesSelected, 10)
	assert.Equal(t, plan.CountLines(string(obj.Data)), sel.Budget.LinesSelected)
}

func TestCheckSelection(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		writeTexts(t, b, planRoot,
			[2]string{"details/requirements/REQ-003-payment.md", nLines("REQ-003 支付", 120)},
			[2]string{"details/learnings/2024-01-20-payment-timeout.md", nLines("支付超时", 150)},
			[2]string{"details/big.md", nLines("big", 300)},
		)
		// The specification's example claims 270 lines, which is what the store holds.
		sel, err := plan.DecodeFileSelection([]byte(specSelectFiles))
		require.NoError(t, err)
		assert.NoError(t, plan.CheckSelection(ctx, b, planRoot, sel, nil))

		for _, tc := range []struct {
			name     string
			edit     func(s *plan.FileSelection)
			opts     *plan.SelectOptions
			pointers []string
			over     bool
		}{
			{"lines not true", func(s *plan.FileSelection) { s.Budget.LinesSelected = 200 }, nil, []string{"/budget/linesSelected"}, false},
			{"file count not true", func(s *plan.FileSelection) { s.Budget.FilesSelected = 1 }, nil, []string{"/budget/filesSelected"}, false},
			{"limits not the configured ones", func(s *plan.FileSelection) { s.Budget.FilesLimit, s.Budget.LinesLimit = 50, 5000 }, nil,
				[]string{"/budget/filesLimit", "/budget/linesLimit"}, false},
			{"file does not exist", func(s *plan.FileSelection) {
				s.Files = append(s.Files, "details/ghost.md")
				s.Budget.FilesSelected = 3
			}, nil, []string{"/files/2"}, false},
			{"over the line budget", func(s *plan.FileSelection) {
				s.Files = append(s.Files, "details/big.md")
				s.Budget.FilesSelected, s.Budget.LinesSelected = 3, 570
			}, nil, []string{"/files"}, true},
			{"over a configured file limit", func(s *plan.FileSelection) { s.Budget.FilesLimit = 1 },
				&plan.SelectOptions{FilesLimit: 1}, []string{"/files"}, true},
		} {
			t.Run(tc.name, func(t *testing.T) {
				s, err := plan.DecodeFileSelection([]byte(specSelectFiles))
				require.NoError(t, err)
				tc.edit(s)
				err = plan.CheckSelection(ctx, b, planRoot, s, tc.opts)
				require.Error(t, err)
				assert.Equal(t, tc.pointers, planProblems(t, err))
				assert.Equal(t, tc.over, errors.Is(err, plan.ErrOverBudget))
			})
		}

		// An over-budget selection that lies about its counts is caught too.
		s, _ := plan.DecodeFileSelection([]byte(specSelectFiles))
		s.Files = append(s.Files, "details/big.md")
		s.Budget.FilesSelected = 3
		err = plan.CheckSelection(ctx, b, planRoot, s, nil)
		assert.ErrorIs(t, err, plan.ErrOverBudget)
		assert.Equal(t, []string{"/budget/linesSelected", "/files"}, planProblems(t, err))
	})
}

func TestRiskAlerts(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	writeTexts(t, b, planRoot,
		[2]string{"details/learnings/2024-01-20-payment-timeout.md", "# 支付超时\n第三方网关响应超过 30 秒。\n"},
		[2]string{"details/learnings/2024-02-01-login.md", "# ログイン\nセッション切れ\n"},
		[2]string{"details/requirements/REQ-003-payment.md", "# 支付需求\n"},
	)
	files := []string{"details/learnings/2024-01-20-payment-timeout.md", "details/learnings/2024-02-01-login.md",
		"details/requirements/REQ-003-payment.md", "details/ghost.md"}
	alerts, err := plan.RiskAlerts(ctx, b, planRoot, files, []plan.RiskMarker{
		{PathPrefix: "details/learnings/", Terms: []string{"退款", "超时"}},
		{PathPrefix: "details/learnings/", Terms: []string{"ＰＡＹＭＥＮＴ"}, Level: plan.RiskInfo, Message: "历史上支付模块有超时问题，建议查看"},
	})
	require.NoError(t, err)
	assert.Equal(t, []plan.RiskAlert{
		{Level: plan.RiskWarning, File: files[0], Message: `its content mentions "超时", a known risk; review it`},
		{Level: plan.RiskInfo, File: files[0], Message: "历史上支付模块有超时问题，建议查看"},
		{Level: plan.RiskError, File: files[3], Message: `"details/ghost.md" does not exist in the branch bank of "feature/refund"; remove it from the selection`},
	}, alerts)

	// A marker without terms flags everything under its prefix; the alerts
	// come with SelectFiles.
	sel, err := plan.SelectFiles(ctx, b, planRoot, []plan.Candidate{{Path: files[1]}, {Path: files[2]}},
		&plan.SelectOptions{RiskMarkers: []plan.RiskMarker{{PathPrefix: "details/learnings/"}}})
	require.NoError(t, err)
	require.Len(t, sel.RiskAlerts, 1)
	assert.Equal(t, files[1], sel.RiskAlerts[0].File)
	assert.Equal(t, plan.RiskWarning, sel.RiskAlerts[0].Level)
}
