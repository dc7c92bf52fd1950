package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/memorymd"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

const indexMD = "# Requirements index\n\n| ID | File |\n|----|------|\n| REQ-003 | REQ-003-payment.md |\n"

// writeMemoryBank writes MEMORY.md, an index and an old note to the plan root.
func writeMemoryBank(t *testing.T, b *memorybank.Bank, memory string) {
	t.Helper()
	writeTexts(t, b, planRoot,
		[2]string{"MEMORY.md", memory},
		[2]string{"details/requirements/index.md", indexMD},
		[2]string{"details/old.md", "# obsolete\n"},
	)
}

func readText(t *testing.T, b *memorybank.Bank, p string) string {
	t.Helper()
	return mustRead(t, b, planRoot.Scope, planRoot.Branch, p).Text()
}

func decodePlan(t *testing.T, s string) *plan.WritePlan {
	t.Helper()
	p, err := plan.DecodeWritePlan([]byte(s))
	require.NoError(t, err)
	return p
}

func text(s string) *string { return &s }

// fullPlan is the specification's plan with the content of each write.
const fullPlan = `{
  "schemaVersion": "2.0",
  "action": "memory_ops",
  "operations": [
    {"type": "create", "path": "details/requirements/REQ-004-refund.md", "reason": "用户确认新增退款功能需求",
     "content": "# REQ-004 退款\n\n- 支持部分退款\n- 返金は 7 日以内\n"},
    {"type": "update", "path": "MEMORY.md", "block": "MACHINE_BLOCK", "section": "Current Focus",
     "changes": "更新当前焦点为退款功能", "content": "退款功能（REQ-004）"},
    {"type": "update", "path": "MEMORY.md", "block": "MACHINE_BLOCK", "section": "Next Steps",
     "changes": "添加下一步", "content": "- 写测试\n- テストを書く"},
    {"type": "update", "path": "details/requirements/index.md", "changes": "添加 REQ-004 路由条目",
     "content": "# Requirements index\n\n| ID | File |\n|----|------|\n| REQ-003 | REQ-003-payment.md |\n| REQ-004 | REQ-004-refund.md |\n"},
    {"type": "delete", "path": "details/old.md"}
  ],
  "requiresConfirmation": true
}`

func TestApply(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		for _, eol := range []string{"\n", "\r\n"} {
			t.Run(fmt.Sprintf("%q", eol), func(t *testing.T) {
				b := newBank(store)
				root := plan.Root{Scope: memorybank.ScopeBranch, Branch: "eol-" + fmt.Sprint(len(eol))}
				memory := strings.ReplaceAll(memoryMD, "\n", eol)
				for _, d := range [][2]string{{"MEMORY.md", memory}, {"details/requirements/index.md", indexMD}, {"details/old.md", "# obsolete\n"}} {
					mustWrite(t, b, memorybank.WriteRequest{Scope: root.Scope, Branch: root.Branch, Path: d[0], Text: d[1]})
				}
				wp := decodePlan(t, fullPlan)
				res, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: true})
				require.NoError(t, err)
				assert.Equal(t, []plan.AppliedFile{
					{Path: "details/requirements/REQ-004-refund.md", Type: plan.OpCreate, Version: 1, Operations: []int{0}},
					{Path: "MEMORY.md", Type: plan.OpUpdate, Version: 2, Operations: []int{1, 2}},
					{Path: "details/requirements/index.md", Type: plan.OpUpdate, Version: 2, Operations: []int{3}},
					{Path: "details/old.md", Type: plan.OpDelete, Operations: []int{4}},
				}, res.Files)

				read := func(p string) string { return mustRead(t, b, root.Scope, root.Branch, p).Text() }
				assert.Equal(t, *wp.Operations[0].Content, read("details/requirements/REQ-004-refund.md"))
				assert.Equal(t, *wp.Operations[3].Content, read("details/requirements/index.md"))
				_, err = b.Read(ctx, memorybank.ReadRequest{Scope: root.Scope, Branch: root.Branch, Path: "details/old.md"})
				assert.ErrorIs(t, err, memorybank.ErrNotFound)

				// MEMORY.md: outside the machine block byte for byte, sections updated and added.
				got, err := memorymd.Parse(read("MEMORY.md"))
				require.NoError(t, err)
				old, err := memorymd.Parse(memory)
				require.NoError(t, err)
				ob, oa := old.Outside()
				gb, ga := got.Outside()
				assert.Equal(t, ob, gb)
				assert.Equal(t, oa, ga)
				focus, _ := got.Section("Current Focus")
				assert.Equal(t, "退款功能（REQ-004）", focus)
				next, _ := got.Section("Next Steps")
				assert.Equal(t, "- 写测试"+eol+"- テストを書く", next)
				recent, _ := got.Section("Recent Changes")
				oldRecent, _ := old.Section("Recent Changes")
				assert.Equal(t, oldRecent, recent)

				// Applying the same plan again changes nothing it must not:
				// the create is refused, so nothing is written at all.
				before := snapshot(t, store)
				_, err = plan.Apply(ctx, b, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: true})
				assert.ErrorIs(t, err, memorybank.ErrExists)
				assert.Equal(t, before, snapshot(t, store))
			})
		}
	})
}

