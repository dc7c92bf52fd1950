package jsonpatch

import (
	"bytes"
	"hash/maphash"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The document as Apply edits it: a tree that is expanded only along the
// pointers the patch follows. A node is either the JSON text of a value,
// shared with the input document or the patch and never written to, or a
// container whose members or elements are nodes. Expanding a container
// scans its text once, jumping over the children of 64 bytes or more whose
// ends the validating scan recorded (spanIndex); output writes untouched
// text as it is (compacted if the input had whitespace). So one Apply reads
// the document once to check it is UTF-8, once to validate it, a little of
// it per container the patch goes into, and once to write the result,
// whatever the number of operations.
//
// The file is longer than this repository's ~600 lines on purpose: the
// node layout, expansion, lookup and writing share one set of invariants
// (offsets into the sources, arenas, the span index) that are checked by
// reading them together.
//
// Texts are referred to by offsets into the tree's sources (the document,
// the names of added members, the operations' values, copied values), which
// keeps a node at 24 bytes and a member at 40.

type node struct {
	off, end uint32     // the value's text is t.source(src)[off:end], when c is nil
	src      uint32     // see tree.source
	flat     bool       // the text holds no whitespace outside strings
	c        *container // the expanded container, or nil
}

type container struct {
	members []member // objects, in document order; removed ones stay, marked dead
	elems   []node   // arrays
	index   *index   // objects with many members, once looked up
	live    int32    // members not dead
	obj     bool
}

type member struct {
	koff, kend, ksrc uint32 // the name as written, quoted
	esc              bool   // the name holds an escape, so it must be decoded to compare
	dead             bool
	v                node
}

// index is a hash table of member positions+1 (0: empty slot).
type index struct {
	slots []int32
	used  int
}

// indexFrom: objects with more members than this get a hash index at their
// first lookup; smaller ones are scanned.
const indexFrom = 16

var hashSeed = maphash.MakeSeed()

// tree is the state of one Apply.
type tree struct {
	doc     []byte
	keys    []byte   // the names of members added, quoted
	patch   Patch    // operation i's value is source 2+i
	copies  [][]byte // copied values written anew: sources 2+len(patch)...
	root    node
	negOK   bool
	maxCopy int64 // negative: no limit
	copied  int64
	work    int64 // bytes scanned and elements moved, against workBudget
	*scratch
	path, from []string // tokens of the current operation
}

// scratch is where expand collects a container's children before it
// allocates them once, exactly, and the arenas the containers and their
// children are allocated from; it is reused across Applies, so that once a
// pooled scratch has seen a document of some shape, expanding containers
// allocates nothing.
type scratch struct {
	members []member
	elems   []node
	used    int // the most children expand has collected, to clear
	spans   spanIndex
	ctrs    arena[container]
	mems    arena[member]
	nodes   arena[node]
	keyBuf  []byte // tree.keys, kept
}

var scratchPool = sync.Pool{New: func() any { return new(scratch) }}

// keepArena is the most bytes an arena of a scratch keeps for the next
// Apply (three arenas: at most 6 MiB held by an idle scratch, until the
// pool lets it go at a garbage collection); a rare giant's go to the
// collector.
const keepArena = 2 << 20

// maxText: offsets are 32 bits.
const maxText = math.MaxUint32

// newTree returns the tree of doc, which must be checked with
// scanValid(doc, &t.spans) and t.root.flat set before anything else.
func newTree(doc []byte, patch Patch, negOK bool, maxCopy int64) *tree {
	t := &tree{doc: doc, patch: patch, negOK: negOK, maxCopy: maxCopy, scratch: scratchPool.Get().(*scratch)}
	t.root = node{end: uint32(len(doc))}
	t.spans.reset()
	t.keys = t.keyBuf[:0]
	return t
}

// release returns the scratch space, holding no pointers into the
// document, to the pool.
func (t *tree) release() {
	s := t.scratch
	t.scratch = nil
	if s.used > 1<<16 || cap(s.spans.spans) > 1<<16 {
		return // a rare giant: let the collector have it
	}
	ok := s.ctrs.reset()
	ok = s.mems.reset() && ok
	ok = s.nodes.reset() && ok
	if !ok {
		return
	}
	if cap(t.keys) <= keepArena {
		s.keyBuf = t.keys[:0]
	}
	clear(s.members[:min(s.used, cap(s.members))])
	clear(s.elems[:min(s.used, cap(s.elems))])
	s.used = 0
	scratchPool.Put(s)
}

// source returns the text of source i: 0 the document, 1 the names of
// added members, 2+k the value of operation k, then copies.
func (t *tree) source(i uint32) []byte {
	switch {
	case i == 0:
		return t.doc
	case i == 1:
		return t.keys
	case int(i)-2 < len(t.patch):
		return t.patch[i-2].Value
	}
	return t.copies[int(i)-2-len(t.patch)]
}

// addCopy registers a copied value, written compact, and returns its node.
func (t *tree) addCopy(b []byte) node {
	if int64(len(b)) > maxText {
		// Unreachable: copies this large exceed workBudget first.
		panic("jsonpatch: a value of 4 GiB or more")
	}
	t.copies = append(t.copies, b)
	return node{src: uint32(2 + len(t.patch) + len(t.copies) - 1), end: uint32(len(b)), flat: true}
}

func (t *tree) raw(n *node) []byte { return t.source(n.src)[n.off:n.end] }

func (t *tree) key(m *member) []byte { return t.source(m.ksrc)[m.koff:m.kend] }

// name returns the decoded member name (a slice of the source when it has
// no escapes).
func (t *tree) name(m *member) []byte {
	k := t.key(m)
	if !m.esc {
		return k[1 : len(k)-1]
	}
	return []byte(decodeKey(k, 0, len(k)))
}

func (t *tree) is(m *member, key string) bool {
	k := t.key(m)
	if !m.esc {
		return string(k[1:len(k)-1]) == key
	}
	return decodeKey(k, 0, len(k)) == key
}

// find returns the position of the live member of c named key, or -1. A
// name held by more than one live member is an error: which copy a patch
// meant cannot be known, and changing one would let the other resurface.
func (t *tree) find(c *container, key string, at []string) (int, error) {
	if c.index == nil && len(c.members) > indexFrom {
		t.rebuildIndex(c)
	}
	found, count := -1, 0
	if c.index == nil {
		for k := len(c.members) - 1; k >= 0; k-- {
			if m := &c.members[k]; !m.dead && t.is(m, key) {
				if found < 0 {
					found = k
				}
				count++
			}
		}
	} else {
		slots := c.index.slots
		mask := len(slots) - 1
		for h := int(maphash.String(hashSeed, key)) & mask; ; h = (h + 1) & mask {
			e := int(slots[h]) - 1
			if e < 0 {
				break
			}
			if m := &c.members[e]; !m.dead && t.is(m, key) {
				found = max(found, e)
				count++
			}
		}
	}
	if count > 1 {
		return -1, repeatedName(at, key, count)
	}
	return found, nil
}

func (t *tree) rebuildIndex(c *container) {
	size := 32
	for size < 2*(int(c.live)+8) {
		size *= 2
	}
	c.index = &index{slots: make([]int32, size)}
	for k := range c.members {
		if !c.members[k].dead {
			t.insertIndex(c, k)
		}
	}
}

func (t *tree) insertIndex(c *container, k int) {
	x := c.index
	if 2*(x.used+1) > len(x.slots) {
		t.rebuildIndex(c) // inserts k too, which is live
		return
	}
	mask := len(x.slots) - 1
	h := int(maphash.Bytes(hashSeed, t.name(&c.members[k]))) & mask
	for x.slots[h] != 0 {
		h = (h + 1) & mask
	}
	x.slots[h] = int32(k + 1)
	x.used++
}

func (t *tree) appendMember(c *container, key string, v node) {
	keys := t.keys
	off := len(keys)
	keys = appendString(keys, key)
	if int64(len(keys)) > maxText {
		// A patch with gigabytes of member names: fail, never wrap offsets.
		panic("jsonpatch: 4 GiB of new member names")
	}
	t.keys = keys
	esc := bytes.IndexByte(keys[off:], '\\') >= 0
	c.members = append(grow(&t.mems, c.members), member{koff: uint32(off), kend: uint32(len(keys)), ksrc: 1, esc: esc, v: v})
	c.live++
	if c.index != nil {
		t.insertIndex(c, len(c.members)-1)
	}
}

// memberList describes the live members of an object for error messages,
// as memberList does for an object's text.
func (t *tree) memberList(c *container) string {
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
		names = append(names, strconv.Quote(string(t.name(m))))
	}
	return " (members: " + strings.Join(names, ", ") + ")"
}

