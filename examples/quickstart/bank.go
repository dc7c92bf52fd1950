package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// tourBank walks through the Bank: read_context on a new branch, content
// and patch writes with maintained metadata, refused writes, concurrent
// agents, and tag search.
func tourBank(ctx context.Context, w io.Writer) error {
	clock := time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)
	var mu sync.Mutex
	ids := 0
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{
		Clock: func() time.Time { mu.Lock(); defer mu.Unlock(); clock = clock.Add(time.Second); return clock },
		NewID: func() string { mu.Lock(); defer mu.Unlock(); ids++; return fmt.Sprintf("doc-%d", ids) },
		// Keep each document's history in the store (package history reads it).
		History: history.New(nil),
	})
	const branch = "feature/login"

	// 1. One call gives rules, branch memory and global memory; a new
	// branch bank starts from templates.
	rc, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{Branch: branch, Language: memorybank.English})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "read_context(%q): rules %d bytes, branch files:", branch, len(rc.Rules.Content))
	for _, f := range memorybank.DefaultBranchCoreFiles() {
		fmt.Fprintf(w, " %s", f)
	}
	fmt.Fprintln(w)

	// 2. A patch changes content and tags; version and lastModified follow.
	res, err := bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeBranch, Branch: branch, Path: "activeContext.json",
		Patches: jsonpatch.Patch{
			{Op: "replace", Path: "/content/currentWork", Value: json.RawMessage(`"login form"`)},
			{Op: "add", Path: "/metadata/tags/-", Value: json.RawMessage(`"auth"`)},
		},
	})
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "patched activeContext.json: version %d, tags %v, lastModified %s\n", res.Version, res.Tags, res.LastModified.Format(time.RFC3339))

	// 3. Refused writes change nothing and say why.
	bad := []struct {
		what string
		req  memorybank.WriteRequest
	}{
		{"patch a maintained field", memorybank.WriteRequest{Patches: jsonpatch.Patch{{Op: "replace", Path: "/metadata/version", Value: json.RawMessage(`1`)}}}},
		{"break the schema", memorybank.WriteRequest{Patches: jsonpatch.Patch{{Op: "replace", Path: "/content/nextSteps", Value: json.RawMessage(`"not a list"`)}}}},
		{"stale ifVersion", memorybank.WriteRequest{IfVersion: 1, Patches: jsonpatch.Patch{{Op: "add", Path: "/content/nextSteps/-", Value: json.RawMessage(`"x"`)}}}},
		{"content and patches", memorybank.WriteRequest{Content: json.RawMessage(`{}`), Patches: jsonpatch.Patch{{Op: "remove", Path: "/content/x"}}}},
	}
	for _, b := range bad {
		req := b.req
		req.Scope, req.Branch, req.Path = memorybank.ScopeBranch, branch, "activeContext.json"
		_, err := bank.Write(ctx, req)
		fmt.Fprintf(w, "  %-26s -> %v\n", b.what+":", err)
	}
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature-login", Path: "x.md", Text: "x"})
	fmt.Fprintf(w, "  %-26s -> collision: %v\n", "branch \"feature-login\":", errors.Is(err, memorybank.ErrBranchCollision))

	// 4. Ten agents append to one list at once, without ifVersion: the
	// Bank re-applies their patches on the latest version, nothing is lost.
	var wg sync.WaitGroup
	errs := make([]error, 10)
	for i := range 10 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = bank.Write(ctx, memorybank.WriteRequest{
				Scope: memorybank.ScopeBranch, Branch: branch, Path: "activeContext.json",
				Patches: jsonpatch.Patch{{Op: "add", Path: "/content/nextSteps/-", Value: json.RawMessage(fmt.Sprintf(`"step from agent %d"`, i))}},
			})
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return err
	}
	doc, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeBranch, Branch: branch, Path: "activeContext.json"})
	if err != nil {
		return err
	}
	var env struct {
		Content struct {
			NextSteps []string `json:"nextSteps"`
		} `json:"content"`
	}
	if err := json.Unmarshal(doc.Content, &env); err != nil {
		return err
	}
	fmt.Fprintf(w, "10 concurrent patches: %d next steps, version %d\n", len(env.Content.NextSteps), doc.Version)

	// 5. Markdown documents keep tags in front matter; search finds both
	// banks with real titles.
	if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "core/security.md",
		Text: "# Security policy\n\nTokens expire after 1h.\n", Tags: []string{"auth", "policy"}}); err != nil {
		return err
	}
	hits, err := bank.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"auth"}, Branch: branch})
	if err != nil {
		return err
	}
	for _, h := range hits {
		fmt.Fprintf(w, "search auth: %-6s %-20s %q v%d\n", h.Scope, h.Path, h.Title, h.Version)
	}
	return nil
}