func TestApplyConfirmation(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	writeMemoryBank(t, b, memoryMD)
	before := snapshot(t, store)
	wp := decodePlan(t, fullPlan)
	_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: wp})
	assert.ErrorIs(t, err, plan.ErrNotConfirmed)
	assert.Equal(t, before, snapshot(t, store))

	wp.RequiresConfirmation = false
	res, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: wp})
	require.NoError(t, err)
	assert.Len(t, res.Files, 4)
}

func TestApplyRefused(t *testing.T) {
	upd := func(o plan.Operation) plan.Operation {
		o.Type = plan.OpUpdate
		o.Changes = "c"
		return o
	}
	create := plan.Operation{Type: plan.OpCreate, Path: "new.md", Reason: "r", Content: text("# new\n")}
	outsideChanged := strings.Replace(memoryMD, "不要在周五发布！", "周五可以发布", 1)
	blocksRemoved := strings.NewReplacer(memorymd.MachineBlockStart+"\n", "", memorymd.MachineBlockEnd+"\n", "").Replace(memoryMD)
	for _, tc := range []struct {
		name   string
		memory string // MEMORY.md in the store
		ops    []plan.Operation
		index  int // operation reported
		want   error
	}{
		{"update of the user block", memoryMD, []plan.Operation{create,
			upd(plan.Operation{Path: "MEMORY.md", Block: plan.UserBlock, Content: text("AI notes")})}, 1, plan.ErrUserBlock},
		{"whole-file update changing the user block", memoryMD, []plan.Operation{create,
			upd(plan.Operation{Path: "MEMORY.md", Content: &outsideChanged})}, 1, plan.ErrOutsideMachineBlock},
		{"whole-file update removing the markers", memoryMD, []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Content: &blocksRemoved})}, 0, plan.ErrOutsideMachineBlock},
		{"whole-file update appending text", memoryMD, []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Content: text(memoryMD + "\nmore")})}, 0, plan.ErrOutsideMachineBlock},
		{"delete of a document with a user block", memoryMD, []plan.Operation{
			{Type: plan.OpDelete, Path: "MEMORY.md"}}, 0, plan.ErrUserBlock},
		{"section body with a user block marker", memoryMD, []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Block: plan.MachineBlock, Section: "Current Focus",
				Content: text("x\n" + memorymd.UserBlockStart)})}, 0, memorymd.ErrInvalidSection},
		{"machine block content closing the block", memoryMD, []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Block: plan.MachineBlock,
				Content: text("## A\n" + memorymd.MachineBlockEnd + "\nuser text")})}, 0, memorymd.ErrInvalidSection},
		{"section of a document without a machine block", "# plain\n", []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Block: plan.MachineBlock, Section: "A", Content: text("x")})}, 0, memorymd.ErrNoMachineBlock},
		{"malformed blocks in the store", "<!-- MACHINE_BLOCK_START -->\n## A\n", []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Block: plan.MachineBlock, Section: "A", Content: text("x")})}, 0, memorymd.ErrMalformedBlocks},
		{"whole-file update over malformed blocks", "<!-- USER_BLOCK_START -->\nmine\n", []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Content: text("overwritten")})}, 0, memorymd.ErrMalformedBlocks},
		{"create of an existing file", memoryMD, []plan.Operation{
			{Type: plan.OpCreate, Path: "details/old.md", Reason: "r", Content: text("x")}}, 0, memorybank.ErrExists},
		{"update of a missing file", memoryMD, []plan.Operation{
			upd(plan.Operation{Path: "details/ghost.md", Content: text("x")})}, 0, memorybank.ErrNotFound},
		{"delete of a missing file", memoryMD, []plan.Operation{
			create, {Type: plan.OpDelete, Path: "details/ghost.md"}}, 1, memorybank.ErrNotFound},
		{"create without content", memoryMD, []plan.Operation{
			{Type: plan.OpCreate, Path: "details/x.md", Reason: "r"}}, 0, plan.ErrMissingContent},
		{"section update without content", memoryMD, []plan.Operation{
			upd(plan.Operation{Path: "MEMORY.md", Block: plan.MachineBlock, Section: "Current Focus"})}, 0, plan.ErrMissingContent},
		{"update after delete in one plan", memoryMD, []plan.Operation{
			{Type: plan.OpDelete, Path: "details/old.md"}, upd(plan.Operation{Path: "details/old.md", Content: text("x")})}, 1, memorybank.ErrNotFound},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			b := newBank(store)
			writeMemoryBank(t, b, tc.memory)
			before := snapshot(t, store)
			_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Confirmed: true,
				Plan: &plan.WritePlan{Operations: tc.ops, RequiresConfirmation: true}})
			require.Error(t, err)
			assert.ErrorIs(t, err, tc.want)
			var oe *plan.OperationError
			require.True(t, errors.As(err, &oe), "%v", err)
			assert.Equal(t, tc.index, oe.Index)
			assert.Equal(t, tc.ops[tc.index].Path, oe.Path)
			assert.Equal(t, before, snapshot(t, store), "a refused plan writes nothing")
		})
	}
}

