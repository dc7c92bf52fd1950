// Package pointer builds the JSON Pointers (RFC 6901) by which the memory
// bank packages locate schema problems, from gojsonschema's results.
package pointer

import (
	"strings"

	"github.com/xeipuuv/gojsonschema"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// Escape escapes one reference token: "~" becomes "~0" and "/" becomes "~1".
func Escape(token string) string { return jsontext.EscapeToken(token) }

// FromContext turns gojsonschema's context "(root).a.0.b" into "/a/0/b",
// splitting on a separator that cannot occur in keys so dotted keys survive.
func FromContext(ctx *gojsonschema.JsonContext) string {
	if ctx == nil {
		return ""
	}
	parts := strings.Split(ctx.String("\x00"), "\x00")
	var b strings.Builder
	for _, p := range parts[1:] { // parts[0] is "(root)"
		b.WriteString("/" + Escape(p))
	}
	return b.String()
}

// Of locates a schema error: its context, and for a missing required
// property or an unknown one, that property below it, so the pointer names
// the member to add or remove.
func Of(re gojsonschema.ResultError) string {
	ptr := FromContext(re.Context())
	switch re.Type() {
	case "required", "additional_property_not_allowed":
		if p, ok := re.Details()["property"].(string); ok {
			ptr += "/" + Escape(p)
		}
	}
	return ptr
}
