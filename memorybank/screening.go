package memorybank

import (
	"encoding/json"
	"errors"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/screen"
)

// FlagsMember is the metadata member where a write records the poisoning
// flags of a document (see Options.Flagger): a list of screen.Flag. The
// Bank owns it: every write recomputes it, so a writer can neither forge
// nor clear it.
const FlagsMember = "flags"

// flagDocument recomputes the flags of the envelope a write is about to
// store, before it is stamped (so a text document that gains flags gains
// front matter to hold them).
func (b *Bank) flagDocument(e *codec.Envelope) {
	if b.opts.Flagger == nil {
		return
	}
	delete(e.Meta, FlagsMember)
	flags := b.opts.Flagger.Flags(flaggableText(e))
	if len(flags) == 0 {
		return
	}
	if raw, err := json.Marshal(flags); err == nil {
		e.Meta[FlagsMember] = raw
	}
}

// flaggableText is every string a reader of the document gets: its title
// and the text, or every string of its JSON content and extra members, one
// a line, with JSON escapes decoded (so "\u200b" counts as the character).
func flaggableText(e *codec.Envelope) string {
	// The text first, so a flag's line is the line of the text as written;
	// the title (which front matter may set apart from the text) after it.
	var b strings.Builder
	title, _ := e.Str("title")
	if s, ok := e.Text(); ok {
		b.WriteString(s)
		b.WriteString("\n" + title)
		return b.String()
	}
	walk := func(raw json.RawMessage) {
		var v any
		if json.Unmarshal(raw, &v) == nil {
			appendStrings(&b, v)
		}
	}
	walk(e.Content)
	for _, k := range slices.Sorted(maps.Keys(e.Extra)) {
		walk(e.Extra[k])
	}
	b.WriteString(title)
	return b.String()
}

func appendStrings(b *strings.Builder, v any) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, x := range v {
			appendStrings(b, x)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			b.WriteString(k)
			b.WriteByte('\n')
			appendStrings(b, v[k])
		}
	}
}

// flagsOf returns the flags a write recorded in the envelope's metadata.
func flagsOf(e *codec.Envelope) []screen.Flag {
	raw, ok := e.Meta[FlagsMember]
	if !ok {
		return nil
	}
	var flags []screen.Flag
	if json.Unmarshal(raw, &flags) != nil {
		return nil
	}
	return flags
}

// screenSecrets runs Options.Secrets over the stored form of a document
// (every byte a reader would get: metadata, content, extra members), and
// returns the bytes to store and their envelope: data and next unchanged
// when clean, redacted and decoded again when the screen redacts. A
// redaction that leaves bytes that no longer decode is refused as the
// credential itself would be.
func (b *Bank) screenSecrets(l loc, data []byte, next *codec.Envelope) ([]byte, *codec.Envelope, error) {
	if b.opts.Secrets == nil {
		return data, next, nil
	}
	where := strconv.Quote(l.path) + " in the " + l.describe()
	if body, ok := next.Text(); ok {
		// Lines and columns of the text as the writer sent it, not of the
		// stored file with its front matter.
		if _, err := b.opts.Secrets.Screen(where, body); err != nil {
			var se *screen.SecretError
			if !errors.As(err, &se) || len(se.Findings) > 0 && b.refuses() {
				return nil, nil, err
			}
		}
	}
	out, err := b.opts.Secrets.Screen(where, string(data))
	if err != nil {
		return nil, nil, err
	}
	if out == string(data) {
		return data, next, nil
	}
	e, derr := decodeStored(codec.FormatOf(l.path), l.path, []byte(out))
	if derr != nil {
		return nil, nil, &screen.SecretError{Where: where, Detail: "redacting the credentials would break the document's structure; remove them yourself"}
	}
	return []byte(out), e, nil
}

// refuses reports whether the secret screen refuses rather than redacts:
// a Screen that is not screen.Secrets is taken at its word on every call.
func (b *Bank) refuses() bool {
	s, ok := b.opts.Secrets.(screen.Secrets)
	return !ok || s.Mode != screen.Redact
}
