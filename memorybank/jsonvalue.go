package memorybank

import (
	"encoding/json"
	"errors"
	"fmt"
	"unicode/utf8"
)

// A write decodes each value of the document it stores exactly once: parse
// reads a JSON value into what gojsonschema validates (map[string]any,
// []any, json.Number, string, bool, nil) and, in the same pass, writes it
// indented as json.Indent(dst, src, "", "  ") would at the given depth, so
// that the stored form costs no second pass over a large content.
// encoding/json would need two passes for each (its decoder checks the whole
// value before decoding it), and gojsonschema a third to parse bytes.

// maxDepth is the nesting limit of parse, as encoding/json's.
const maxDepth = 10000

var errDepth = errors.New("exceeded max depth")

type parser struct {
	data  []byte
	i     int
	out   []byte
	depth int
}

// parseIndented decodes the JSON value in data and appends it, indented as
// at nesting depth depth, to out. Member order and the spelling of numbers
// and strings are kept.
func parseIndented(data []byte, depth int, out []byte) (any, []byte, error) {
	p := &parser{data: data, out: out, depth: depth}
	p.ws()
	v, err := p.value()
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

func (p *parser) newline() {
	p.out = append(p.out, '\n')
	for range p.depth {
		p.out = append(p.out, ' ', ' ')
	}
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

func (p *parser) object() (any, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, errDepth
	}
	p.i++
	m := map[string]any{}
	p.out = append(p.out, '{')
	if p.ws(); p.i < len(p.data) && p.data[p.i] == '}' {
		p.i++
		p.depth--
		p.out = append(p.out, '}')
		return m, nil
	}
	for {
		p.newline()
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
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		m[k] = v
		if p.ws(); p.i >= len(p.data) {
			return nil, p.errorf("unexpected end of JSON input")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.out = append(p.out, ',')
			p.ws()
		case '}':
			p.i++
			p.depth--
			p.newline()
			p.out = append(p.out, '}')
			return m, nil
		default:
			return nil, p.errorf("invalid character %q after object member", p.data[p.i])
		}
	}
}

func (p *parser) array() (any, error) {
	if p.depth++; p.depth > maxDepth {
		return nil, errDepth
	}
	p.i++
	a := []any{}
	p.out = append(p.out, '[')
	if p.ws(); p.i < len(p.data) && p.data[p.i] == ']' {
		p.i++
		p.depth--
		p.out = append(p.out, ']')
		return a, nil
	}
	for {
		p.newline()
		v, err := p.value()
		if err != nil {
			return nil, err
		}
		a = append(a, v)
		if p.ws(); p.i >= len(p.data) {
			return nil, p.errorf("unexpected end of JSON input")
		}
		switch p.data[p.i] {
		case ',':
			p.i++
			p.out = append(p.out, ',')
			p.ws()
		case ']':
			p.i++
			p.depth--
			p.newline()
			p.out = append(p.out, ']')
			return a, nil
		default:
			return nil, p.errorf("invalid character %q after array element", p.data[p.i])
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
			var s string // escapes or invalid UTF-8: decode as encoding/json does
			if err := json.Unmarshal(tok, &s); err != nil {
				return "", err
			}
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
