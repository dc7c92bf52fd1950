// Package codec is the memory bank's document codec, the parts that know
// nothing of the Bank: the envelope every document is read into and written
// from (envelope.go), the JSON parser (parse.go), the text document
// conventions (text.go, textdoc.go) and the embedded JSON Schemas that
// validate a document before it is stored (schema.go).
//
// An Envelope is the one model of a document: DecodeStored reads a stored
// document, SplitEnvelope a written one, Stamp sets the fields the Bank
// maintains, Canonical gives the compact form patches apply to and reads
// show, and SealKeeping validates it and gives its stored form in one pass.
// Parse decodes a value once, into what the schema validator reads, and
// writes it indented as stored in the same pass, refusing an object that
// holds a member name twice; it stops at MaxDepth of nesting and at the
// size limit it is given, before the indented form grows past either
// (Depth judges a text's nesting in one pass, without decoding, before
// any of this). Repeated names are judged in one place, its
// duplicate scan: FirstDuplicate is the same rule without decoding, and
// Members splits an object and judges its names in the same pass. Text
// documents keep their metadata in YAML front matter (ParseFrontMatter,
// YAMLString) or, without it, in their text (FirstHeading, LegacyTags,
// TextVersion). Everything here is fuzzed: the parser against
// encoding/json, the front matter through a decode and encode round trip.
//
// It does no I/O and holds none of the Bank's decisions: which errors a
// caller sees (it returns plain errors and *SchemaError; the Bank wraps
// them in ErrCorrupt and ValidationError), what a patch may change, which
// version a write gets.
package codec

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"strconv"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// A write decodes each value of the document it stores exactly once: parse
// reads a JSON value into what gojsonschema validates (map[string]any,
// []any, json.Number, string, bool, nil) and, in the same pass, writes it
// indented as json.Indent(dst, src, "", "  ") would at the given depth, so
// that the stored form costs no second pass over a large content.
// encoding/json would need two passes for each (its decoder checks the whole
// value before decoding it), and gojsonschema a third to parse bytes.

// maxDepth is the nesting limit of the duplicate scan, as encoding/json's
// (Parse has its own, MaxDepth below the depth it starts at).
const maxDepth = 10000

// DuplicateError reports a member name that occurs twice in one object, at
// Pointer (relative to the value parsed). A document holds each name once:
// encoding/json keeps the last copy and JSON Patch engines differ, so the
// Bank never stores such an object.
type DuplicateError struct {
	Pointer string
	Name    string
}

func (e *DuplicateError) Error() string {
	return fmt.Sprintf("member %q appears more than once in one object", e.Name)
}

type parser struct {
	data     []byte
	i        int
	out      []byte
	depth    int
	maxDepth int // p.depth may not pass it
	maxOut   int // len(p.out) may not pass it
	over     int // the size the stored form would have reached at errStop
}

// errStop ends a parse that reached a limit; Parse returns the typed error.
var errStop = errors.New("codec: parse limit")

// Parse decodes the JSON value in data and appends it, indented as
// at nesting depth depth, to out. Member order and the spelling of numbers
// and strings are kept. It refuses, as soon as it gets there, a value that
// nests more than MaxDepth deep (*DepthError) and a stored form that would
// make out longer than maxOut bytes (*SizeError; maxOut <= 0 is no limit),
// so the indented form never grows past either.
func Parse(data []byte, depth int, out []byte, maxOut int) (any, []byte, error) {
	if maxOut <= 0 {
		maxOut = math.MaxInt
	}
	p := &parser{data: data, out: out, depth: depth, maxDepth: depth + MaxDepth, maxOut: maxOut}
	p.ws()
	v, err := p.value()
	if err == errStop {
		if p.depth > p.maxDepth {
			return nil, out, &DepthError{Depth: Depth(data), Max: MaxDepth}
		}
		return nil, out, &SizeError{Size: p.over, Max: maxOut}
	}
	if err != nil {
		return nil, out, err
	}
	if p.ws(); p.i < len(p.data) {
		return nil, out, p.errorf("invalid character %q after top-level value", p.data[p.i])
	}
	return v, p.out, nil
}

