package skillgraph

import (
	"encoding/json"
	"fmt"
)

// Kind names an operation.
type Kind string

// The five operation kinds.
const (
	KindAddNode    Kind = "addNode"
	KindDeleteNode Kind = "deleteNode"
	KindUpdateNode Kind = "updateNode"
	KindAddEdge    Kind = "addEdge"
	KindDeleteEdge Kind = "deleteEdge"
)

var kinds = []Kind{KindAddNode, KindDeleteNode, KindUpdateNode, KindAddEdge, KindDeleteEdge}

// EdgePolicy says what deleteNode does with the node's edges.
type EdgePolicy string

// Edge policies of deleteNode.
const (
	// PolicyCascade removes the node's edges (the default).
	PolicyCascade EdgePolicy = "cascade"
	// PolicyReconnect removes them and connects every predecessor to every
	// successor, skipping self-loops and pairs already connected; each new
	// edge copies the metadata of the incoming edge it replaces.
	PolicyReconnect EdgePolicy = "reconnect"
	// PolicyError refuses to delete a node that any edge touches (HAS_EDGES).
	PolicyError EdgePolicy = "error"
)

// Operation is one edit. Kind decides which fields apply; a field that does
// not belong to the kind is an INVALID_OPERATION (and a schema error when
// parsed from JSON).
//
//	addNode     Node, InsertAfter, InsertBefore, ParentHint
//	deleteNode  NodeID, EdgePolicy
//	updateNode  NodeID, Label, Markdown, Type, ToolName
//	addEdge     Source, Target, Metadata, ID
//	deleteEdge  EdgeID, or Source and Target
type Operation struct {
	OperationID              string `json:"operationId"` // unique within the batch
	Kind                     Kind   `json:"kind"`
	HumanReadableDescription string `json:"humanReadableDescription,omitempty"`

	// addNode. Node.ID may be empty: the editor then generates one and
	// reports it in Result.GeneratedIDs.
	Node         *Node  `json:"node,omitempty"`
	InsertAfter  string `json:"insertAfter,omitempty"`
	InsertBefore string `json:"insertBefore,omitempty"`
	ParentHint   string `json:"parentHint,omitempty"`

	// deleteNode and updateNode.
	NodeID     string     `json:"nodeId,omitempty"`
	EdgePolicy EdgePolicy `json:"edgePolicy,omitempty"` // empty means cascade

	// updateNode: only the fields given change.
	Label    *string     `json:"label,omitempty"`
	Markdown StringPatch `json:"markdown,omitzero"`
	Type     NodeType    `json:"type,omitempty"`
	ToolName StringPatch `json:"toolName,omitzero"`

	// addEdge and deleteEdge.
	Source   string          `json:"source,omitempty"`
	Target   string          `json:"target,omitempty"`
	Metadata json.RawMessage `json:"metadata,omitempty"` // addEdge
	ID       string          `json:"id,omitempty"`       // addEdge: the new edge's id; empty = generated
	EdgeID   string          `json:"edgeId,omitempty"`   // deleteEdge
}

// StringPatch is an updateNode field that is absent (leave as is), null
// (clear) or a string (set). Its zero value is absent.
type StringPatch struct {
	Set   bool   // the field was given
	Null  bool   // it was given as null
	Value string // the new value when Set and not Null
}

// SetString returns a StringPatch that sets the field to s.
func SetString(s string) StringPatch { return StringPatch{Set: true, Value: s} }

// ClearString returns a StringPatch that clears the field (JSON null).
func ClearString() StringPatch { return StringPatch{Set: true, Null: true} }

// IsZero reports whether the field is absent; it makes `omitzero` work.
func (p StringPatch) IsZero() bool { return !p.Set }

// MarshalJSON writes null or the string.
func (p StringPatch) MarshalJSON() ([]byte, error) {
	if p.Null || !p.Set {
		return []byte("null"), nil
	}
	return json.Marshal(p.Value)
}

// UnmarshalJSON is called only for a present field, including null.
func (p *StringPatch) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*p = ClearString()
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	*p = SetString(s)
	return nil
}

// value returns what the field becomes: "" when cleared.
func (p StringPatch) value() string {
	if p.Null {
		return ""
	}
	return p.Value
}

// nodeInput is addNode's node as models write it: the canonical shape, with
// label, markdown and toolName allowed at the top level as well.
type nodeInput struct {
	ID       string          `json:"id"`
	Type     NodeType        `json:"type"`
	Data     *NodeData       `json:"data"`
	Position json.RawMessage `json:"position"`
	Label    *string         `json:"label"`
	Markdown *string         `json:"markdown"`
	ToolName *string         `json:"toolName"`
}

// UnmarshalJSON accepts the node of addNode in both shapes. A field given
// both at the top level and in data must have the same value in both.
func (op *Operation) UnmarshalJSON(b []byte) error {
	type plain Operation
	var w struct {
		*plain
		Node *nodeInput `json:"node"`
	}
	w.plain = (*plain)(op)
	*op = Operation{}
	if err := json.Unmarshal(b, &w); err != nil {
		return err
	}
	if w.Node == nil {
		return nil
	}
	n := &Node{ID: w.Node.ID, Type: w.Node.Type, Position: w.Node.Position}
	if w.Node.Data != nil {
		n.Data = *w.Node.Data
	}
	for _, f := range []struct {
		name string
		top  *string
		data *string
	}{
		{"label", w.Node.Label, &n.Data.Label},
		{"markdown", w.Node.Markdown, &n.Data.Markdown},
		{"toolName", w.Node.ToolName, &n.Data.ToolName},
	} {
		if f.top == nil {
			continue
		}
		if *f.data != "" && *f.data != *f.top {
			return &nodeShapeError{field: f.name, top: *f.top, data: *f.data}
		}
		*f.data = *f.top
	}
	op.Node = n
	return nil
}

// nodeShapeError: a node gives a field twice with different values.
type nodeShapeError struct{ field, top, data string }

func (e *nodeShapeError) Error() string {
	return fmt.Sprintf("node.%s is %q but node.data.%s is %q; give it once, either at the top level or in data", e.field, e.top, e.field, e.data)
}
