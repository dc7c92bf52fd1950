package jsonpatch

import (
	"bytes"
	"hash/maphash"
	"slices"
	"strconv"
	"strings"
)

// The document as Apply edits it: a tree that is expanded only along the
// pointers the patch follows. A node is either the JSON text of a value,
// shared with the input document or the patch and never written to, or a
// container whose members or elements are nodes. Expanding a container
// scans its text once; output writes untouched text as it is (compacted if
// the input had whitespace). So one Apply reads the document about once to
// validate it, once per level of the containers the patch goes into, and
// once to write the result, whatever the number of operations.

type node struct {
	raw  []byte     // the value's JSON text, when c is nil
	c    *container // the expanded container, or nil
	flat bool       // raw holds no whitespace outside strings
}

type container struct {
	obj     bool
	members []member // objects, in document order; removed ones stay, marked dead
	elems   []node   // arrays
	live    int      // members not dead
	index   []int32  // objects with many members: hash table of member positions+1
	used    int      // entries in index
}

type member struct {
	k    []byte // the name as written, quoted
	esc  bool   // k holds an escape, so it must be decoded to compare
	dead bool
	v    node
}

// indexFrom: objects with more members than this get a hash index at their
// first lookup; smaller ones are scanned.
const indexFrom = 16

var hashSeed = maphash.MakeSeed()

// name returns the decoded member name (without allocating when it has no
// escapes, as a slice of k).
func (m *member) name() []byte {
	if !m.esc {
		return m.k[1 : len(m.k)-1]
	}
	return []byte(decodeKey(m.k, 0, len(m.k)))
}

func (m *member) is(key string) bool {
	if !m.esc {
		return string(m.k[1:len(m.k)-1]) == key
	}
	return decodeKey(m.k, 0, len(m.k)) == key
}

// find returns the position of the last live member named key, or -1.
// Later duplicates win, as in decoders.
func (c *container) find(key string) int {
	if c.index == nil && len(c.members) > indexFrom {
		c.rebuildIndex()
	}
	if c.index == nil {
		for k := len(c.members) - 1; k >= 0; k-- {
			if m := &c.members[k]; !m.dead && m.is(key) {
				return k
			}
		}
		return -1
	}
	mask := len(c.index) - 1
	best := -1
	for h := int(maphash.String(hashSeed, key)) & mask; ; h = (h + 1) & mask {
		e := int(c.index[h]) - 1
		if e < 0 {
			return best
		}
		if m := &c.members[e]; e > best && !m.dead && m.is(key) {
			best = e
		}
	}
}

func (c *container) rebuildIndex() {
	size := 32
	for size < 2*(c.live+8) {
		size *= 2
	}
	c.index = make([]int32, size)
	c.used = 0
	for k := range c.members {
		if !c.members[k].dead {
			c.insertIndex(k)
		}
	}
}

func (c *container) insertIndex(k int) {
	if 2*(c.used+1) > len(c.index) {
		c.rebuildIndex() // inserts k too when it is live
		return
	}
	mask := len(c.index) - 1
	h := int(maphash.Bytes(hashSeed, c.members[k].name())) & mask
	for c.index[h] != 0 {
		h = (h + 1) & mask
	}
	c.index[h] = int32(k + 1)
	c.used++
}

func (c *container) appendMember(key string, v node) {
	k := appendString(make([]byte, 0, len(key)+2), key)
	c.members = append(c.members, member{k: k, esc: bytes.IndexByte(k, '\\') >= 0, v: v})
	c.live++
	if c.index != nil {
		c.insertIndex(len(c.members) - 1)
	}
}

// memberList describes the live members of an object for error messages,
// as memberList does for an object's text.
func (c *container) memberList() string {
	if c.live == 0 {
		return " (it is empty)"
	}
	const max = 20
	names := make([]string, 0, max+1)
	for k := range c.members {
		m := &c.members[k]
		if m.dead {
			continue
		}
		if len(names) == max {
			names = append(names, "...")
			break
		}
		names = append(names, strconv.Quote(string(m.name())))
	}
	return " (members: " + strings.Join(names, ", ") + ")"
}

// kindOf returns the first byte of n's JSON text: its kind.
func kindOf(n *node) byte {
	if n.c == nil {
		return n.raw[0]
	}
	if n.c.obj {
		return '{'
	}
	return '['
}