func (p *parser) errorf(format string, args ...any) error {
	return fmt.Errorf("%s at byte %d", fmt.Sprintf(format, args...), p.i)
}

func (p *parser) ws() {
	for p.i < len(p.data) {
		switch p.data[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

// newline starts a line indented to the depth. It is the only place the
// stored form grows faster than the input, so the size limit is checked here.
func (p *parser) newline() error {
	if n := len(p.out) + 1 + 2*p.depth; n > p.maxOut {
		p.over = n
		return errStop
	}
	p.out = append(p.out, '\n')
	for range p.depth {
		p.out = append(p.out, ' ', ' ')
	}
	return nil
}

func (p *parser) value() (any, error) {
	if p.i >= len(p.data) {
		return nil, p.errorf("unexpected end of JSON input")
	}
	switch c := p.data[p.i]; {
	case c == '{':
		return p.object()
	case c == '[':
		return p.array()
	case c == '"':
		s, err := p.str()
		if err != nil {
			return nil, err
		}
		return s, nil
	case c == '-' || c >= '0' && c <= '9':
		return p.number()
	}
	for _, lit := range []struct {
		text string
		v    any
	}{{"true", true}, {"false", false}, {"null", nil}} {
		if len(p.data)-p.i >= len(lit.text) && string(p.data[p.i:p.i+len(lit.text)]) == lit.text {
			p.i += len(lit.text)
			p.out = append(p.out, lit.text...)
			return lit.v, nil
		}
	}
	return nil, p.errorf("invalid character %q looking for beginning of value", p.data[p.i])
}

// open enters the container at p.i (its opening byte written) and reports
// whether it is empty, in which case it is closed already.
func (p *parser) open(close byte) (empty bool, err error) {
	if p.depth++; p.depth > p.maxDepth {
		return false, errStop
	}
	p.out = append(p.out, p.data[p.i])
	p.i++
	if p.ws(); p.i < len(p.data) && p.data[p.i] == close {
		p.i++
		p.depth--
		p.out = append(p.out, close)
		return true, nil
	}
	return false, nil
}

// next reads what follows an item of a container: a comma (more items to
// come) or the closing byte (the container is closed, on its own line).
func (p *parser) next(close byte, what string) (done bool, err error) {
	if p.ws(); p.i >= len(p.data) {
		return false, p.errorf("unexpected end of JSON input")
	}
	switch p.data[p.i] {
	case ',':
		p.i++
		p.out = append(p.out, ',')
		p.ws()
		return false, nil
	case close:
		p.i++
		p.depth--
		if err := p.newline(); err != nil {
			return false, err
		}
		p.out = append(p.out, close)
		return true, nil
	}
	return false, p.errorf("invalid character %q after %s", p.data[p.i], what)
}

func (p *parser) object() (any, error) {
	m := map[string]any{}
	if empty, err := p.open('}'); empty || err != nil {
		return m, err
	}
	for {
		if err := p.newline(); err != nil {
			return nil, err
		}
		if p.i >= len(p.data) || p.data[p.i] != '"' {
			return nil, p.errorf("expected a member name in double quotes")
		}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		if p.ws(); p.i >= len(p.data) || p.data[p.i] != ':' {
			return nil, p.errorf("expected ':' after a member name")
		}
		p.i++
		p.out = append(p.out, ':', ' ')
		p.ws()
		name := k
		if _, dup := m[name]; dup {
			return nil, &DuplicateError{Pointer: "/" + jsontext.EscapeToken(name), Name: name}
		}
		v, err := p.value()
		if err != nil {
			if de, ok := err.(*DuplicateError); ok {
				de.Pointer = "/" + jsontext.EscapeToken(name) + de.Pointer
			}
			return nil, err
		}
		m[name] = v
		if done, err := p.next('}', "object member"); done || err != nil {
			return m, err
		}
	}
}

func (p *parser) array() (any, error) {
	a := []any{}
	if empty, err := p.open(']'); empty || err != nil {
		return a, err
	}
	for {
		if err := p.newline(); err != nil {
			return nil, err
		}
		v, err := p.value()
		if err != nil {
			if de, ok := err.(*DuplicateError); ok {
				de.Pointer = "/" + strconv.Itoa(len(a)) + de.Pointer
			}
			return nil, err
		}
		a = append(a, v)
		if done, err := p.next(']', "array element"); done || err != nil {
			return a, err
		}
	}
}

// str reads a string, copying its text as written.
func (p *parser) str() (string, error) {
	start := p.i
	plain := true
	for p.i++; p.i < len(p.data); p.i++ {
		switch c := p.data[p.i]; {
		case c == '"':
			p.i++
			tok := p.data[start:p.i]
			p.out = append(p.out, tok...)
			if plain && utf8.Valid(tok) {
				return string(tok[1 : len(tok)-1]), nil
			}
			// Escapes or invalid UTF-8: decode as encoding/json does (the
			// escapes were checked on the way).
			s, _ := jsontext.Unquote(tok)
			return s, nil
		case c == '\\':
			plain = false
			if p.i++; p.i >= len(p.data) {
				return "", p.errorf("unexpected end of JSON input")
			}
			switch p.data[p.i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if p.i+4 >= len(p.data) {
					return "", p.errorf("unexpected end of JSON input")
				}
				for _, h := range p.data[p.i+1 : p.i+5] {
					if !isHex(h) {
						return "", p.errorf("invalid character %q in \\u hexadecimal character escape", h)
					}
				}
				p.i += 4
			default:
				return "", p.errorf("invalid character %q in string escape code", p.data[p.i])
			}
		case c < 0x20:
			return "", p.errorf("invalid character %q in string literal", c)
		}
	}
	return "", p.errorf("unexpected end of JSON input")
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// number reads a number by the JSON grammar, keeping its spelling.
func (p *parser) number() (any, error) {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.data) && p.data[p.i] >= '0' && p.data[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.data[p.i] == '-' {
		p.i++
	}
	switch {
	case p.i < len(p.data) && p.data[p.i] == '0':
		p.i++
	case digits() == 0:
		return nil, p.errorf("invalid number")
	}
	if p.i < len(p.data) && p.data[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits after the decimal point")
		}
	}
	if p.i < len(p.data) && (p.data[p.i] == 'e' || p.data[p.i] == 'E') {
		p.i++
		if p.i < len(p.data) && (p.data[p.i] == '+' || p.data[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return nil, p.errorf("invalid number: no digits in the exponent")
		}
	}
	tok := p.data[start:p.i]
	p.out = append(p.out, tok...)
	return json.Number(tok), nil
}

// FirstDuplicate finds the first member name that occurs twice in one
// object anywhere in the JSON value data, and returns its JSON Pointer and
// name; ok is false when there is none (or data is not valid JSON, which
// whoever decodes it reports). It decodes nothing but escaped names, so a
// stored document is checked in one quick pass before it is patched.
func FirstDuplicate(data []byte) (ptr, name string, ok bool) {
	if d, _ := dupScan(data, jsontext.SkipSpace(data, 0), 0); d != nil {
		return d.Pointer, d.Name, true
	}
	return "", "", false
}

// dupScan scans the value at b[i] and returns the first duplicate below it
// (nil when none) and the offset after the value (-1 when the value is not
// valid).
func dupScan(b []byte, i, depth int) (*DuplicateError, int) {
	if i >= len(b) || depth > maxDepth {
		return nil, -1
	}
	switch b[i] {
	case '{':
		var names []string
		var set map[string]struct{}
		i = jsontext.SkipSpace(b, i+1)
		if i < len(b) && b[i] == '}' {
			return nil, i + 1
		}
		for {
			if i >= len(b) || b[i] != '"' {
				return nil, -1
			}
			ks := i
			if i = jsontext.SkipString(b, i); i < 0 {
				return nil, -1
			}
			key, ok := jsontext.Unquote(b[ks:i])
			if !ok {
				return nil, -1
			}
			dup := false
			if set != nil {
				_, dup = set[key]
				set[key] = struct{}{}
			} else {
				for _, n := range names {
					if n == key {
						dup = true
					}
				}
				if names = append(names, key); len(names) > 16 {
					set = make(map[string]struct{}, 2*len(names))
					for _, n := range names {
						set[n] = struct{}{}
					}
				}
			}
			if dup {
				return &DuplicateError{Pointer: "/" + jsontext.EscapeToken(key), Name: key}, i
			}
			if i = jsontext.SkipSpace(b, i); i >= len(b) || b[i] != ':' {
				return nil, -1
			}
			d, e := dupScan(b, jsontext.SkipSpace(b, i+1), depth+1)
			if d != nil {
				d.Pointer = "/" + jsontext.EscapeToken(key) + d.Pointer
				return d, e
			}
			if e < 0 {
				return nil, -1
			}
			if i = jsontext.SkipSpace(b, e); i >= len(b) {
				return nil, -1
			}
			switch b[i] {
			case '}':
				return nil, i + 1
			case ',':
				i = jsontext.SkipSpace(b, i+1)
			default:
				return nil, -1
			}
		}
	case '[':
		i = jsontext.SkipSpace(b, i+1)
		if i < len(b) && b[i] == ']' {
			return nil, i + 1
		}
		for idx := 0; ; idx++ {
			d, e := dupScan(b, i, depth+1)
			if d != nil {
				d.Pointer = "/" + strconv.Itoa(idx) + d.Pointer
				return d, e
			}
			if e < 0 {
				return nil, -1
			}
			if i = jsontext.SkipSpace(b, e); i >= len(b) {
				return nil, -1
			}
			switch b[i] {
			case ']':
				return nil, i + 1
			case ',':
				i = jsontext.SkipSpace(b, i+1)
			default:
				return nil, -1
			}
		}
	}
	return nil, jsontext.SkipValue(b, i)
}

// Members is jsontext.ObjectMembers that also judges repeated names: it
// walks each member's value with the duplicate scan instead of skipping it,
// so one pass both splits an object and finds the first member name that
// occurs twice in one object at any depth (dup; nil when none). ok is false
// when data is not an object, or is not one Members can walk (a value that
// does not end, nesting deeper than encoding/json allows): callers fall
// back to ObjectMembers and FirstDuplicate, which judge those as before.
// Like ObjectMembers it does not validate: on a text that is not JSON it
// may split where ObjectMembers would refuse; whoever decodes the values
// (the patch engine, the parser) refuses it then.
func Members(data []byte, fn func(key string, val []byte)) (ok bool, dup *DuplicateError) {
	i := jsontext.SkipSpace(data, 0)
	if i >= len(data) || data[i] != '{' {
		return false, nil
	}
	i = jsontext.SkipSpace(data, i+1)
	if i < len(data) && data[i] == '}' {
		return jsontext.SkipSpace(data, i+1) == len(data), nil
	}
	seen := make(map[string]struct{}, 4)
	for {
		if i >= len(data) || data[i] != '"' {
			return false, nil
		}
		ks := i
		if i = jsontext.SkipString(data, i); i < 0 {
			return false, nil
		}
		key, good := jsontext.Unquote(data[ks:i])
		if !good {
			return false, nil
		}
		if _, again := seen[key]; again && dup == nil {
			dup = &DuplicateError{Pointer: "/" + jsontext.EscapeToken(key), Name: key}
		}
		seen[key] = struct{}{}
		if i = jsontext.SkipSpace(data, i); i >= len(data) || data[i] != ':' {
			return false, nil
		}
		vs := jsontext.SkipSpace(data, i+1)
		if dup == nil {
			var d *DuplicateError
			if d, i = dupScan(data, vs, 1); d != nil {
				d.Pointer = "/" + jsontext.EscapeToken(key) + d.Pointer
				dup = d
				i = jsontext.SkipValue(data, vs) // the scan stopped at the repeat
			}
		} else {
			i = jsontext.SkipValue(data, vs)
		}
		if i < 0 {
			return false, nil
		}
		fn(key, data[vs:i])
		if i = jsontext.SkipSpace(data, i); i >= len(data) {
			return false, nil
		}
		switch data[i] {
		case '}':
			return jsontext.SkipSpace(data, i+1) == len(data), dup
		case ',':
			i = jsontext.SkipSpace(data, i+1)
		default:
			return false, nil
		}
	}
}
