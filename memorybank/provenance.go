package memorybank

import (
	"encoding/json"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// ProvenanceMember is the metadata member where a write that gives
// WriteRequest.Provenance records where the document's current version
// came from: the actor (WriteRequest.Actor), the tool and the source. The
// Bank owns it: a write without Provenance removes it, so it never
// describes an older write.
const ProvenanceMember = "provenance"

// Provenance says where a write came from, beyond its Actor: the tool or
// command that made it (a tool's name, "import", "apply_memory_ops") and,
// for an import, its source (the archive or folder, and the entry in it).
// The MCP server's actor is the client's name.
type Provenance struct {
	Actor  string `json:"actor,omitempty"`
	Tool   string `json:"tool,omitempty"`
	Source string `json:"source,omitempty"`
}

// stampProvenance records req's provenance in e's metadata, before it is
// stamped. A text document stored without front matter stays so (it has
// no metadata to hold it); its writes' history holds nothing either.
func stampProvenance(e, old *codec.Envelope, req WriteRequest) {
	delete(e.Meta, ProvenanceMember)
	if req.Provenance == nil || old != nil && old.Bare {
		return
	}
	p := *req.Provenance
	p.Actor = req.Actor
	if raw, err := json.Marshal(p); err == nil {
		e.Meta[ProvenanceMember] = raw
	}
}