// tree is the state of one Apply.
type tree struct {
	root    node
	negOK   bool
	maxCopy int64 // negative: no limit
	copied  int64
	work    int64 // bytes scanned and elements moved, against workBudget

	// Scratch space for expand, which then allocates each container's
	// children exactly once.
	members []member
	elems   []node
}

// workBudget bounds the work of one Apply beyond reading the document
// once: bytes scanned to expand containers, to compare "test" values and to
// copy, and array elements shifted by inserts and removals. Documents of
// ordinary depth never come near it; a patch that would take seconds (tens
// of thousands of removals at the front of a million-element array, say)
// gets ErrLimitExceeded instead.
var workBudget int64 = 1 << 28 // a variable only so that tests can lower it

func (t *tree) spend(n int) error {
	t.work += int64(n)
	if t.work > workBudget {
		return errorf(ErrLimitExceeded, "applying this patch would scan or shift more than %d bytes or elements of the document (operations deep inside very large or deeply nested values, or many inserts and removals at the front of a long array); split the patch or restructure the document", workBudget)
	}
	return nil
}

// expand turns n's text into a container of nodes sharing that text.
func (t *tree) expand(n *node) error {
	if n.c != nil {
		return nil
	}
	b := n.raw
	if err := t.spend(len(b)); err != nil {
		return err
	}
	c := &container{obj: b[0] == '{'}
	members, elems := t.members[:0], t.elems[:0]
	i := skipWS(b, 1)
	if b[i] != '}' && b[i] != ']' {
		for {
			if c.obj {
				ke := skipString(b, i)
				k := b[i:ke]
				i = skipWS(b, skipWS(b, ke)+1)
				e := skipValue(b, i)
				members = append(members, member{k: k, esc: bytes.IndexByte(k, '\\') >= 0, v: node{raw: b[i:e], flat: n.flat}})
				i = e
			} else {
				e := skipValue(b, i)
				elems = append(elems, node{raw: b[i:e], flat: n.flat})
				i = e
			}
			i = skipWS(b, i)
			if b[i] != ',' {
				break
			}
			i = skipWS(b, i+1)
		}
	}
	if c.obj {
		c.members = slices.Clone(members)
	} else {
		c.elems = slices.Clone(elems)
	}
	t.members, t.elems = members[:0], elems[:0]
	c.live = len(c.members)
	n.c, n.raw = c, nil
	return nil
}

// resolve finds the node at tokens, expanding the containers on the way.
// The *node is valid until the next change to its container.
func (t *tree) resolve(tokens []string) (*node, error) {
	n := &t.root
	for i, tok := range tokens {
		k := kindOf(n)
		if k != '{' && k != '[' {
			return nil, errorf(ErrPathNotFound, "%s is %s, not an object or array, so it has no member %q", where(tokens[:i]), kindName(k), tok)
		}
		if err := t.expand(n); err != nil {
			return nil, err
		}
		c := n.c
		if c.obj {
			j := c.find(tok)
			if j < 0 {
				return nil, errorf(ErrPathNotFound, "%s has no member %q%s", where(tokens[:i]), tok, c.memberList())
			}
			n = &c.members[j].v
			continue
		}
		idx, err := arrayIndex(tok, len(c.elems), false, t.negOK, where(tokens[:i]))
		if err != nil {
			return nil, err
		}
		n = &c.elems[idx]
	}
	return n, nil
}

// parent resolves all but the last token, which must be a container.
func (t *tree) parent(path []string) (*container, error) {
	up := path[:len(path)-1]
	n, err := t.resolve(up)
	if err != nil {
		return nil, err
	}
	if k := kindOf(n); k != '{' && k != '[' {
		return nil, errorf(ErrPathNotFound, "%s is %s, not an object or array, so it has no member %q", where(up), kindName(k), path[len(path)-1])
	}
	if err := t.expand(n); err != nil {
		return nil, err
	}
	return n.c, nil
}

func (t *tree) add(path []string, val node) error {
	if len(path) == 0 {
		t.root = val
		return nil
	}
	c, err := t.parent(path)
	if err != nil {
		return err
	}
	last := path[len(path)-1]
	if c.obj {
		if j := c.find(last); j >= 0 {
			c.members[j].v = val
		} else {
			c.appendMember(last, val)
		}
		return nil
	}
	idx, err := arrayIndex(last, len(c.elems), true, t.negOK, where(path[:len(path)-1]))
	if err != nil {
		return err
	}
	if err := t.spend(len(c.elems) - idx); err != nil {
		return err
	}
	c.elems = slices.Insert(c.elems, idx, val)
	return nil
}

