package memorybank_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// exampleBank is a Bank on a MemStore with a fixed clock and ids, so the
// examples print the same output every time.
func exampleBank() *memorybank.Bank {
	clock := time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)
	return memorybank.New(&memorybank.MemStore{}, &memorybank.Options{
		Clock: func() time.Time { clock = clock.Add(time.Minute); return clock },
		NewID: func() string { return "doc-1" },
	})
}

// A full write with content: the Bank fills in the metadata it maintains
// and validates the document against the schema of its documentType.
func ExampleBank_Write_content() {
	ctx := context.Background()
	bank := exampleBank()
	res, err := bank.Write(ctx, memorybank.WriteRequest{
		Scope:  memorybank.ScopeBranch,
		Branch: "feature/login",
		Path:   "progress.json",
		Content: json.RawMessage(`{"schema": "memory_document_v2",
			"metadata": {"title": "Progress", "documentType": "progress", "tags": ["core", "progress"]},
			"content": {"status": "form done", "knownIssues": []}}`),
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(res.Path, "version", res.Version, "created", res.Created)

	doc, _ := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "progress.json"})
	fmt.Println(string(doc.Content))

	// A document that does not match its schema is refused, problem by problem.
	_, err = bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "progress.json",
		Content: json.RawMessage(`{"status": 42}`),
	})
	var ve *memorybank.ValidationError
	if errors.As(err, &ve) {
		fmt.Println(ve.Problems[0].Pointer, "-", ve.Problems[0].Message)
	}
	// Output:
	// progress.json version 1 created true
	// {"schema":"memory_document_v2","metadata":{"id":"doc-1","title":"Progress","documentType":"progress","path":"progress.json","tags":["core","progress"],"lastModified":"2025-03-17T09:01:00.000Z","createdAt":"2025-03-17T09:01:00.000Z","version":1},"content":{"status":"form done","knownIssues":[]}}
	// /content/status - Invalid type. Expected: string, given: integer
}

// A partial write with an RFC 6902 patch, applied to the whole envelope:
// content and tags change, version and lastModified follow, and fields the
// Bank maintains cannot be patched.
func ExampleBank_Write_patches() {
	ctx := context.Background()
	bank := exampleBank()
	_, _ = bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: "decisions.json",
		Content: json.RawMessage(`{"decisions": ["use PostgreSQL"]}`),
	})
	res, err := bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: "decisions.json",
		Patches: jsonpatch.Patch{
			{Op: "add", Path: "/content/decisions/-", Value: json.RawMessage(`"use JSON Patch for updates"`)},
			{Op: "add", Path: "/metadata/tags/-", Value: json.RawMessage(`"architecture"`)},
		},
		IfVersion: 1, // fail with a *ConflictError if someone wrote in between
	})
	if err != nil {
		panic(err)
	}
	fmt.Println("version", res.Version, "tags", res.Tags, "at", res.LastModified.Format(time.TimeOnly))

	_, err = bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: "decisions.json",
		Patches: jsonpatch.Patch{{Op: "replace", Path: "/metadata/version", Value: json.RawMessage(`1`)}},
	})
	fmt.Println(errors.Is(err, memorybank.ErrForbiddenPatch))

	_, err = bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: "missing.json",
		Patches: jsonpatch.Patch{{Op: "add", Path: "/content/x", Value: json.RawMessage(`1`)}},
	})
	fmt.Println(errors.Is(err, memorybank.ErrNotFound))
	// Output:
	// version 2 tags [architecture] at 09:02:00
	// true
	// true
}

// ReadContext returns rules, branch memory and global memory in one call.
// A new branch bank is created from templates in the requested language.
func ExampleBank_ReadContext() {
	ctx := context.Background()
	bank := exampleBank()
	_, _ = bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: "tech-stack.md",
		Text: ("# Tech stack\n\nGo 1.25, PostgreSQL.\n"), Tags: []string{"core", "tech-stack"},
	})
	res, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{
		Branch:       "feature/login",
		Language:     memorybank.English,
		IncludeRules: memorybank.Bool(false),
	})
	if err != nil {
		panic(err)
	}
	for _, f := range memorybank.DefaultBranchCoreFiles() {
		fmt.Println("branch:", f, res.BranchMemory[f].Tags)
	}
	tech := res.GlobalMemory["tech-stack.md"]
	out, _ := json.Marshal(tech)
	fmt.Println("global:", string(out))
	// Output:
	// branch: branchContext.json [core branch-context]
	// branch: activeContext.json [core active-context]
	// branch: systemPatterns.json [core system-patterns]
	// branch: progress.json [core progress]
	// global: {"path":"tech-stack.md","content":"# Tech stack\n\nGo 1.25, PostgreSQL.\n","tags":["core","tech-stack"],"lastModified":"2025-03-17T09:01:00Z"}
}

// SearchByTags finds documents of both banks by tag, with real titles.
func ExampleBank_SearchByTags() {
	ctx := context.Background()
	bank := exampleBank()
	_, _ = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "auth.md",
		Text: ("# Auth policy\n"), Tags: []string{"auth", "policy"}})
	_, _ = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "main", Path: "login.json",
		Content: json.RawMessage(`{"schema":"memory_document_v2","metadata":{"title":"Login flow","documentType":"design"},"content":{"steps":3}}`),
		Tags:    []string{"auth"}})
	hits, _ := bank.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"auth"}, Branch: "main"})
	for _, h := range hits {
		fmt.Println(h.Scope, h.Path, h.Title)
	}
	// Output:
	// branch login.json Login flow
	// global auth.md Auth policy
}