// kindOf returns the first byte of n's JSON text: its kind.
func (t *tree) kindOf(n *node) byte {
	if n.c == nil {
		return t.source(n.src)[n.off]
	}
	if n.c.obj {
		return '{'
	}
	return '['
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

// expand turns n's text into a container of nodes sharing that text. at
// is n's location: an object whose members repeat a name is refused there
// (see unique).
func (t *tree) expand(n *node, at []string) error {
	if n.c != nil {
		return nil
	}
	if err := t.spend(int(n.end - n.off)); err != nil {
		return err
	}
	b := t.source(n.src)[:n.end]
	c := &t.ctrs.alloc(1)[0]
	c.obj = b[n.off] == '{'
	spans := &t.spans
	if n.src != 0 || len(spans.spans) == 0 {
		spans = nil // offsets in the index are the document's
	}
	members, elems := t.members[:0], t.elems[:0]
	i := skipWS(b, int(n.off)+1)
	if b[i] != '}' && b[i] != ']' {
		for {
			if c.obj {
				ke := skipString(b, i)
				m := member{koff: uint32(i), kend: uint32(ke), ksrc: n.src, esc: bytes.IndexByte(b[i:ke], '\\') >= 0}
				i = skipWS(b, skipWS(b, ke)+1)
				e := skipIndexed(b, i, spans)
				m.v = node{off: uint32(i), end: uint32(e), src: n.src, flat: n.flat}
				members = append(members, m)
				i = e
			} else {
				e := skipIndexed(b, i, spans)
				elems = append(elems, node{off: uint32(i), end: uint32(e), src: n.src, flat: n.flat})
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
		c.members = t.mems.alloc(len(members))
		copy(c.members, members)
	} else {
		c.elems = t.nodes.alloc(len(elems))
		copy(c.elems, elems)
	}
	t.members, t.elems = members[:0], elems[:0]
	t.used = max(t.used, len(members), len(elems))
	c.live = int32(len(c.members))
	n.c = c
	return t.unique(c, at)
}

// unique refuses an object, at, that a patch goes into when two of its
// members share a name (however spelled): which copy the patch meant
// cannot be known, and changing or adding beside one would keep the other
// in the result.
func (t *tree) unique(c *container, at []string) error {
	if !c.obj || len(c.members) < 2 {
		return nil
	}
	if len(c.members) <= indexFrom {
		for k := 1; k < len(c.members); k++ {
			name := t.name(&c.members[k])
			for j := range k {
				if bytes.Equal(t.name(&c.members[j]), name) {
					return t.repeated(c, string(name), at)
				}
			}
		}
		return nil
	}
	if c.index == nil {
		t.rebuildIndex(c)
	}
	slots := c.index.slots
	mask := len(slots) - 1
	for k := range c.members {
		name := t.name(&c.members[k])
		for h := int(maphash.Bytes(hashSeed, name)) & mask; ; h = (h + 1) & mask {
			e := int(slots[h]) - 1
			if e < 0 {
				break
			}
			if e != k && bytes.Equal(t.name(&c.members[e]), name) {
				return t.repeated(c, string(name), at)
			}
		}
	}
	return nil
}

// repeated is the error for the object at whose live members repeat key.
func (t *tree) repeated(c *container, key string, at []string) error {
	count := 0
	for k := range c.members {
		if m := &c.members[k]; !m.dead && t.is(m, key) {
			count++
		}
	}
	return repeatedName(at, key, count)
}

func repeatedName(at []string, key string, count int) error {
	return errorf(ErrInvalidDocument, "%s names %d members of %s (the name %q repeats); a patch cannot go into an object that repeats a member name: write the document again without the extra copies", where(joinTokens(at, []string{key})), count, where(at), key)
}

// skipIndexed is skipValue, looking large containers up in spans first.
func skipIndexed(b []byte, i int, spans *spanIndex) int {
	if spans != nil && (b[i] == '{' || b[i] == '[') {
		if e := spans.end(i); e >= 0 {
			return e
		}
	}
	return skipValue(b, i)
}

// resolve finds the node at tokens, expanding the containers on the way.
// The *node is valid until the next change to its container.
func (t *tree) resolve(tokens []string) (*node, error) {
	n := &t.root
	for i, tok := range tokens {
		k := t.kindOf(n)
		if k != '{' && k != '[' {
			return nil, errorf(ErrPathNotFound, "%s is %s, not an object or array, so it has no member %q", where(tokens[:i]), kindName(k), tok)
		}
		if err := t.expand(n, tokens[:i]); err != nil {
			return nil, err
		}
		c := n.c
		if c.obj {
			j, err := t.find(c, tok, tokens[:i])
			if err != nil {
				return nil, err
			}
			if j < 0 {
				return nil, errorf(ErrPathNotFound, "%s has no member %q%s", where(tokens[:i]), tok, t.memberList(c))
			}
			n = &c.members[j].v
			continue
		}
		idx, err := arrayIndex(tok, len(c.elems), false, t.negOK, tokens[:i])
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
	if k := t.kindOf(n); k != '{' && k != '[' {
		return nil, errorf(ErrPathNotFound, "%s is %s, not an object or array, so it has no member %q", where(up), kindName(k), path[len(path)-1])
	}
	if err := t.expand(n, up); err != nil {
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
		j, err := t.find(c, last, path[:len(path)-1])
		if err != nil {
			return err
		}
		if j >= 0 {
			c.members[j].v = val
		} else {
			t.appendMember(c, last, val)
		}
		return nil
	}
	idx, err := arrayIndex(last, len(c.elems), true, t.negOK, path[:len(path)-1])
	if err != nil {
		return err
	}
	if err := t.spend(len(c.elems) - idx); err != nil {
		return err
	}
	c.elems = slices.Insert(grow(&t.nodes, c.elems), idx, val)
	return nil
}

func (t *tree) remove(path []string) error {
	c, err := t.parent(path)
	if err != nil {
		return err
	}
	last := path[len(path)-1]
	if c.obj {
		j, err := t.find(c, last, path[:len(path)-1])
		if err != nil {
			return err
		}
		if j < 0 {
			return errorf(ErrPathNotFound, "%s has no member %q%s", where(path[:len(path)-1]), last, t.memberList(c))
		}
		c.members[j].dead = true
		c.members[j].v = node{}
		c.live--
		return nil
	}
	idx, err := arrayIndex(last, len(c.elems), false, t.negOK, path[:len(path)-1])
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
		return t.raw(n), t.spend(int(n.end - n.off))
	}
	out := t.write(make([]byte, 0, t.size(n)), n)
	return out, t.spend(len(out))
}

// value makes a node of the value of operation k.
func (t *tree) value(k int) node {
	v := t.patch[k].Value
	off, end := 0, len(v)
	for off < end && isSpace(v[off]) {
		off++
	}
	for end > off && isSpace(v[end-1]) {
		end--
	}
	return node{src: uint32(2 + k), off: uint32(off), end: uint32(end), flat: !bytes.ContainsAny(v[off:end], " \t\r\n")}
}

// tokens splits a valid pointer into buf, reusing it.
func tokens(buf []string, p string) []string {
	buf = buf[:0]
	for p != "" {
		p = p[1:]
		k := strings.IndexByte(p, '/')
		if k < 0 {
			k = len(p)
		}
		buf = append(buf, unescape(p[:k]))
		p = p[k:]
	}
	return buf
}

// apply applies operation k of the patch.
func (t *tree) apply(k int) error {
	op := t.patch[k]
	t.path = tokens(t.path, op.Path) // validated before
	path := t.path
	switch op.Op {
	case OpAdd:
		return t.add(path, t.value(k))
	case OpRemove:
		return t.remove(path)
	case OpReplace:
		n, err := t.resolve(path)
		if err != nil {
			return err
		}
		*n = t.value(k)
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
		t.from = tokens(t.from, op.From)
		from := t.from
		n, err := t.resolve(from)
		if err != nil {
			return err
		}
		if op.Op == OpCopy {
			flat := n.c != nil || n.flat
			text, err := t.text(n)
			if err != nil {
				return err
			}
			size := int64(len(text))
			if !flat {
				size = compactLen(text)
			}
			t.copied += size
			if t.maxCopy >= 0 && t.copied > t.maxCopy {
				return errorf(ErrLimitExceeded, "copy operations of this patch add %d bytes, more than the limit of %d", t.copied, t.maxCopy)
			}
			if n.c == nil {
				return t.add(path, *n) // the same text, never written to
			}
			return t.add(path, t.addCopy(text))
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

// size is an upper bound of the length of n written compact.
func (t *tree) size(n *node) int {
	c := n.c
	if c == nil {
		return int(n.end - n.off)
	}
	size := 2 + len(c.elems) + 2*int(c.live)
	for k := range c.members {
		if m := &c.members[k]; !m.dead {
			size += int(m.kend-m.koff) + t.size(&m.v)
		}
	}
	for k := range c.elems {
		size += t.size(&c.elems[k])
	}
	return size
}

// write appends n as compact JSON.
func (t *tree) write(out []byte, n *node) []byte {
	c := n.c
	if c == nil {
		if n.flat {
			return append(out, t.raw(n)...)
		}
		return appendCompact(out, t.raw(n))
	}
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
			out = append(out, t.key(m)...)
			out = append(out, ':')
			out = t.write(out, &m.v)
		}
		return append(out, '}')
	}
	out = append(out, '[')
	for k := range c.elems {
		if k > 0 {
			out = append(out, ',')
		}
		out = t.write(out, &c.elems[k])
	}
	return append(out, ']')
}
