package jsonpatch

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// How Apply works: see "How it is fast" in doc.go, and tree.go.

// Apply implements Patcher.
func (p *Applier) Apply(doc []byte, patch Patch) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("jsonpatch: internal error, please report it: %v", r)
		}
	}()
	if p.maxOps >= 0 && len(patch) > p.maxOps {
		return nil, errorf(ErrLimitExceeded, "the patch has %d operations, more than the limit of %d; split it", len(patch), p.maxOps)
	}
	if p.maxDoc >= 0 && len(doc) > p.maxDoc {
		return nil, errorf(ErrLimitExceeded, "the document is %d bytes, more than the limit of %d", len(doc), p.maxDoc)
	}
	if err := patch.Validate(); err != nil {
		return nil, err
	}
	d := trimSpace(doc)
	if len(d) == 0 {
		return nil, errorf(ErrInvalidDocument, "the document is empty; a JSON document needs at least one value such as {} or []")
	}
	if !utf8.Valid(d) {
		return nil, errUTF8(d, ErrInvalidDocument)
	}
	if int64(len(d)) > maxText {
		return nil, errorf(ErrLimitExceeded, "the document is %d bytes; documents of 4 GiB or more are not supported", len(d))
	}
	for i, op := range patch {
		if int64(len(op.Value)) > maxText {
			return nil, opError(i, op, errorf(ErrLimitExceeded, "the value is %d bytes; values of 4 GiB or more are not supported", len(op.Value)))
		}
	}
	t := newTree(d, patch, p.negativeIdx, p.maxCopy)
	defer t.release()
	ok, flat := scanValid(d, &t.spans)
	if !ok {
		if _, err := checkDocument(d); err != nil {
			return nil, err
		}
		// json.Valid is the judge (see FuzzScanValid): go on without the index.
		flat = false
		t.spans.reset()
	}
	t.root.flat = flat
	onlyTests := true
	for i, op := range patch {
		if err := t.apply(i); err != nil {
			return nil, opError(i, op, err)
		}
		onlyTests = onlyTests && op.Op == "test"
	}
	if onlyTests {
		// Nothing changed: the document comes back byte for byte (without
		// the white space around it, as every result).
		return bytes.Clone(d), nil
	}
	return p.finish(t.write(make([]byte, 0, t.size(&t.root)), &t.root))
}

// finish checks the output size.
func (p *Applier) finish(out []byte) ([]byte, error) {
	if p.maxDoc >= 0 && len(out) > p.maxDoc {
		return nil, errorf(ErrLimitExceeded, "the patched document would be %d bytes, more than the limit of %d", len(out), p.maxDoc)
	}
	return out, nil
}

// appendString appends s as a JSON string.
func appendString(b []byte, s string) []byte {
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '"' || c == '\\':
			b = append(b, '\\', c)
		case c < 0x20:
			b = append(b, `\u00`...)
			b = append(b, "0123456789abcdef"[c>>4], "0123456789abcdef"[c&0xf])
		default:
			b = append(b, c)
		}
	}
	return append(b, '"')
}
