// Package jsondiff computes an RFC 6902 patch between two JSON texts, for
// a document's history: the Bank records it for writes that are not
// patches, and history.Diff shows it between two versions. It is a plain
// structural diff (objects member by member, arrays of equal length element
// by element, anything else replaced whole); it does not look for moves or
// the shortest patch.
package jsondiff

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/jsonpatch"
)

// Diff decodes two JSON texts and returns the patch that turns before into
// after and its inverse. Numbers keep their spelling.
func Diff(before, after []byte) (fwd, inv jsonpatch.Patch, err error) {
	a, err := decode(before)
	if err != nil {
		return nil, nil, err
	}
	c, err := decode(after)
	if err != nil {
		return nil, nil, err
	}
	fwd, err = diff(nil, "", a, c)
	if err != nil {
		return nil, nil, err
	}
	inv, err = diff(nil, "", c, a)
	return fwd, inv, err
}

func decode(data []byte) (any, error) {
	d := json.NewDecoder(bytes.NewReader(data))
	d.UseNumber()
	var v any
	if err := d.Decode(&v); err != nil {
		return nil, err
	}
	return v, nil
}

// diff appends to out the operations that turn a into b at pointer at.
func diff(out jsonpatch.Patch, at string, a, b any) (jsonpatch.Patch, error) {
	switch av := a.(type) {
	case map[string]any:
		if bv, ok := b.(map[string]any); ok {
			for _, k := range sortedKeys(av) {
				p := at + "/" + jsontext.EscapeToken(k)
				if nb, ok := bv[k]; ok {
					var err error
					if out, err = diff(out, p, av[k], nb); err != nil {
						return nil, err
					}
				} else {
					out = append(out, jsonpatch.Operation{Op: "remove", Path: p})
				}
			}
			for _, k := range sortedKeys(bv) {
				if _, ok := av[k]; !ok {
					v, err := json.Marshal(bv[k])
					if err != nil {
						return nil, err
					}
					out = append(out, jsonpatch.Operation{Op: "add", Path: at + "/" + jsontext.EscapeToken(k), Value: v})
				}
			}
			return out, nil
		}
	case []any:
		if bv, ok := b.([]any); ok && len(av) == len(bv) {
			for i := range av {
				var err error
				if out, err = diff(out, at+"/"+strconv.Itoa(i), av[i], bv[i]); err != nil {
					return nil, err
				}
			}
			return out, nil
		}
	}
	ja, err := json.Marshal(a)
	if err != nil {
		return nil, err
	}
	jb, err := json.Marshal(b)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(ja, jb) {
		return out, nil
	}
	return append(out, jsonpatch.Operation{Op: "replace", Path: at, Value: jb}), nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
