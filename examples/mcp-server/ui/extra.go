package ui

import (
	"bytes"
	"encoding/json"
	"html/template"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
)

// shownMeta are the metadata members the document page lists by name; the
// flags have their own box; the others (members an agent or another tool
// added) are shown with extraMembers, since the read tools return
// them.
var shownMeta = map[string]bool{"id": true, "title": true, "documentType": true, "path": true, "tags": true,
	"lastModified": true, "createdAt": true, "version": true, memorybank.FlagsMember: true}

// extraMembers is what a document holds beyond its content and the
// metadata the page lists: a JSON document's other top-level members
// ("schema" aside) and its extra metadata members, or a text document's
// extra front matter members, as a JSON tree; "" when there are none.
func extraMembers(d *memorybank.Document) template.HTML {
	var meta map[string]json.RawMessage
	extra := map[string]json.RawMessage{}
	if d.Format == memorybank.FormatJSON {
		var env map[string]json.RawMessage
		if json.Unmarshal(d.Content, &env) != nil {
			return ""
		}
		_ = json.Unmarshal(env["metadata"], &meta)
		for k, v := range env {
			if k != "content" && k != "metadata" && k != "schema" {
				extra[k] = v
			}
		}
	} else {
		_ = json.Unmarshal(d.Metadata, &meta)
	}
	other := map[string]json.RawMessage{}
	for k, v := range meta {
		if !shownMeta[k] {
			other[k] = v
		}
	}
	if len(other) > 0 {
		raw, _ := json.Marshal(other)
		extra["metadata"] = raw
	}
	if len(extra) == 0 {
		return ""
	}
	raw, err := json.Marshal(extra)
	if err != nil {
		return ""
	}
	tree, err := render.JSON(raw)
	if err != nil {
		return render.PlainText(raw, "These members are too large or deep for a tree; shown as text.")
	}
	var b bytes.Buffer
	b.WriteString(string(tree))
	return template.HTML(b.String()) //nolint:gosec // render.JSON escapes every key and string
}
