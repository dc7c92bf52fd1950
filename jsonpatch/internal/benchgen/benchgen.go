// Package benchgen generates the JSON documents and patches the jsonpatch
// benchmarks and the JavaScript comparison run on: documents of nested
// objects and arrays, and patches of mixed add, replace and remove
// operations on object members and array elements that are valid when
// applied in order. The output depends only on the arguments.
package benchgen

import (
	"fmt"
	"math/rand/v2"
	"strconv"
)

// Doc returns a compact JSON document of about size bytes:
//
//	{"meta":{...},"items":[item,...],"byKey":{"k0":item,...}}
//
// where each item of about 300 bytes holds strings, numbers spelled as
// 1.50 and as a 30-digit integer, an array of tags and a nested object.
// Items go alternately to the array and to the object. n is the number of
// items in each.
func Doc(size int) (doc []byte, n int) {
	b := make([]byte, 0, size+512)
	b = append(b, `{"meta":{"id":"bench","version":1,"tags":["a","b"]},"items":[`...)
	var obj []byte
	for i := 0; len(b)+len(obj) < size-20; i++ {
		if i%2 == 0 {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendItem(b, i)
			continue
		}
		if len(obj) > 0 {
			obj = append(obj, ',')
		}
		obj = fmt.Appendf(obj, `"k%d":`, n)
		obj = appendItem(obj, i)
		n++
	}
	b = append(b, `],"byKey":{`...)
	b = append(b, obj...)
	return append(b, '}', '}'), n
}

func appendItem(b []byte, i int) []byte {
	return fmt.Appendf(b, `{"id":%d,"name":"item %d <draft> & notes","score":1.50,"big":123456789012345678901234567890,`+
		`"tags":["t0","t1","t%d"],"attrs":{"a":%d,"b":"text %d","c":[1,2,{"d":true}]},`+
		`"body":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor %d"}`, i, i, i, i, i, i)
}

// target is what the generator knows of one item while it writes a patch.
type target struct {
	tags  int      // length of the item's "tags" array
	added []string // members the patch has added to "attrs" and not removed
}

// Patch returns a patch of ops operations, valid in sequence on Doc(size)
// whose item count per container is n, mixing (in about equal numbers)
// replace, add and remove of object members and of array elements, spread
// over random items of "items" and "byKey", plus an occasional item
// appended to "items". seed fixes the choice.
func Patch(n, ops int, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 7))
	items := n // the array holds n or n+1 items; n is safe
	state := map[string]*target{}
	b := []byte{'['}
	for i := 0; i < ops; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		if rng.IntN(25) == 0 {
			b = fmt.Appendf(b, `{"op":"add","path":"/items/-","value":{"id":%d,"name":"new","tags":[]}}`, i)
			continue
		}
		var base string
		if rng.IntN(2) == 0 {
			base = "/items/" + strconv.Itoa(rng.IntN(items))
		} else {
			base = "/byKey/k" + strconv.Itoa(rng.IntN(n))
		}
		t := state[base]
		if t == nil {
			t = &target{tags: 3}
			state[base] = t
		}
		kind := rng.IntN(6)
		if kind == 2 && len(t.added) == 0 {
			kind = 1
		}
		if (kind == 4 || kind == 5) && t.tags == 0 {
			kind = 3
		}
		switch kind {
		case 0: // replace a member
			b = fmt.Appendf(b, `{"op":"replace","path":"%s/name","value":"renamed %d"}`, base, i)
		case 1: // add a member
			m := "n" + strconv.Itoa(i)
			t.added = append(t.added, m)
			b = fmt.Appendf(b, `{"op":"add","path":"%s/attrs/%s","value":{"v":%d,"w":[1,2,3],"s":"x"}}`, base, m, i)
		case 2: // remove a member
			k := rng.IntN(len(t.added))
			m := t.added[k]
			t.added = append(t.added[:k], t.added[k+1:]...)
			b = fmt.Appendf(b, `{"op":"remove","path":"%s/attrs/%s"}`, base, m)
		case 3: // add an element
			at := strconv.Itoa(rng.IntN(t.tags + 1))
			if rng.IntN(2) == 0 {
				at = "-"
			}
			t.tags++
			b = fmt.Appendf(b, `{"op":"add","path":"%s/tags/%s","value":"tag %d"}`, base, at, i)
		case 4: // remove an element
			b = fmt.Appendf(b, `{"op":"remove","path":"%s/tags/%d"}`, base, rng.IntN(t.tags))
			t.tags--
		case 5: // replace an element
			b = fmt.Appendf(b, `{"op":"replace","path":"%s/tags/%d","value":%d}`, base, rng.IntN(t.tags), i)
		}
	}
	return append(b, ']')
}

// TopLevelPatch returns ops operations that all work on members of the
// document root: add, replace and remove of new members, a replace of
// "meta", valid in sequence on any Doc.
func TopLevelPatch(ops int) []byte {
	b := []byte{'['}
	live := []int{}
	for i := 0; i < ops; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		switch {
		case i%4 == 3:
			b = fmt.Appendf(b, `{"op":"replace","path":"/meta","value":{"id":"bench","version":%d}}`, i)
		case i%4 == 2 && len(live) > 0:
			b = fmt.Appendf(b, `{"op":"replace","path":"/t%d","value":[%d,"x"]}`, live[len(live)-1], i)
		case i%8 == 1 && len(live) > 0:
			b = fmt.Appendf(b, `{"op":"remove","path":"/t%d"}`, live[0])
			live = live[1:]
		default:
			live = append(live, i)
			b = fmt.Appendf(b, `{"op":"add","path":"/t%d","value":{"v":%d,"s":"<&>"}}`, i, i)
		}
	}
	return append(b, ']')
}
