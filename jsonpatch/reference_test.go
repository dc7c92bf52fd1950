package jsonpatch

// state evaluates one operation at a time on the bytes of a valid JSON
// document, with the exact RFC 6902 semantics and the package's messages,
// splicing a new copy of the document per operation: slow, and simple
// enough to be the reference Apply is checked against (referenceApply).
type state struct {
	negOK   bool
	maxCopy int64
	copied  int64
	base    []string // tokens of the subtree d is, for messages
	work    *int64   // bytes walked
}

// exactBudget bounds the bytes the reference evaluator walks, so that a
// fuzzed patch cannot keep it busy for long.
var exactBudget int64 = 256 << 20

func (p *Applier) newState(base []string, maxCopy int64) *state {
	return &state{negOK: p.negativeIdx, maxCopy: maxCopy, base: base, work: new(int64)}
}

func (st *state) apply(d []byte, op Operation) ([]byte, error) {
	*st.work += int64(len(d))
	if *st.work > exactBudget {
		return nil, errorf(ErrLimitExceeded, "this patch needs too many operations evaluated one by one on a %d-byte document (a test whose value holds null or an object, a pointer with an empty token, a copy, ...); split it into smaller patches", len(d))
	}
	path, _ := ParsePointer(op.Path) // validated before
	switch op.Op {
	case OpAdd:
		return st.add(d, path, trimSpace(op.Value))
	case OpRemove:
		return st.remove(d, path)
	case OpReplace:
		if len(path) == 0 {
			return append([]byte(nil), trimSpace(op.Value)...), nil
		}
		at, err := resolve(d, st.base, path, st.negOK)
		if err != nil {
			return nil, err
		}
		return splice(d, at.start, at.end, trimSpace(op.Value)), nil
	case OpTest:
		at, err := resolve(d, st.base, path, st.negOK)
		if err != nil {
			return nil, also(ErrTestFailed, err)
		}
		got := d[at.start:at.end]
		if !equalJSON(got, op.Value) {
			return nil, errorf(ErrTestFailed, "%s is %s, not %s", st.where(path), snippet(got), snippet(trimSpace(op.Value)))
		}
		return d, nil
	case OpMove, OpCopy:
		from, _ := ParsePointer(op.From)
		at, err := resolve(d, st.base, from, st.negOK)
		if err != nil {
			return nil, err
		}
		val := append([]byte(nil), d[at.start:at.end]...)
		if op.Op == OpCopy {
			st.copied += compactLen(val)
			if st.maxCopy >= 0 && st.copied > st.maxCopy {
				return nil, errorf(ErrLimitExceeded, "copy operations of this patch add %d bytes, more than the limit of %d", st.copied, st.maxCopy)
			}
			return st.add(d, path, val)
		}
		if op.From == op.Path {
			return d, nil
		}
		if d, err = st.remove(d, from); err != nil {
			return nil, err
		}
		return st.add(d, path, val)
	}
	return nil, errorf(ErrInvalidPatch, "unknown op %q", op.Op)
}

func (st *state) where(tokens []string) string {
	return where(joinTokens(st.base, tokens))
}

// parent resolves all but the last token and checks it is a container.
func (st *state) parent(d []byte, path []string) (span, error) {
	at, err := resolve(d, st.base, path[:len(path)-1], st.negOK)
	if err != nil {
		return at, err
	}
	if c := d[at.start]; c != '{' && c != '[' {
		return at, errorf(ErrPathNotFound, "%s is %s, not an object or array, so it has no member %q", st.where(path[:len(path)-1]), kindName(c), path[len(path)-1])
	}
	return at, nil
}

func (st *state) add(d []byte, path []string, val []byte) ([]byte, error) {
	if len(path) == 0 {
		return append([]byte(nil), val...), nil
	}
	at, err := st.parent(d, path)
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	cs := children(d, at)
	if d[at.start] == '{' {
		for k := len(cs) - 1; k >= 0; k-- {
			if cs[k].key == last {
				return splice(d, cs[k].val.start, cs[k].val.end, val), nil
			}
		}
		member := appendString(nil, last)
		member = append(member, ':')
		member = append(member, val...)
		return insertChild(d, at, cs, len(cs), member), nil
	}
	idx, err := arrayIndex(last, len(cs), true, st.negOK, joinTokens(st.base, path[:len(path)-1]))
	if err != nil {
		return nil, err
	}
	return insertChild(d, at, cs, idx, val), nil
}

func (st *state) remove(d []byte, path []string) ([]byte, error) {
	at, err := st.parent(d, path)
	if err != nil {
		return nil, err
	}
	last := path[len(path)-1]
	cs := children(d, at)
	k := -1
	if d[at.start] == '{' {
		for n := len(cs) - 1; n >= 0; n-- {
			if cs[n].key == last {
				k = n
				break
			}
		}
		if k < 0 {
			return nil, errorf(ErrPathNotFound, "%s has no member %q%s", st.where(path[:len(path)-1]), last, memberList(d, at))
		}
	} else if k, err = arrayIndex(last, len(cs), false, st.negOK, joinTokens(st.base, path[:len(path)-1])); err != nil {
		return nil, err
	}
	switch {
	case k > 0:
		return splice(d, cs[k-1].val.end, cs[k].val.end), nil
	case len(cs) > 1:
		return splice(d, cs[0].keyStart, cs[1].keyStart), nil
	default:
		return splice(d, cs[0].keyStart, cs[0].val.end), nil
	}
}

// insertChild inserts text (a member "k":v or an element) as child number pos.
func insertChild(d []byte, at span, cs []child, pos int, text []byte) []byte {
	switch {
	case len(cs) == 0:
		return splice(d, at.start+1, at.start+1, text)
	case pos == len(cs):
		e := cs[len(cs)-1].val.end
		return splice(d, e, e, []byte{','}, text)
	default:
		s := cs[pos].keyStart
		return splice(d, s, s, text, []byte{','})
	}
}

// splice returns a new slice: d with d[s:e] replaced by parts.
func splice(d []byte, s, e int, parts ...[]byte) []byte {
	n := len(d) - (e - s)
	for _, p := range parts {
		n += len(p)
	}
	out := make([]byte, 0, n)
	out = append(out, d[:s]...)
	for _, p := range parts {
		out = append(out, p...)
	}
	return append(out, d[e:]...)
}