func TestApplyInvalid(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	writeMemoryBank(t, b, memoryMD)
	before := snapshot(t, store)
	_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	_, err = plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{
		Operations: []plan.Operation{{Type: plan.OpDelete, Path: "../MEMORY.md"}}}})
	assert.Equal(t, []string{"/operations/0/path"}, planProblems(t, err))
	_, err = plan.Apply(ctx, b, plan.ApplyRequest{Root: plan.Root{Scope: "repo"}, Plan: decodePlan(t, fullPlan), Confirmed: true})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	assert.Equal(t, before, snapshot(t, store))
	// Sections exist only in Markdown documents.
	mustWrite(t, b, memorybank.WriteRequest{Scope: planRoot.Scope, Branch: planRoot.Branch, Path: "notes.json", Content: json.RawMessage(`{"a":1}`)})
	before = snapshot(t, store)
	_, err = plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
		{Type: plan.OpUpdate, Path: "notes.json", Block: plan.MachineBlock, Section: "A", Changes: "c", Content: text("x")}}}})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	assert.Equal(t, before, snapshot(t, store))
}

func TestApplyWholeFileAndJSON(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	writeMemoryBank(t, b, memoryMD)
	// A whole-file update of MEMORY.md may change its machine block only.
	newMemory := strings.Replace(memoryMD, "支付超时问题的排查（决済タイムアウト）", "退款", 1)
	mustWrite(t, b, memorybank.WriteRequest{Scope: planRoot.Scope, Branch: planRoot.Branch, Path: "notes.json", Content: json.RawMessage(`{"a":1}`)})
	res, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
		{Type: plan.OpUpdate, Path: "MEMORY.md", Changes: "rewrite", Content: &newMemory},
		{Type: plan.OpUpdate, Path: "notes.json", Changes: "a=2", Content: text(`{"a":2}`)},
		{Type: plan.OpUpdate, Path: "details/old.md", Changes: "same", Content: text("# obsolete\n")},
	}}})
	require.NoError(t, err)
	assert.Equal(t, newMemory, readText(t, b, "MEMORY.md"))
	assert.JSONEq(t, `{"a":2}`, string(decodeContent(t, mustRead(t, b, planRoot.Scope, planRoot.Branch, "notes.json"))))
	require.Len(t, res.Files, 3)
	assert.True(t, res.Files[2].Unchanged, "an identical update writes nothing")
	assert.Equal(t, int64(1), res.Files[2].Version)

	// Content a JSON document cannot hold is refused before any write.
	before := snapshot(t, store)
	_, err = plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
		{Type: plan.OpCreate, Path: "first.md", Reason: "r", Content: text("written only if all is well")},
		{Type: plan.OpUpdate, Path: "notes.json", Changes: "bad", Content: text(`[1,2]`)}}}})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	assert.Equal(t, before, snapshot(t, store))
}