func (t *tree) remove(path []string) error {
	c, err := t.parent(path)
	if err != nil {
		return err
	}
	last := path[len(path)-1]
	if c.obj {
		j := c.find(last)
		if j < 0 {
			return errorf(ErrPathNotFound, "%s has no member %q%s", where(path[:len(path)-1]), last, c.memberList())
		}
		c.members[j].dead = true
		c.members[j].v = node{}
		c.live--
		return nil
	}
	idx, err := arrayIndex(last, len(c.elems), false, t.negOK, where(path[:len(path)-1]))
	if err != nil {
		return err
	}
	if err := t.spend(len(c.elems) - idx); err != nil {
		return err
	}
	c.elems = slices.Delete(c.elems, idx, idx+1)
	return nil
}

// text returns n's JSON text: its own when it is not expanded, else written
// anew (compact).
func (t *tree) text(n *node) ([]byte, error) {
	if n.c == nil {
		return n.raw, t.spend(len(n.raw))
	}
	out := writeNode(make([]byte, 0, sizeNode(n)), n)
	return out, t.spend(len(out))
}

// valueNode makes a node of an operation's value.
func valueNode(v []byte) node {
	v = trimSpace(v)
	return node{raw: v, flat: bytes.IndexAny(v, " \t\r\n") < 0}
}

func (t *tree) apply(op Operation) error {
	path, _ := ParsePointer(op.Path) // validated before
	switch op.Op {
	case OpAdd:
		return t.add(path, valueNode(op.Value))
	case OpRemove:
		return t.remove(path)
	case OpReplace:
		n, err := t.resolve(path)
		if err != nil {
			return err
		}
		*n = valueNode(op.Value)
		return nil
	case OpTest:
		n, err := t.resolve(path)
		if err != nil {
			return also(ErrTestFailed, err)
		}
		got, err := t.text(n)
		if err != nil {
			return err
		}
		if !equalJSON(got, op.Value) {
			return errorf(ErrTestFailed, "%s is %s, not %s", where(path), snippet(got), snippet(trimSpace(op.Value)))
		}
		return nil
	case OpMove, OpCopy:
		from, _ := ParsePointer(op.From)
		n, err := t.resolve(from)
		if err != nil {
			return err
		}
		if op.Op == OpCopy {
			text, err := t.text(n)
			if err != nil {
				return err
			}
			val := node{raw: text, flat: n.c != nil || n.flat}
			size := int64(len(text))
			if !val.flat {
				size = compactLen(text)
			}
			t.copied += size
			if t.maxCopy >= 0 && t.copied > t.maxCopy {
				return errorf(ErrLimitExceeded, "copy operations of this patch add %d bytes, more than the limit of %d", t.copied, t.maxCopy)
			}
			return t.add(path, val)
		}
		if op.From == op.Path {
			return nil
		}
		val := *n
		if err := t.remove(from); err != nil {
			return err
		}
		return t.add(path, val)
	}
	return errorf(ErrInvalidPatch, "unknown op %q", op.Op)
}

// sizeNode is an upper bound of the length of n written compact.
func sizeNode(n *node) int {
	if n.c == nil {
		return len(n.raw)
	}
	c := n.c
	size := 2 + len(c.elems) + 2*c.live
	for k := range c.members {
		if m := &c.members[k]; !m.dead {
			size += len(m.k) + sizeNode(&m.v)
		}
	}
	for k := range c.elems {
		size += sizeNode(&c.elems[k])
	}
	return size
}

// writeNode appends n as compact JSON.
func writeNode(out []byte, n *node) []byte {
	if n.c == nil {
		if n.flat {
			return append(out, n.raw...)
		}
		return appendCompact(out, n.raw)
	}
	c := n.c
	if c.obj {
		out = append(out, '{')
		first := true
		for k := range c.members {
			m := &c.members[k]
			if m.dead {
				continue
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			out = append(out, m.k...)
			out = append(out, ':')
			out = writeNode(out, &m.v)
		}
		return append(out, '}')
	}
	out = append(out, '[')
	for k := range c.elems {
		if k > 0 {
			out = append(out, ',')
		}
		out = writeNode(out, &c.elems[k])
	}
	return append(out, ']')
}
