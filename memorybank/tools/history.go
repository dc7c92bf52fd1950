package tools

import (
	"cmp"
	"context"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// Names of the history tools.
const (
	DocumentHistory = "document_history"
	RevertDocument  = "revert_document"
)

var historyDecl = Declare(DocumentHistory,
	`A document's changes, newest first, each with actor, reason and an RFC 6902 patch.`,
	ReadOnly, adjustHistory, inferScope, runHistory)

var revertDecl = Declare(RevertDocument,
	`Write an earlier version (toVersion) as the next one; restores a deleted document too.`,
	Overwriting, adjustRevert, inferScope, runRevert)

type historyArgs struct {
	scopedArgs
	Path string `json:"path"`
	PageArgs
}

// defaultHistoryLimit is document_history's default limit.
const defaultHistoryLimit = 10

func adjustHistory(s *jsonschema.Schema) {
	adjustScoped(s)
	AdjustPage(s, defaultHistoryLimit)
}

// historyResult is the result of document_history.
type historyResult struct {
	Entries []historyEntry `json:"entries"`
	PageResult
}

// historyEntry is one entry as the tool shows it.
type historyEntry struct {
	Version int64           `json:"version"`
	Time    time.Time       `json:"time"`
	Actor   string          `json:"actor,omitempty"`
	Reason  string          `json:"reason,omitempty"`
	Deleted bool            `json:"deleted,omitempty"`
	Patch   jsonpatch.Patch `json:"patch"`
	// Note says why Patch is empty when it is.
	Note string `json:"note,omitempty"`
}

func runHistory(ctx context.Context, b *memorybank.Bank, _ Env, a *historyArgs) (*historyResult, error) {
	p, err := history.Page(ctx, b, memorybank.HistoryRequest{Scope: a.Scope, Branch: a.Branch, Path: a.Path,
		Limit: cmp.Or(a.Limit, defaultHistoryLimit), Offset: a.Offset})
	if err != nil {
		return nil, err
	}
	out := make([]historyEntry, 0, len(p.Items))
	for _, e := range p.Items {
		he := historyEntry{Version: e.Version, Time: e.Time, Actor: e.Actor, Reason: e.Reason, Deleted: e.Deleted, Patch: e.Patch}
		switch {
		case e.Truncated:
			he.Note = "the change was too large to keep"
		case e.Deleted:
			he.Note = "deleted; revert_document to a version before this one restores it"
		}
		if he.Patch == nil {
			he.Patch = jsonpatch.Patch{}
		}
		out = append(out, he)
	}
	out = Fit(out, a.MaxTokens)
	return &historyResult{out, PageOf(a.Offset, len(out), p.Total)}, nil
}

type revertArgs struct {
	scopedArgs
	Path      string `json:"path"`
	ToVersion int64  `json:"toVersion"`
	IfVersion int64  `json:"ifVersion,omitempty"`
}

func adjustRevert(s *jsonschema.Schema) {
	adjustScoped(s)
	SetBounds(s, "toVersion", 1, 0)
	SetBounds(s, "ifVersion", 0, 0)
}

func runRevert(ctx context.Context, b *memorybank.Bank, env Env, a *revertArgs) (*memorybank.WriteResult, error) {
	return history.Revert(ctx, b, memorybank.RevertRequest{Scope: a.Scope, Branch: a.Branch, Path: a.Path,
		ToVersion: a.ToVersion, IfVersion: a.IfVersion, Actor: env.Actor})
}
