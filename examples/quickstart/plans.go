package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/memorymd"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

// tourPlans shows package plan, the structured outputs an agent produces
// over a Markdown memory bank: a budgeted file selection with risk alerts, a check of a model's
// selection, and a write plan confirmed by the user and applied without
// touching the user block of MEMORY.md.
func tourPlans(ctx context.Context, w io.Writer) error {
	clock := time.Date(2024, 1, 22, 9, 0, 0, 0, time.UTC)
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{
		Clock: func() time.Time { clock = clock.Add(time.Minute); return clock },
		NewID: func() string { return "doc" },
	})
	root := plan.Root{Scope: memorybank.ScopeBranch, Branch: "feature/refund"}
	memory := "# 项目记忆\n\n<!-- MACHINE_BLOCK_START -->\n## Current Focus\n支付超时\n<!-- MACHINE_BLOCK_END -->\n\n" +
		"<!-- USER_BLOCK_START -->\n- 周五不发布 / 金曜日はリリースしない\n<!-- USER_BLOCK_END -->\n"
	for _, d := range [][2]string{
		{"MEMORY.md", memory},
		{"details/requirements/REQ-003-payment.md", "# REQ-003 支付\n" + strings.Repeat("- 规则\n", 119)},
		{"details/learnings/2024-01-20-payment-timeout.md", "# 支付超时\n网关响应超过 30 秒。\n" + strings.Repeat("- 记录\n", 148)},
		{"details/design/big-diagram.md", "# 架构图\n" + strings.Repeat("|  |\n", 449)},
	} {
		if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: root.Scope, Branch: root.Branch, Path: d[0], Text: d[1]}); err != nil {
			return err
		}
	}
	fmt.Fprintln(w, `Plan paths are relative to one bank (here the branch bank of "feature/refund").`)

	fmt.Fprintln(w, "\n1. plan.SelectFiles picks within 5 files / 500 lines: relevance, then smaller, then newer.")
	sel, err := plan.SelectFiles(ctx, bank, root, []plan.Candidate{
		{Path: "details/design/big-diagram.md", Relevance: 2},
		{Path: "details/requirements/REQ-003-payment.md", Relevance: 2},
		{Path: "details/learnings/2024-01-20-payment-timeout.md", Relevance: 1},
	}, &plan.SelectOptions{
		Reason:      "用户讨论支付超时，加载相关需求和历史 bug 经验",
		RiskMarkers: []plan.RiskMarker{{PathPrefix: "details/learnings/", Terms: []string{"超时"}}},
	})
	if err != nil {
		return err
	}
	out, _ := json.MarshalIndent(sel, "   ", "  ")
	fmt.Fprintln(w, "  ", string(out))
	fmt.Fprintln(w, "   big-diagram.md (450 lines) was skipped: after REQ-003 it would pass 500 lines; the next one still fits.")

	fmt.Fprintln(w, "\n2. plan.CheckSelection holds a model's output to the store: true counts, limits, existing files.")
	claimed, err := plan.DecodeFileSelection([]byte(`{"schemaVersion": "2.0", "action": "select_files",
	  "files": ["details/design/big-diagram.md", "details/requirements/REQ-003-payment.md"],
	  "reason": "全部加载", "budget": {"filesSelected": 2, "filesLimit": 5, "linesSelected": 300, "linesLimit": 500}}`))
	if err != nil {
		return err
	}
	err = plan.CheckSelection(ctx, bank, root, claimed, nil)
	var pe *plan.Error
	if !errors.As(err, &pe) {
		return fmt.Errorf("expected a *plan.Error, got %v", err)
	}
	fmt.Fprintf(w, "   over budget: %v\n", errors.Is(err, plan.ErrOverBudget))
	for _, p := range pe.Problems {
		fmt.Fprintf(w, "   %s: %s\n", p.Pointer, p.Message)
	}

	fmt.Fprintln(w, "\n3. A memory_ops plan from the model is decoded against its JSON Schema and shown for confirmation.")
	wp, err := plan.DecodeWritePlan([]byte(`{"schemaVersion": "2.0", "action": "memory_ops", "operations": [
	    {"type": "create", "path": "details/requirements/REQ-004-refund.md", "reason": "退款功能需求",
	     "content": "# REQ-004 退款\n- 支持部分退款\n"},
	    {"type": "update", "path": "MEMORY.md", "block": "MACHINE_BLOCK", "section": "Current Focus",
	     "changes": "更新 Current Focus", "content": "退款功能（REQ-004）"}],
	  "requiresConfirmation": true}`))
	if err != nil {
		return err
	}
	text, err := wp.Confirmation(memorybank.Chinese)
	if err != nil {
		return err
	}
	fmt.Fprintln(w, indentLines(text, "   | "))
	answer := "好"
	ok, err := plan.ParseAnswer(answer)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "   user answers %q -> confirmed %v\n", answer, ok)
	res, err := plan.Apply(ctx, bank, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: ok})
	if err != nil {
		return err
	}
	for _, f := range res.Files {
		fmt.Fprintf(w, "   %s %s -> version %d\n", f.Type, f.Path, f.Version)
	}
	doc, err := bank.Read(ctx, memorybank.ReadRequest{Scope: root.Scope, Branch: root.Branch, Path: "MEMORY.md"})
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "   MEMORY.md now (everything outside the machine block byte for byte as before):")
	fmt.Fprintln(w, indentLines(strings.TrimSuffix(doc.Text(), "\n"), "   | "))
	md, err := memorymd.Parse(doc.Text())
	if err != nil {
		return err
	}
	focus, _ := md.Section("Current Focus")
	user, _ := md.UserBlock()
	fmt.Fprintf(w, "   memorymd reads it: Current Focus %q, user block %q\n", focus, user)

	fmt.Fprintln(w, "\n4. A plan that touches the user block is refused, and nothing is written.")
	_, err = plan.Apply(ctx, bank, plan.ApplyRequest{Root: root, Confirmed: true, Plan: &plan.WritePlan{
		Operations: []plan.Operation{{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.UserBlock, Changes: "整理用户笔记"}},
	}})
	fmt.Fprintf(w, "   ErrUserBlock: %v\n   %v\n", errors.Is(err, plan.ErrUserBlock), err)
	return nil
}

func indentLines(s, prefix string) string {
	return prefix + strings.ReplaceAll(s, "\n", "\n"+prefix)
}
