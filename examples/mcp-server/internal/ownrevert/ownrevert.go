// Package ownrevert is the rule for who may revert a document, shared by
// the MCP tool revert_document and the viewer's revert: a token of scope
// admin may revert any document; a token of scope write may revert a
// document when every version the revert undoes (those after the version
// it goes back to, up to the current one) was written under the token's
// own name, as the history records it; anything else needs admin. So a
// person can undo their own mistake without being able to undo someone
// else's work.
//
// The check reads the document's history (memorybank/history) and
// returns the revert pinned to the version it checked (IfVersion): a
// write by someone else between the check and the revert makes the
// revert fail with a conflict rather than undo that write. A version
// whose entry the history no longer keeps, or a current version past the
// history (a file changed outside the bank), has no known writer, so
// reverting past it needs admin.
package ownrevert

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// ErrDenied is wrapped by every refusal of Check.
var ErrDenied = errors.New("ownrevert: the token may not make this revert")

// DeniedError says why a token may not make a revert and what it needs.
type DeniedError struct {
	Token string       // the token's name
	Scope tokens.Scope // the token's scope
	Need  tokens.Scope // the scope the revert needs
	Path  string
	// Others are the versions the revert would undo that another name
	// wrote (at most maxNamed), and Unknown those with no known writer.
	Others  []Version
	Unknown []int64
}

// Version is one version of a document and who wrote it.
type Version struct {
	Version int64
	Actor   string
}

// maxNamed bounds the versions a refusal names.
const maxNamed = 5

func (e *DeniedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "reverting %s needs a token of scope %s; the token %q has scope %s", e.Path, e.Need, e.Token, e.Scope)
	if e.Need == tokens.ScopeAdmin {
		b.WriteString(", which may revert only versions written under its own name, and ")
		var parts []string
		for _, v := range e.Others {
			if v.Actor == "" {
				parts = append(parts, fmt.Sprintf("version %d has no recorded writer", v.Version))
			} else {
				parts = append(parts, fmt.Sprintf("version %d was written by %q", v.Version, v.Actor))
			}
		}
		if len(e.Unknown) > 0 {
			parts = append(parts, fmt.Sprintf("version %d has no entry left in the history, so its writer is unknown", e.Unknown[0]))
		}
		b.WriteString(strings.Join(parts, ", "))
		b.WriteString("; ask an admin to revert it, or revert only your own later versions (a later toVersion)")
	}
	return b.String()
}

func (e *DeniedError) Unwrap() error { return ErrDenied }

// Check reports whether id may make the revert req on b, and returns req
// to make it with: for a write token, with IfVersion set to the current
// version it checked when req had none. An admin token gets req as it
// is; a token below write gets a *DeniedError needing write. Errors
// reading the history (no such document, a bad path) are returned as
// they are, for the caller to report as the revert's own would be.
func Check(ctx context.Context, b *memorybank.Bank, id tokens.Identity, req memorybank.RevertRequest) (memorybank.RevertRequest, error) {
	switch {
	case id.Scope.Allows(tokens.ScopeAdmin):
		return req, nil
	case !id.Scope.Allows(tokens.ScopeWrite):
		return req, &DeniedError{Token: id.Name, Scope: id.Scope, Need: tokens.ScopeWrite, Path: req.Path}
	}
	current, err := currentVersion(ctx, b, req)
	if err != nil {
		return req, err
	}
	denied := &DeniedError{Token: id.Name, Scope: id.Scope, Need: tokens.ScopeAdmin, Path: req.Path}
	// The versions undone are ToVersion+1 .. current; every one must
	// have an entry naming id.Name.
	seen := map[int64]bool{}
	const page = 50
	for offset := 0; ; offset += page {
		p, err := history.Page(ctx, b, memorybank.HistoryRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path, Offset: offset, Limit: page})
		if err != nil {
			return req, err
		}
		done := len(p.Items) == 0
		for _, e := range p.Items {
			if e.Version <= req.ToVersion {
				done = true
				break
			}
			if e.Version > current {
				continue
			}
			seen[e.Version] = true
			if e.Actor != id.Name && len(denied.Others) < maxNamed {
				denied.Others = append(denied.Others, Version{e.Version, e.Actor})
			}
		}
		if done || offset+page >= p.Total {
			break
		}
	}
	for v := current; v > req.ToVersion && len(denied.Unknown) < maxNamed; v-- {
		if !seen[v] {
			denied.Unknown = append(denied.Unknown, v)
		}
	}
	if len(denied.Others) > 0 || len(denied.Unknown) > 0 {
		return req, denied
	}
	if req.IfVersion == 0 && current > 0 {
		req.IfVersion = current
	}
	return req, nil
}

// currentVersion is the document's version, or, when it is deleted, the
// version its delete took (the newest entry of its history); 0 when it
// never existed.
func currentVersion(ctx context.Context, b *memorybank.Bank, req memorybank.RevertRequest) (int64, error) {
	d, err := b.Read(ctx, memorybank.ReadRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path})
	if err == nil {
		return d.Version, nil
	}
	if !errors.Is(err, memorybank.ErrNotFound) {
		return 0, err
	}
	newest, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: req.Scope, Branch: req.Branch, Path: req.Path, Limit: 1})
	if err != nil || len(newest) == 0 {
		return 0, err
	}
	return newest[0].Version, nil
}
