package jsonpatch

import (
	"bytes"
	"fmt"
	"strings"
	"unicode/utf8"

	evanphx "github.com/evanphx/json-patch/v5"
)

// How Apply works: see "How it is fast" in doc.go. In short, grouping
// (group.go) or one whole-document evanphx call on the fast path; the slow
// path (slow, below) for operations evanphx misreads and for failures, where
// the exact evaluator (exact.go) has the last word.

// Apply implements Patcher.
func (p *patcher) Apply(doc []byte, patch Patch) (out []byte, err error) {
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
	pr := p.prepare(patch)
	knownFail := false
	if d[0] == '{' || d[0] == '[' {
		if out, handled, err := p.applyGroups(d, patch, pr); handled {
			if err != nil {
				return nil, err
			}
			return p.finish(out)
		}
		if !pr.anyExact {
			out, err := p.engine(d, pr.segment(0, len(patch)), p.maxCopy)
			if err == nil {
				return p.finish(out)
			}
			knownFail = true
		}
	}
	d, err = checkDocument(d)
	if err != nil {
		return nil, err
	}
	out, i, err := p.slow(d, patch, pr, knownFail, p.newState(nil, p.maxCopy))
	if err != nil {
		return nil, opError(i, patch[i], err)
	}
	return p.finish(appendCompact(make([]byte, 0, len(out)), out))
}

// finish checks the output size.
func (p *patcher) finish(out []byte) ([]byte, error) {
	if p.maxDoc >= 0 && len(out) > p.maxDoc {
		return nil, errorf(ErrLimitExceeded, "the patched document would be %d bytes, more than the limit of %d", len(out), p.maxDoc)
	}
	return out, nil
}

// engine runs evanphx on doc with the encoded operations; a panic inside it
// becomes an error.
func (p *patcher) engine(doc, ops []byte, copyLimit int64) (out []byte, err error) {
	defer func() {
		if r := recover(); r != nil {
			out, err = nil, fmt.Errorf("evanphx panicked: %v", r)
		}
	}()
	ep, err := evanphx.DecodePatch(ops)
	if err != nil {
		return nil, err
	}
	if copyLimit < 0 {
		copyLimit = 0 // unlimited for evanphx
	}
	return ep.ApplyWithOptions(doc, &evanphx.ApplyOptions{
		SupportNegativeIndices:   p.negativeIdx,
		AccumulatedCopySizeLimit: copyLimit,
		EscapeHTML:               false,
	})
}

// slow applies patch to the valid JSON d, as described above, and returns
// the result (not compacted) or the index of the failing operation and why.
// knownFail says one evanphx run of the whole patch has already failed.
func (p *patcher) slow(d []byte, patch Patch, pr *prepared, knownFail bool, st *state) ([]byte, int, error) {
	var err error
	for i := 0; i < len(patch); {
		if pr.exact[i] || patch[i].Op == OpCopy || (d[0] != '{' && d[0] != '[') {
			if d, err = st.apply(d, patch[i]); err != nil {
				return nil, i, err
			}
			i++
			continue
		}
		j := i + 1
		for j < len(patch) && !pr.exact[j] && patch[j].Op != OpCopy {
			j++
		}
		var out []byte
		var ferr error
		if knownFail && i == 0 && j == len(patch) {
			ferr = ErrTestFailed // any error: this run has already failed
		} else {
			out, ferr = p.engine(d, pr.segment(i, j), 0)
		}
		knownFail = false
		if ferr == nil {
			d, i = out, j
			continue
		}
		// Find the first failing operation: running i..lo succeeds, i..hi fails.
		lo, hi, loOut := i, j, d
		for hi-lo > 1 {
			mid := lo + (hi-lo)/2
			if out, ferr := p.engine(d, pr.segment(i, mid), 0); ferr != nil {
				hi = mid
			} else {
				lo, loOut = mid, out
			}
		}
		if d, err = st.apply(loOut, patch[lo]); err != nil {
			return nil, lo, err
		}
		// evanphx was wrong about this operation (a "test" of 1 against
		// 1.0, say): evaluate the rest of its kind exactly rather than
		// bisect again for each.
		for k := lo + 1; k < len(patch); k++ {
			if patch[k].Op == patch[lo].Op {
				pr.exact[k] = true
			}
		}
		i = lo + 1
	}
	return d, -1, nil
}

