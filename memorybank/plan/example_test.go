package plan_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

// planExampleBank is a Bank with a fixed clock holding a small Markdown
// memory bank for the branch "feature/refund".
func planExampleBank() (*memorybank.Bank, plan.Root) {
	ctx := context.Background()
	clock := time.Date(2024, 1, 22, 9, 0, 0, 0, time.UTC)
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{
		Clock: func() time.Time { clock = clock.Add(time.Minute); return clock },
		NewID: func() string { return "doc" },
	})
	root := plan.Root{Scope: memorybank.ScopeBranch, Branch: "feature/refund"}
	for _, d := range [][2]string{
		{"MEMORY.md", "# 项目记忆\n<!-- MACHINE_BLOCK_START -->\n## Current Focus\n支付超时\n<!-- MACHINE_BLOCK_END -->\n<!-- USER_BLOCK_START -->\n周五不发布\n<!-- USER_BLOCK_END -->\n"},
		{"details/requirements/REQ-003-payment.md", "# REQ-003 支付\n- 30 秒超时\n- 重试 3 次\n"},
		{"details/learnings/2024-01-20-payment-timeout.md", "# 支付超时\n网关响应超过 30 秒。\n"},
		{"details/learnings/2023-12-01-ui.md", "# UI\n按钮颜色\n"},
	} {
		if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: root.Scope, Branch: root.Branch, Path: d[0], Text: d[1]}); err != nil {
			panic(err)
		}
	}
	return bank, root
}

// Selecting files for a request: relevance first, then smaller, then newer
// files, within 5 files and 500 lines; lines are counted from the store.
func ExampleSelectFiles() {
	ctx := context.Background()
	bank, root := planExampleBank()
	sel, err := plan.SelectFiles(ctx, bank, root, []plan.Candidate{
		{Path: "details/requirements/REQ-003-payment.md", Relevance: 2},
		{Path: "details/learnings/2024-01-20-payment-timeout.md", Relevance: 2},
		{Path: "details/learnings/2023-12-01-ui.md", Relevance: 0},
	}, &plan.SelectOptions{
		FilesLimit: 2,
		Reason:     "用户讨论支付超时",
		RiskMarkers: []plan.RiskMarker{{PathPrefix: "details/learnings/", Terms: []string{"超时"},
			Message: "历史上支付模块有超时问题，建议查看"}},
	})
	if err != nil {
		panic(err)
	}
	out, _ := json.MarshalIndent(sel, "", "  ")
	fmt.Println(string(out))
	// Output:
	// {
	//   "schemaVersion": "2.0",
	//   "action": "select_files",
	//   "files": [
	//     "details/learnings/2024-01-20-payment-timeout.md",
	//     "details/requirements/REQ-003-payment.md"
	//   ],
	//   "reason": "用户讨论支付超时",
	//   "budget": {
	//     "filesSelected": 2,
	//     "filesLimit": 2,
	//     "linesSelected": 5,
	//     "linesLimit": 500
	//   },
	//   "riskAlerts": [
	//     {
	//       "level": "warning",
	//       "file": "details/learnings/2024-01-20-payment-timeout.md",
	//       "message": "历史上支付模块有超时问题，建议查看"
	//     }
	//   ]
	// }
}

// Checking a model's select_files output against the store: every problem
// comes with its JSON Pointer.
func ExampleCheckSelection() {
	ctx := context.Background()
	bank, root := planExampleBank()
	sel, err := plan.DecodeFileSelection([]byte(`{
	  "schemaVersion": "2.0", "action": "select_files",
	  "files": ["details/requirements/REQ-003-payment.md", "details/requirements/REQ-009.md"],
	  "reason": "支付",
	  "budget": {"filesSelected": 2, "filesLimit": 5, "linesSelected": 40, "linesLimit": 500}
	}`))
	if err != nil {
		panic(err)
	}
	err = plan.CheckSelection(ctx, bank, root, sel, nil)
	var pe *plan.Error
	if errors.As(err, &pe) {
		for _, p := range pe.Problems {
			fmt.Println(p.Pointer, "-", p.Message)
		}
	}
	// Output:
	// /files/1 - "details/requirements/REQ-009.md" does not exist in the branch bank of "feature/refund"
}

