package memorybank_test

import (
	"context"
	"fmt"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Search ranks the documents of the global bank and every branch bank by
// relevance to a query in any language, with a snippet around the match.
func ExampleBank_Search() {
	ctx := context.Background()
	bank := exampleBank()
	for _, w := range []memorybank.WriteRequest{
		{Scope: memorybank.ScopeGlobal, Path: "auth.md", Text: "# Tokens\n\nAccess tokens expire after 15 minutes; refresh tokens rotate.\n"},
		{Scope: memorybank.ScopeGlobal, Path: "ja/認証.md", Text: "# 認証\n\nリフレッシュトークンは三十日で失効する。\n"},
		{Scope: memorybank.ScopeBranch, Branch: "fix/safari", Path: "notes.md", Text: "Token refresh fails on Safari when cookies are blocked.\n"},
	} {
		if _, err := bank.Write(ctx, w); err != nil {
			panic(err)
		}
	}
	for _, q := range []string{"when do tokens expire", "トークンの失効"} {
		hits, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: q})
		if err != nil {
			panic(err)
		}
		fmt.Println(q)
		for _, h := range hits {
			fmt.Printf("  %s %s %s: %s\n", h.Scope, h.Branch, h.Path, h.Snippet)
		}
	}
	// Output:
	// when do tokens expire
	//   global  auth.md: # Tokens Access tokens expire after 15 minutes; refresh tokens rotate.
	//   branch fix/safari notes.md: Token refresh fails on Safari when cookies are blocked.
	// トークンの失効
	//   global  ja/認証.md: # 認証 リフレッシュトークンは三十日で失効する。
}

// ReadContext keeps to a token budget: with a query, the documents most
// relevant to it follow the core files, and what did not fit is listed.
func ExampleBank_ReadContext_query() {
	ctx := context.Background()
	bank := exampleBank()
	for _, w := range []memorybank.WriteRequest{
		{Scope: memorybank.ScopeGlobal, Path: "core/overview.md", Text: "# Overview\n\nA web shop.\n"},
		{Scope: memorybank.ScopeGlobal, Path: "notes/refunds.md", Text: "# Refunds\n\nPartial refunds need a manager's approval.\n"},
		{Scope: memorybank.ScopeGlobal, Path: "notes/fonts.md", Text: "# Fonts\n\n" + fmt.Sprint(make([]int, 300)) + "\n"},
	} {
		if _, err := bank.Write(ctx, w); err != nil {
			panic(err)
		}
	}
	rc, err := bank.ReadContext(ctx, memorybank.ReadContextRequest{
		IncludeRules: memorybank.Bool(false), IncludeBranchMemory: memorybank.Bool(false),
		Query: "refund approval", MaxTokens: 300,
	})
	if err != nil {
		panic(err)
	}
	for _, p := range []string{"core/overview.md", "notes/refunds.md", "notes/fonts.md"} {
		_, ok := rc.GlobalMemory[p]
		fmt.Println(p, "included:", ok)
	}
	for _, l := range rc.LeftOut {
		fmt.Println("left out:", l.Path, l.Tokens > 100)
	}
	// Output:
	// core/overview.md included: true
	// notes/refunds.md included: true
	// notes/fonts.md included: false
	// left out: notes/fonts.md true
}