// exactBudget bounds the bytes of document the exact evaluator may walk
// through for one Apply (each exact operation walks the containers on its
// pointers, up to the whole document), so that no patch within the other
// limits can keep Apply busy for long.
var exactBudget int64 = 256 << 20 // a variable only so that tests can lower it

func (p *patcher) newState(base []string, maxCopy int64) *state {
	return &state{negOK: p.negativeIdx, maxCopy: maxCopy, base: base, work: new(int64)}
}

// prepared holds the patch encoded for evanphx, one operation after another,
// and which operations need exact evaluation.
type prepared struct {
	buf      []byte
	offs     []int // operation i is buf[offs[i]:offs[i+1]-1] (a comma follows)
	exact    []bool
	anyExact bool
}

func (pr *prepared) segment(i, j int) []byte {
	if i == 0 && j == len(pr.exact) {
		// buf is "[" + ops joined by "," + "]" when the whole patch is asked for.
		return pr.buf
	}
	seg := make([]byte, 0, pr.offs[j]-pr.offs[i]+1)
	seg = append(seg, '[')
	seg = append(seg, pr.buf[pr.offs[i]:pr.offs[j]-1]...)
	return append(seg, ']')
}

func (p *patcher) prepare(patch Patch) *prepared {
	size := 2
	for _, op := range patch {
		size += len(op.Path) + len(op.From) + len(op.Value) + 48
	}
	pr := &prepared{buf: make([]byte, 0, size), offs: make([]int, len(patch)+1), exact: make([]bool, len(patch))}
	pr.buf = append(pr.buf, '[')
	for i, op := range patch {
		pr.offs[i] = len(pr.buf)
		pr.buf = append(pr.buf, `{"op":"`...)
		pr.buf = append(pr.buf, op.Op...)
		pr.buf = append(pr.buf, `","path":`...)
		pr.buf = appendString(pr.buf, op.Path)
		if op.Op == OpMove || op.Op == OpCopy {
			pr.buf = append(pr.buf, `,"from":`...)
			pr.buf = appendString(pr.buf, op.From)
		}
		if usesValue(op.Op) {
			pr.buf = append(pr.buf, `,"value":`...)
			pr.buf = append(pr.buf, op.Value...)
		}
		pr.buf = append(pr.buf, '}', ',')
		if needsExact(op) {
			pr.exact[i] = true
			pr.anyExact = true
		}
	}
	pr.offs[len(patch)] = len(pr.buf)
	if len(patch) > 0 {
		pr.buf[len(pr.buf)-1] = ']'
	} else {
		pr.buf = append(pr.buf, ']')
	}
	return pr
}

// needsExact reports whether evanphx would misread op whatever the document.
func needsExact(op Operation) bool {
	if riskyPointer(op.Path) {
		return true
	}
	switch op.Op {
	case OpMove:
		return op.From == op.Path || riskyPointer(op.From)
	case OpCopy:
		return riskyPointer(op.From)
	case OpTest:
		// evanphx treats a missing member as null and panics on null in
		// arrays; comparing objects, it decodes the document's objects in a
		// way that later re-encodes them with HTML escaping ("<" as \u003c).
		return bytes.Contains(op.Value, []byte("null")) || bytes.IndexByte(op.Value, '{') >= 0
	}
	return false
}

// riskyPointer: the whole document, an empty token (evanphx reads it as the
// container itself), or a numeric token that strconv.Atoi accepts but RFC
// 6901 does not ("01", "+1", "-0").
func riskyPointer(p string) bool {
	if p == "" || strings.HasSuffix(p, "/") || strings.Contains(p, "//") {
		return true
	}
	for rest := p[1:]; ; {
		tok := rest
		k := strings.IndexByte(rest, '/')
		if k >= 0 {
			tok = rest[:k]
		}
		if len(tok) > 1 && (tok[0] == '+' || tok[0] == '0' || tok[0] == '-') && allDigits(tok[1:]) {
			if tok[0] != '-' || tok[1] == '0' {
				return true
			}
		}
		if k < 0 {
			return false
		}
		rest = rest[k+1:]
	}
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
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