// Decoding validates against the embedded JSON Schema and the plan rules.
func ExampleDecodeWritePlan() {
	_, err := plan.DecodeWritePlan([]byte(`{"schemaVersion": "2.0", "action": "memory_ops",
	  "operations": [{"type": "update", "path": "MEMORY.md", "section": "Current Focus", "changes": "退款"},
	                 {"type": "create", "path": "../escape.md"}],
	  "requiresConfirmation": true}`))
	var pe *plan.Error
	if errors.As(err, &pe) {
		for _, p := range pe.Problems {
			fmt.Println(p.Pointer, "-", p.Message)
		}
	}
	// Output:
	// /operations/0/section - needs block "MACHINE_BLOCK": sections are replaced inside the machine block of MEMORY.md
	// /operations/1/path - "../escape.md": segment ".." is not allowed; paths are relative to the memory bank root, e.g. "MEMORY.md" or "details/learnings/2024-01-20-payment-timeout.md"
	// /operations/1/reason - reason is required
}

// The confirmation text the user sees, and their answer.
func ExampleWritePlan_Confirmation() {
	wp := &plan.WritePlan{Operations: []plan.Operation{
		{Type: plan.OpCreate, Path: "details/requirements/REQ-004-refund.md", Reason: "退款功能需求"},
		{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.MachineBlock, Section: "Current Focus", Changes: "更新 Current Focus"},
		{Type: plan.OpDelete, Path: "details/old.md"},
	}, RequiresConfirmation: true}
	zh, _ := wp.Confirmation(memorybank.Chinese)
	fmt.Println(zh)
	en, _ := wp.Confirmation(memorybank.English)
	fmt.Println(en)

	for _, answer := range []string{"", "はい", "不用", "maybe"} {
		ok, err := plan.ParseAnswer(answer)
		fmt.Printf("%q: %v %v\n", answer, ok, errors.Is(err, plan.ErrUnclearAnswer))
	}
	// Output:
	// [Memory Bank 更新计划]
	// - 创建: details/requirements/REQ-004-refund.md（退款功能需求）
	// - 更新: MEMORY.md（更新 Current Focus）
	// - 删除: details/old.md
	//
	// 是否执行？[Y/n]
	// [Memory Bank update plan]
	// - Create: details/requirements/REQ-004-refund.md (退款功能需求)
	// - Update: MEMORY.md (更新 Current Focus)
	// - Delete: details/old.md
	//
	// Apply these changes? [Y/n]
	// "": true false
	// "はい": true false
	// "不用": false false
	// "maybe": false true
}

// Applying a confirmed plan: sections of the machine block are replaced,
// the user block is never written.
func ExampleApply() {
	ctx := context.Background()
	bank, root := planExampleBank()
	wp, err := plan.DecodeWritePlan([]byte(`{"schemaVersion": "2.0", "action": "memory_ops",
	  "operations": [
	    {"type": "update", "path": "MEMORY.md", "block": "MACHINE_BLOCK", "section": "Current Focus",
	     "changes": "更新当前焦点为退款功能", "content": "退款功能"}],
	  "requiresConfirmation": true}`))
	if err != nil {
		panic(err)
	}
	confirmed, _ := plan.ParseAnswer("Y")
	res, err := plan.Apply(ctx, bank, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: confirmed})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Files[0].Path, "version", res.Files[0].Version)
	doc, _ := bank.Read(ctx, memorybank.ReadRequest{Scope: root.Scope, Branch: root.Branch, Path: "MEMORY.md"})
	fmt.Print(doc.Text())

	wp.Operations[0] = plan.Operation{Type: plan.OpUpdate, Path: "MEMORY.md", Block: plan.UserBlock, Changes: "整理笔记"}
	_, err = plan.Apply(ctx, bank, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: true})
	fmt.Println(errors.Is(err, plan.ErrUserBlock))
	// Output:
	// MEMORY.md version 2
	// # 项目记忆
	// <!-- MACHINE_BLOCK_START -->
	// ## Current Focus
	// 退款功能
	// <!-- MACHINE_BLOCK_END -->
	// <!-- USER_BLOCK_START -->
	// 周五不发布
	// <!-- USER_BLOCK_END -->
	// true
}
