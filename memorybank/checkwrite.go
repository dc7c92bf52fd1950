package memorybank

import (
	"context"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"time"
)

// CheckWrite runs every check Write(req) would run against the document as
// stored now (the request, the path and its collisions, the branch, the
// content or patches, the schema, the tags and size limits, IfVersion and
// Mode) and returns the result Write would return, without writing anything
// (not even a branch marker). Callers that write several documents as one
// unit, such as confirmed write plans, check every document first so that a
// refused one leaves nothing half-applied. A later Write may still fail if
// the documents change in between; its compare-and-swap sees that.
func (b *Bank) CheckWrite(ctx context.Context, req WriteRequest) (*WriteResult, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	if err := b.check(req); err != nil {
		return nil, err
	}
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	return b.writeOnce(ctx, l, req, true)
}

// dryResult is the result of a checked write that was not stored.
func dryResult(l loc, next *codec.Envelope, exists bool, problems []Problem, size int) *WriteResult {
	le := entryOf(next, size, time.Time{})
	id, _ := next.Str("id")
	return &WriteResult{Scope: l.scope, Branch: l.branch, Path: l.path, ID: id, Version: le.Version,
		LastModified: le.LastModified, Tags: le.Tags, Created: !exists, Problems: problems, env: next}
}
