package render

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"io"
	"strconv"
	"strings"
)

// Limits for JSON: the document's size (the bank's default document limit;
// BenchmarkJSON: a tree allocates about 70 times its input) and how deeply
// objects and arrays may nest (each level is a nested <details> element).
const (
	MaxJSONBytes = 1 << 20
	MaxJSONDepth = 64
)

// JSON renders one JSON value as a collapsible tree: every object and array
// is a <details open> with a <summary> giving its size, members appear in
// the order the source has them (duplicate keys included), and every key
// and string is HTML-escaped. Scalars carry the classes json-key,
// json-string, json-number, json-bool and json-null for the page's CSS.
//
// Errors: *LimitError (ErrTooLarge above MaxJSONBytes, ErrTooDeep past
// MaxJSONDepth), *SyntaxError (ErrSyntax) for malformed JSON or anything
// after the value.
func JSON(src []byte) (template.HTML, error) {
	if len(src) > MaxJSONBytes {
		return "", &LimitError{What: "JSON document bytes", Limit: MaxJSONBytes, Got: int64(len(src)), Err: ErrTooLarge}
	}
	// Two passes over the tokens: the first checks the document and counts
	// each container's members (a summary shows its count before the
	// members), the second writes. Counting first keeps memory to one
	// output buffer however deep the nesting.
	t := &jsonTree{}
	if err := t.walk(src); err != nil {
		return "", err
	}
	t.out = &bytes.Buffer{}
	t.out.Grow(len(src) * 3)
	t.out.WriteString(`<div class="json">`)
	if err := t.walk(src); err != nil {
		return "", err
	}
	t.out.WriteString("</div>\n")
	return template.HTML(t.out.String()), nil
}

// jsonTree walks a document's tokens. With out nil it checks and counts;
// with out set it writes, reading the counts back in the same order.
type jsonTree struct {
	counts []int // members per container, in the order containers open
	next   int   // the next entry of counts to read when writing
	out    *bytes.Buffer
	d      *json.Decoder
}

func (t *jsonTree) walk(src []byte) error {
	t.d = json.NewDecoder(bytes.NewReader(src))
	t.d.UseNumber()
	if err := t.value(nil, 0); err != nil {
		return t.syntax(err)
	}
	if _, err := t.d.Token(); err != io.EOF {
		return &SyntaxError{Format: "JSON", Offset: t.d.InputOffset(), Msg: "more data after the JSON value; a document holds exactly one value"}
	}
	return nil
}

func (t *jsonTree) syntax(err error) error {
	var le *LimitError
	var se *SyntaxError
	if errors.As(err, &le) || errors.As(err, &se) {
		return err
	}
	var jse *json.SyntaxError
	if errors.As(err, &jse) {
		return &SyntaxError{Format: "JSON", Offset: jse.Offset, Msg: jse.Error()}
	}
	if err == io.EOF || err == io.ErrUnexpectedEOF {
		return &SyntaxError{Format: "JSON", Offset: t.d.InputOffset(), Msg: "unexpected end of input"}
	}
	return &SyntaxError{Format: "JSON", Offset: t.d.InputOffset(), Msg: err.Error()}
}

// value handles the next value. When tok is not nil it is the value's
// first token, already read.
func (t *jsonTree) value(tok json.Token, depth int) error {
	if tok == nil {
		var err error
		if tok, err = t.d.Token(); err != nil {
			return err
		}
	}
	b := t.out
	switch v := tok.(type) {
	case json.Delim:
		if v != '{' && v != '[' {
			return &SyntaxError{Format: "JSON", Offset: t.d.InputOffset(), Msg: fmt.Sprintf("unexpected %q", rune(v))}
		}
		if depth >= MaxJSONDepth {
			return &LimitError{What: fmt.Sprintf("JSON nesting depth at byte %d", t.d.InputOffset()), Limit: MaxJSONDepth, Got: int64(depth + 1), Err: ErrTooDeep}
		}
		return t.container(v, depth+1)
	case string:
		if b != nil {
			b.WriteString(`<span class="json-string">`)
			writeQuoted(b, v)
			b.WriteString(`</span>`)
		}
	case json.Number:
		if b != nil {
			b.WriteString(`<span class="json-number">`)
			_, _ = textEscaper.WriteString(b, string(v))
			b.WriteString(`</span>`)
		}
	case bool:
		if b != nil {
			b.WriteString(`<span class="json-bool">` + strconv.FormatBool(v) + `</span>`)
		}
	case nil:
		if b != nil {
			b.WriteString(`<span class="json-null">null</span>`)
		}
	}
	return nil
}

func (t *jsonTree) container(open json.Delim, depth int) error {
	closer, noun, pair := json.Delim('}'), "key", "{}"
	if open == '[' {
		closer, noun, pair = ']', "item", "[]"
	}
	b := t.out
	slot := -1
	if b == nil {
		slot = len(t.counts)
		t.counts = append(t.counts, 0)
	} else {
		n := t.counts[t.next]
		t.next++
		if n == 0 {
			b.WriteString(`<span class="json-empty">` + pair + `</span>`)
		} else {
			plural := "s"
			if n == 1 {
				plural = ""
			}
			fmt.Fprintf(b, `<details open><summary>%c %d %s%s %c</summary><ul>`, pair[0], n, noun, plural, pair[1])
		}
	}
	n := 0
	for {
		tok, err := t.d.Token()
		if err != nil {
			return err
		}
		if tok == closer {
			break
		}
		n++
		if b != nil {
			b.WriteString("<li>")
		}
		if open == '{' {
			if b != nil {
				key, _ := tok.(string) // the decoder yields only strings in key position
				b.WriteString(`<span class="json-key">`)
				writeQuoted(b, key)
				b.WriteString(`</span>: `)
			}
			tok = nil
		}
		if err := t.value(tok, depth); err != nil {
			return err
		}
		if b != nil {
			b.WriteString("</li>")
		}
	}
	if b == nil {
		t.counts[slot] = n
	} else if n > 0 {
		b.WriteString("</ul></details>")
	}
	return nil
}

// textEscaper escapes text for HTML element content, the only place this
// package writes strings: there < and & are all that start markup (>
// too for old parsers), and quotes stay readable.
var textEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;")

// writeQuoted writes s as a JSON string literal escaped for element
// content: JSON's escapes for '"', '\\' and control characters, HTML's for
// & < >, everything else as it is (so the reader sees "<", not \u003c).
func writeQuoted(b *bytes.Buffer, s string) {
	const hex = "0123456789abcdef"
	s, _ = MarkInvisible(s)
	b.WriteByte('"')
	last := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		var esc string
		switch {
		case c == '"':
			esc = `\"`
		case c == '\\':
			esc = `\\`
		case c == '\n':
			esc = `\n`
		case c == '\r':
			esc = `\r`
		case c == '\t':
			esc = `\t`
		case c < 0x20:
			esc = `\u00` + string(hex[c>>4]) + string(hex[c&0xf])
		case c == '&':
			esc = "&amp;"
		case c == '<':
			esc = "&lt;"
		case c == '>':
			esc = "&gt;"
		default:
			continue
		}
		b.WriteString(s[last:i])
		b.WriteString(esc)
		last = i + 1
	}
	b.WriteString(s[last:])
	b.WriteByte('"')
}