func decodeContent(t *testing.T, d *memorybank.Document) json.RawMessage {
	t.Helper()
	var e struct {
		Content json.RawMessage `json:"content"`
	}
	require.NoError(t, json.Unmarshal(d.Content, &e))
	return e.Content
}

// hookStore runs hook just before the n-th Get of key, to simulate a
// concurrent writer between a read and a write.
type hookStore struct {
	memorybank.Store
	key  string
	n    int32
	gets atomic.Int32
	hook func()
}

func (s *hookStore) Get(ctx context.Context, key string) (memorybank.Object, error) {
	if key == s.key && s.gets.Add(1) == s.n {
		s.hook()
	}
	return s.Store.Get(ctx, key)
}

func TestApplyConflict(t *testing.T) {
	key := memorybank.BranchPrefix + "feature-refund/MEMORY.md"
	concurrent := func(t *testing.T, other *memorybank.Bank) func() {
		return func() {
			_, err := plan.Apply(ctx, other, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
				{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.MachineBlock, Section: "Recent Changes", Changes: "c", Content: text("- concurrent")}}}})
			require.NoError(t, err)
		}
	}

	t.Run("section updates are recomputed", func(t *testing.T) {
		mem := &memorybank.MemStore{}
		writeMemoryBank(t, newBank(mem), memoryMD)
		hs := &hookStore{Store: mem, key: key, n: 3} // Get 1: Apply reads, Get 2: the check before writing, Get 3: Write reads
		hs.hook = concurrent(t, newBank(mem))
		b := newBank(hs)
		res, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
			{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.MachineBlock, Section: "Current Focus", Changes: "c", Content: text("退款")}}}})
		require.NoError(t, err)
		assert.Equal(t, int64(3), res.Files[0].Version)
		md, err := memorymd.Parse(readText(t, b, "MEMORY.md"))
		require.NoError(t, err)
		focus, _ := md.Section("Current Focus")
		recent, _ := md.Section("Recent Changes")
		assert.Equal(t, "退款", focus)
		assert.Equal(t, "- concurrent", recent, "the concurrent update is kept")
	})

	t.Run("whole-file updates report the conflict", func(t *testing.T) {
		mem := &memorybank.MemStore{}
		writeMemoryBank(t, newBank(mem), memoryMD)
		hs := &hookStore{Store: mem, key: key, n: 3}
		hs.hook = concurrent(t, newBank(mem))
		b := newBank(hs)
		whole := strings.Replace(memoryMD, "支付超时问题的排查（决済タイムアウト）", "退款", 1)
		res, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
			{Type: plan.OpCreate, Path: "a.md", Reason: "r", Content: text("a")},
			{Type: plan.OpUpdate, Path: "MEMORY.md", Changes: "c", Content: &whole}}}})
		var ce *memorybank.ConflictError
		require.True(t, errors.As(err, &ce), "%v", err)
		assert.Equal(t, int64(1), ce.IfVersion)
		assert.Equal(t, int64(2), ce.CurrentVersion)
		var oe *plan.OperationError
		require.True(t, errors.As(err, &oe))
		assert.Equal(t, 1, oe.Index)
		// The file written before the conflict is reported.
		require.NotNil(t, res)
		require.Len(t, res.Files, 1)
		assert.Equal(t, "a.md", res.Files[0].Path)
		assert.Contains(t, readText(t, b, "MEMORY.md"), "- concurrent")
	})
}

