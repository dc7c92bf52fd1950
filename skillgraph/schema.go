package skillgraph

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/xeipuuv/gojsonschema"
)

//go:embed schema.json
var schemaJSON []byte

// Schema returns the JSON Schema (draft-07) of a model's reply: the envelope
// {"operations": [...], "summary": "..."}, with one definition per operation
// kind under definitions (addNode, deleteNode, updateNode, addEdge,
// deleteEdge). Give it to a model as a structured-output or tool-input schema.
// ParseOperations validates against it, and also accepts a bare array of
// operations. The returned slice is a copy.
func Schema() []byte { return append([]byte(nil), schemaJSON...) }

// KindSchema returns the JSON Schema of one operation kind as a standalone
// document (the definitions plus a $ref to the kind), or an error naming the
// kinds when k is not one of them.
func KindSchema(k Kind) ([]byte, error) {
	if !k.valid() {
		return nil, fmt.Errorf("%w: kind %q unknown; kinds are %s", ErrInvalidOperation, k, joinKinds())
	}
	return json.MarshalIndent(refDoc(string(k)), "", "  ")
}

// fields lists, per schema object, the property names the schema allows, in
// the order messages name them. A test keeps them in step with schema.json.
var fields = map[string][]string{
	string(KindAddNode):    {"operationId", "kind", "humanReadableDescription", "node", "insertAfter", "insertBefore", "parentHint"},
	string(KindDeleteNode): {"operationId", "kind", "humanReadableDescription", "nodeId", "edgePolicy"},
	string(KindUpdateNode): {"operationId", "kind", "humanReadableDescription", "nodeId", "label", "markdown", "type", "toolName"},
	string(KindAddEdge):    {"operationId", "kind", "humanReadableDescription", "id", "source", "target", "metadata"},
	string(KindDeleteEdge): {"operationId", "kind", "humanReadableDescription", "edgeId", "source", "target"},
	"node":                 {"id", "type", "data", "position", "label", "markdown", "toolName"},
	"nodeData":             {"label", "markdown", "toolName"},
	"envelope":             {"operations", "summary"},
}

type compiled struct {
	envelope *gojsonschema.Schema
	head     *gojsonschema.Schema
	kinds    map[Kind]*gojsonschema.Schema
}

var schemas = sync.OnceValues(func() (*compiled, error) {
	var root map[string]any
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		return nil, err
	}
	c := &compiled{kinds: map[Kind]*gojsonschema.Schema{}}
	var err error
	if c.envelope, err = gojsonschema.NewSchema(gojsonschema.NewGoLoader(root)); err != nil {
		return nil, fmt.Errorf("envelope: %w", err)
	}
	if c.head, err = gojsonschema.NewSchema(gojsonschema.NewGoLoader(refDoc("operationHead"))); err != nil {
		return nil, fmt.Errorf("operationHead: %w", err)
	}
	for _, k := range kinds {
		if c.kinds[k], err = gojsonschema.NewSchema(gojsonschema.NewGoLoader(refDoc(string(k)))); err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
	}
	return c, nil
})

// refDoc is a standalone schema for one definition of schema.json.
func refDoc(def string) map[string]any {
	var root map[string]any
	if err := json.Unmarshal(schemaJSON, &root); err != nil {
		panic("skillgraph: embedded schema.json is not JSON: " + err.Error()) // caught by every test
	}
	return map[string]any{
		"$schema":     root["$schema"],
		"title":       def,
		"definitions": root["definitions"],
		"$ref":        "#/definitions/" + def,
	}
}

func (k Kind) valid() bool {
	for _, x := range kinds {
		if k == x {
			return true
		}
	}
	return false
}

func joinKinds() string {
	s := ""
	for i, k := range kinds {
		if i > 0 {
			s += ", "
		}
		s += string(k)
	}
	return s
}
