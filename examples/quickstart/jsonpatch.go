package main

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/mnemobank/mnemobank/jsonpatch"
)

// tourJSONPatch patches a memory_document_v2 document the way an agent
// would, then shows a rejected patch and the error the agent gets back.
func tourJSONPatch(_ context.Context, w io.Writer) error {
	doc := []byte(`{
  "schema": "memory_document_v2",
  "metadata": {
    "id": "active-context",
    "title": "Active context",
    "documentType": "core",
    "path": "activeContext.json",
    "tags": ["core", "active-context"],
    "lastModified": "2025-03-24T22:15:00.000Z",
    "createdAt": "2025-03-24T22:15:00.000Z",
    "version": 1
  },
  "content": {
    "currentWork": "JSON Patch support for write_branch_memory_bank",
    "nextSteps": ["write tests"]
  }
}`)
	fmt.Fprintln(w, "Document: activeContext.json (memory_document_v2), version 1.")

	patch, err := jsonpatch.Decode([]byte(`[
  {"op": "test",    "path": "/metadata/version", "value": 1.0},
  {"op": "add",     "path": "/content/nextSteps/-", "value": "benchmark <1 MB> & 1000 ops"},
  {"op": "replace", "path": "/content/currentWork", "value": "strict, atomic RFC 6902"},
  {"op": "replace", "path": "/metadata/version", "value": 2}
]`))
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Patch of %d operations: test version is 1 (written 1.0), append a next step, replace currentWork, bump version.\n", len(patch))
	out, err := jsonpatch.Apply(doc, patch)
	if err != nil {
		return err
	}
	content, err := jsonpatch.Get(out, "/content")
	if err != nil {
		return err
	}
	version, err := jsonpatch.Get(out, "/metadata/version")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Applied. /metadata/version = %s, /content = %s\n", version, content)

	fmt.Fprintln(w, "An agent now sends a patch with a typo in its second operation:")
	bad, err := jsonpatch.Decode([]byte(`[
  {"op": "add",     "path": "/content/nextSteps/-", "value": "ship it"},
  {"op": "replace", "path": "/content/curentWork",  "value": "done"}
]`))
	if err != nil {
		return err
	}
	rejected, err := jsonpatch.Apply(out, bad)
	var oe *jsonpatch.OperationError
	if !errors.As(err, &oe) || !errors.Is(err, jsonpatch.ErrPathNotFound) || rejected != nil {
		return fmt.Errorf("expected a rejected patch, got %v", err)
	}
	fmt.Fprintf(w, "Rejected, nothing applied (not even operation 0):\n  %v\n", err)
	fmt.Fprintf(w, "errors.As gives operation %d; errors.Is(err, jsonpatch.ErrPathNotFound) = true.\n", oe.Index)
	return nil
}