func TestApplyConcurrentSections(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	writeMemoryBank(t, b, memoryMD)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			_, errs[i] = plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
				{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.MachineBlock, Section: fmt.Sprintf("Agent %d", i),
					Changes: "c", Content: text(fmt.Sprintf("notes of agent %d", i))}}}})
		})
	}
	wg.Wait()
	for _, err := range errs {
		require.NoError(t, err)
	}
	doc := mustRead(t, b, planRoot.Scope, planRoot.Branch, "MEMORY.md")
	assert.Equal(t, int64(1+n), doc.Version, "one write per plan")
	md, err := memorymd.Parse(doc.Text())
	require.NoError(t, err)
	for i := range n {
		body, ok := md.Section(fmt.Sprintf("Agent %d", i))
		assert.True(t, ok, "section of agent %d lost", i)
		assert.Equal(t, fmt.Sprintf("notes of agent %d", i), body)
	}
	user, _ := md.UserBlock()
	oldMD, _ := memorymd.Parse(memoryMD)
	oldUser, _ := oldMD.UserBlock()
	assert.Equal(t, oldUser, user)
}

func TestApplyCombinesOperationsPerFile(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	writeMemoryBank(t, b, memoryMD)
	res, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
		{Type: plan.OpCreate, Path: "NEW.md", Reason: "r", Content: text("# New\n<!-- MACHINE_BLOCK_START -->\n<!-- MACHINE_BLOCK_END -->\n")},
		{Type: plan.OpUpdate, Path: "NEW.md", Block: plan.MachineBlock, Section: "Current Focus", Changes: "c", Content: text("x")},
		{Type: plan.OpCreate, Path: "tmp.md", Reason: "r", Content: text("t")},
		{Type: plan.OpDelete, Path: "tmp.md"},
	}}})
	require.NoError(t, err)
	assert.Equal(t, []plan.AppliedFile{{Path: "NEW.md", Type: plan.OpCreate, Version: 1, Operations: []int{0, 1}}}, res.Files)
	assert.Equal(t, "# New\n<!-- MACHINE_BLOCK_START -->\n## Current Focus\nx\n<!-- MACHINE_BLOCK_END -->\n", readText(t, b, "NEW.md"))
	_, err = b.Read(ctx, memorybank.ReadRequest{Scope: planRoot.Scope, Branch: planRoot.Branch, Path: "tmp.md"})
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
}

// A plan writes a .json path as the JSON object its content holds (an
// envelope keeps its metadata) and any other path as text, even text that
// looks like JSON.
func TestApplyWritesJSONAsObjectsAndTextAsText(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{Operations: []plan.Operation{
		{Type: plan.OpCreate, Path: "decisions.json", Reason: "r",
			Content: text(`{"schema":"memory_document_v2","metadata":{"title":"Decisions","tags":["adr"]},"content":{"db":"postgres"}}`)},
		{Type: plan.OpCreate, Path: "raw.md", Reason: "r", Content: text(`{"a":1}`)},
	}}})
	require.NoError(t, err)
	d := mustRead(t, b, planRoot.Scope, planRoot.Branch, "decisions.json")
	assert.Equal(t, memorybank.FormatJSON, d.Format)
	assert.Equal(t, "Decisions", d.Title)
	assert.Equal(t, []string{"adr"}, d.Tags)
	assert.JSONEq(t, `{"db":"postgres"}`, string(decodeContent(t, d)))
	assert.Equal(t, `{"a":1}`, readText(t, b, "raw.md"))
}
