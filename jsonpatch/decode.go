package jsonpatch

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Decode parses a JSON Patch document strictly and validates it (see
// Patch.Validate). On top of what encoding/json checks, an operation object
// that names a member twice (two "op"s, say) is ErrInvalidPatch, because
// decoders disagree on which one wins. Members an operation does not use are
// ignored, as RFC 6902 requires, and are not kept in the result. Errors tied
// to one operation are *OperationError.
func Decode(data []byte) (Patch, error) {
	d := trimSpace(data)
	if len(d) == 0 {
		return nil, errorf(ErrInvalidPatch, "the patch is empty; a patch is a JSON array of operations such as [{\"op\":\"replace\",\"path\":\"/a\",\"value\":1}]")
	}
	if !utf8.Valid(d) {
		return nil, errUTF8(d, ErrInvalidPatch)
	}
	if !validJSON(d) {
		var v any
		err := json.Unmarshal(d, &v)
		return nil, errorf(ErrInvalidPatch, "not valid JSON: %v", err)
	}
	if d[0] != '[' {
		hint := ""
		if d[0] == '{' {
			hint = " (to send one operation, wrap it in [...])"
		}
		return nil, errorf(ErrInvalidPatch, "a patch is a JSON array of operations, got %s%s", kindName(d[0]), hint)
	}
	cs := children(d, span{0, len(d)})
	p := make(Patch, 0, len(cs))
	for i, c := range cs {
		v := d[c.val.start:c.val.end]
		op, has, err := decodeOperation(v)
		if err != nil {
			return nil, opError(i, op, err)
		}
		if err := checkOperation(op, has); err != nil {
			return nil, opError(i, op, err)
		}
		p = append(p, op)
	}
	return p, nil
}

// presence records which members an operation object had.
type presence struct{ op, path, from, value bool }

// opName decodes the quoted op name, without allocating for the known ones.
func opName(raw []byte) string {
	switch string(raw[1 : len(raw)-1]) {
	case OpAdd:
		return OpAdd
	case OpRemove:
		return OpRemove
	case OpReplace:
		return OpReplace
	case OpMove:
		return OpMove
	case OpCopy:
		return OpCopy
	case OpTest:
		return OpTest
	}
	return decodeKey(raw, 0, len(raw))
}

func decodeOperation(v []byte) (Operation, presence, error) {
	var op Operation
	var has presence
	if v[0] != '{' {
		return op, has, errorf(ErrInvalidPatch, "an operation is a JSON object such as {\"op\":\"add\",\"path\":\"/a\",\"value\":1}, got %s", kindName(v[0]))
	}
	var from, value []byte
	i := skipWS(v, 1)
	for v[i] != '}' {
		ke := skipString(v, i)
		key := v[i+1 : ke-1]
		name := "" // the member name when it is one RFC 6902 defines
		if hasBackslash(key) {
			name = decodeKey(v, i, ke)
		} else {
			switch string(key) { // no allocation
			case "op":
				name = "op"
			case "path":
				name = "path"
			case "from":
				name = "from"
			case "value":
				name = "value"
			}
		}
		i = skipWS(v, skipWS(v, ke)+1) // past ':'
		e := skipValue(v, i)
		raw := v[i:e]
		i = skipWS(v, e)
		if v[i] == ',' {
			i = skipWS(v, i+1)
		}
		var seen *bool
		switch name {
		case "op":
			seen = &has.op
		case "path":
			seen = &has.path
		case "from":
			seen = &has.from
		case "value":
			seen = &has.value
		default:
			continue // RFC 6902 section 4: other members are ignored
		}
		if *seen {
			return op, has, errorf(ErrInvalidPatch, "member %q appears more than once in the operation object; keep exactly one", name)
		}
		*seen = true
		switch name {
		case "from":
			from = raw
		case "value":
			value = raw
		default:
			if raw[0] != '"' {
				return op, has, errorf(ErrInvalidPatch, "member %q must be a string, got %s", name, kindName(raw[0]))
			}
			if name == "op" {
				op.Op = opName(raw)
			} else {
				op.Path = decodeKey(raw, 0, len(raw))
			}
		}
	}
	switch op.Op {
	case OpMove, OpCopy:
		if has.from {
			if from[0] != '"' {
				return op, has, errorf(ErrInvalidPatch, "member \"from\" must be a string, got %s", kindName(from[0]))
			}
			op.From = decodeKey(from, 0, len(from))
		}
	}
	switch op.Op {
	case OpAdd, OpReplace, OpTest:
		if has.value {
			op.Value = append(json.RawMessage(nil), value...)
		}
	}
	return op, has, nil
}

// Validate checks every operation without a document: known op names, the
// members each op requires, RFC 6901 pointer syntax, and the rules that need
// no document (remove of the whole document, move into its own child). A
// Patch built in Go cannot tell an absent "from" from "" (the whole
// document), so From is always read as a pointer for move and copy.
func (p Patch) Validate() error {
	for i, op := range p {
		has := presence{op: op.Op != "", path: true, from: true, value: op.Value != nil}
		if err := checkOperation(op, has); err != nil {
			return opError(i, op, err)
		}
		if has.value && usesValue(op.Op) && (!validJSON(op.Value) || !utf8.Valid(op.Value)) {
			return opError(i, op, errorf(ErrInvalidPatch, "\"value\" is not valid UTF-8 JSON"))
		}
	}
	return nil
}

func usesValue(op string) bool { return op == OpAdd || op == OpReplace || op == OpTest }

func checkOperation(op Operation, has presence) error {
	if !has.op {
		return errorf(ErrInvalidPatch, "missing member \"op\" (one of add, remove, replace, move, copy, test)")
	}
	switch op.Op {
	case OpAdd, OpRemove, OpReplace, OpMove, OpCopy, OpTest:
	default:
		return errorf(ErrInvalidPatch, "unknown op %q (want one of add, remove, replace, move, copy, test)", op.Op)
	}
	if !has.path {
		return errorf(ErrInvalidPatch, "missing member \"path\" (a JSON Pointer such as \"/a/b\", or \"\" for the whole document)")
	}
	if err := checkPointerField("path", op.Path); err != nil {
		return err
	}
	switch op.Op {
	case OpMove, OpCopy:
		if !has.from {
			return errorf(ErrInvalidPatch, "missing member \"from\" (the JSON Pointer to %s from)", op.Op)
		}
		if err := checkPointerField("from", op.From); err != nil {
			return err
		}
	case OpAdd, OpReplace, OpTest:
		if !has.value {
			return errorf(ErrInvalidPatch, "missing member \"value\" (write null for JSON null)")
		}
	}
	if op.Op == OpRemove && op.Path == "" {
		return errorf(ErrInvalidPatch, "cannot remove the whole document (path \"\"); use replace with path \"\" to swap it")
	}
	if op.Op == OpMove && op.From != op.Path && (op.From == "" || strings.HasPrefix(op.Path, op.From+"/")) {
		return errorf(ErrInvalidPatch, "cannot move %q into its own child %q", op.From, op.Path)
	}
	return nil
}

func checkPointerField(name, p string) error {
	if !utf8.ValidString(p) {
		return errorf(ErrInvalidPointer, "%s %q is not valid UTF-8", name, p)
	}
	err := checkPointer(p)
	if d, ok := err.(*detailError); ok {
		return &detailError{sentinels: d.sentinels, detail: name + " " + d.detail}
	}
	return err
}
