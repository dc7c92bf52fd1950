package tools

import (
	"context"
	"encoding/json"
	"time"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Names of the history tools.
const (
	DocumentHistory = "document_history"
	RevertDocument  = "revert_document"
)

type actorKey struct{}

// WithActor returns a context under which the tools record actor (for
// example the MCP client's name) as the Actor of every write, delete and
// revert, so a document's history says who changed it. An actor the Bank
// refuses (see memorybank.ValidateActor: control characters, not UTF-8,
// over memorybank.MaxActorBytes) makes those calls fail with
// INVALID_ARGUMENT; check it where it comes in.
func WithActor(ctx context.Context, actor string) context.Context {
	return context.WithValue(ctx, actorKey{}, actor)
}

func actorFrom(ctx context.Context) string {
	a, _ := ctx.Value(actorKey{}).(string)
	return a
}

var historySpecs = []toolSpec{
	{
		name: DocumentHistory,
		description: `List the recorded changes of one document (scope "global", or scope "branch" with branch: branch is required when scope is "branch"), newest first: version, time, who (actor) and why (reason) when known, ` +
			`and the change as an RFC 6902 patch from the previous version (a deleted document keeps its history). ` +
			`Use it to see who changed what before undoing it with revert_document.`,
		schema: objectSchema([]string{"scope", "path"}, jsonObj{
			"scope":  scopeProp(false, ""),
			"branch": branchProp(`Required when scope is "branch".`),
			"path":   pathProp(`"activeContext.json"`),
			"limit":  withDefault(prop("integer", "At most this many entries, newest first."), 20),
		}),
		run: runHistory,
	},
	{
		name: RevertDocument,
		description: `Undo changes to one document (scope "global", or scope "branch" with branch: branch is required when scope is "branch"): write the content of an earlier version (toVersion, from document_history) as its ` +
			`next version; history is kept, never rewritten. Also restores a deleted document. Pass ifVersion (the current version) ` +
			`to revert only if nobody wrote since you looked.`,
		schema: objectSchema([]string{"scope", "path", "toVersion"}, jsonObj{
			"scope":     scopeProp(false, ""),
			"branch":    branchProp(`Required when scope is "branch".`),
			"path":      pathProp(`"activeContext.json"`),
			"toVersion": withMinimum(prop("integer", "The version to bring back."), 1),
			"ifVersion": ifVersionProp("revert"),
		}),
		run: runRevert,
	},
}

// allSpecs is every tool, in the order For returns them.
func allSpecs() []toolSpec {
	return append(append([]toolSpec(nil), toolSpecs...), historySpecs...)
}

func withMinimum(p jsonObj, min int) jsonObj {
	p["minimum"] = min
	return p
}

type historyArgs struct {
	Scope  memorybank.Scope `json:"scope"`
	Branch string           `json:"branch"`
	Path   string           `json:"path"`
	Limit  int              `json:"limit"`
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

func runHistory(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var a historyArgs
	if err := decodeArgs(DocumentHistory, args, &a); err != nil {
		return nil, err
	}
	entries, err := b.History(ctx, memorybank.HistoryRequest{Scope: a.Scope, Branch: a.Branch, Path: a.Path, Limit: a.Limit})
	if err != nil {
		return nil, err
	}
	out := make([]historyEntry, 0, len(entries))
	for _, e := range entries {
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
	return map[string]any{"entries": out}, nil
}

type revertArgs struct {
	Scope     memorybank.Scope `json:"scope"`
	Branch    string           `json:"branch"`
	Path      string           `json:"path"`
	ToVersion int64            `json:"toVersion"`
	IfVersion int64            `json:"ifVersion"`
}

func runRevert(ctx context.Context, b *memorybank.Bank, args json.RawMessage) (any, error) {
	var a revertArgs
	if err := decodeArgs(RevertDocument, args, &a); err != nil {
		return nil, err
	}
	return b.Revert(ctx, memorybank.RevertRequest{Scope: a.Scope, Branch: a.Branch, Path: a.Path,
		ToVersion: a.ToVersion, IfVersion: a.IfVersion, Actor: actorFrom(ctx)})
}
