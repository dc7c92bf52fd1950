package tools

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/docpath"
)

// Models write tool arguments loosely. The write tools accept, before the
// input schema judges the arguments:
//
//   - content "" or null: no content (so a patch beside it applies);
//   - patches [] or null beside content: no patches;
//
// and after it, once the path says what the document is:
//
//   - for a text path (any path not ending in .json): a content string is
//     the text (WriteRequest.Text); an object is an envelope and stays
//     WriteRequest.Content;
//   - for a .json path: a content string holding a JSON object is that
//     object, and so is an envelope's "content" member sent as such a
//     string.
//
// The Bank itself takes only typed input: content as a JSON object, or text.

// lenientWrite drops the arguments of a write that a model meant as absent.
func lenientWrite(args map[string]json.RawMessage) {
	if c, ok := args["content"]; ok && isAbsent(c) {
		delete(args, "content")
	}
	if p, ok := args["patches"]; ok {
		p = bytes.TrimSpace(p)
		_, content := args["content"]
		if string(p) == "null" || content && isEmptyArray(p) {
			delete(args, "patches")
		}
	}
}

// isAbsent: JSON null or the empty string.
func isAbsent(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return string(v) == "null" || string(v) == `""`
}

func isEmptyArray(v json.RawMessage) bool {
	var a []json.RawMessage
	return json.Unmarshal(v, &a) == nil && a != nil && len(a) == 0
}

// setContent puts the content argument of a write into req: as Text for a
// text document given a string, else as Content, a JSON object.
func setContent(req *memorybank.WriteRequest, content json.RawMessage) error {
	content = bytes.TrimSpace(content)
	if len(content) == 0 {
		if req.Patches == nil {
			// Not even an empty text: a call that forgot its content must
			// not blank a document.
			return fmt.Errorf("%w: write %q: give content (full overwrite) or patches (partial update); empty or null content counts as none",
				memorybank.ErrInvalidRequest, req.Path)
		}
		return nil
	}
	if req.Patches != nil {
		return fmt.Errorf("%w: write %q: give either content (full overwrite) or patches (partial update), not both",
			memorybank.ErrInvalidRequest, req.Path)
	}
	var s string
	isString := content[0] == '"' && json.Unmarshal(content, &s) == nil
	if !docpath.IsJSON(req.Path) {
		if isString {
			req.Text = s
		} else {
			req.Content = content // an envelope whose content is the text
		}
		return nil
	}
	if isString {
		obj := bytes.TrimSpace([]byte(s))
		switch {
		case !json.Valid(obj):
			return fmt.Errorf("%w: write %q: content is not valid JSON: %.60s; give a JSON object (a memory_document_v2 envelope or the bare content object)",
				memorybank.ErrInvalidRequest, req.Path, s)
		case obj[0] != '{':
			return fmt.Errorf("%w: write %q: content must be a JSON object (a memory_document_v2 envelope or the bare content object), got %.40s",
				memorybank.ErrInvalidRequest, req.Path, obj)
		}
		content = obj // JSON sent as a string, as models often do
	}
	req.Content = unquoteEnvelopeContent(content)
	return nil
}

// unquoteEnvelopeContent replaces the "content" member of an envelope when
// it is a string holding a JSON object by that object. Anything else is
// returned as it is.
func unquoteEnvelopeContent(obj json.RawMessage) json.RawMessage {
	// Looked for in place: the object is valid JSON (the arguments were
	// checked whole, or json.Valid passed on the string's text), and
	// decoding it into a map would copy the whole content to find that,
	// as nearly always, there is nothing to unquote. The last of a
	// repeated member counts, as it does for encoding/json.
	var c json.RawMessage
	var envelope bool
	if !jsontext.ObjectMembers(obj, func(name string, v []byte) {
		switch name {
		case "content":
			c = v
		case "schema", "metadata":
			envelope = true
		}
	}) {
		return obj
	}
	if len(c) == 0 || c[0] != '"' || !envelope {
		return obj // no string content, or bare content that has a member named "content"
	}
	var members map[string]json.RawMessage
	if json.Unmarshal(obj, &members) != nil {
		return obj
	}
	var inner string
	if json.Unmarshal(c, &inner) != nil {
		return obj
	}
	t := bytes.TrimSpace([]byte(inner))
	if len(t) == 0 || t[0] != '{' || !json.Valid(t) {
		return obj
	}
	members["content"] = t
	out, err := json.Marshal(members)
	if err != nil {
		return obj
	}
	return out
}
