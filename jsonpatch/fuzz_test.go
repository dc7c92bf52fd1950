package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"
)

// referenceApply evaluates a patch one operation at a time with the
// reference evaluator (state), which splices the document's text: the
// oracle Apply must agree with.
func referenceApply(opts *Options, doc []byte, p Patch) ([]byte, error) {
	pt := New(opts)
	if err := p.Validate(); err != nil {
		return nil, err
	}
	d, err := checkDocument(doc)
	if err != nil {
		return nil, err
	}
	st := pt.newState(nil, pt.maxCopy)
	for i, op := range p {
		if d, err = st.apply(d, op); err != nil {
			return nil, opError(i, op, err)
		}
	}
	return pt.finish(appendCompact(nil, d))
}

func FuzzApply(f *testing.F) {
	seeds := [][2]string{
		{`{"a":[null]}`, `[{"op":"test","path":"/a","value":[null]}]`},
		{`{"a":1,"b":{"c":[1,2,3]}}`, `[{"op":"move","from":"/b/c/0","path":"/a"},{"op":"copy","from":"/b","path":"/d"},{"op":"remove","path":"/b/c/1"}]`},
		{`{"a":1.0}`, `[{"op":"test","path":"/a","value":1},{"op":"add","path":"/x","value":"<&>"}]`},
		{` "x" `, `[{"op":"replace","path":"","value":{"a":[]}},{"op":"add","path":"/a/-","value":null}]`},
		{`{"":{"":1}}`, `[{"op":"replace","path":"//","value":2},{"op":"test","path":"/","value":{"":2}}]`},
		{`[1,[2,[3]]]`, `[{"op":"add","path":"/1/1/0","value":0},{"op":"remove","path":"/01"}]`},
		{`{"k":{"x":1}}`, `[{"op":"move","from":"/k","path":"/k/x"}]`},
		{`{"p":"pad pad pad pad pad pad pad","s":{"a":{"x":[1,2],"y":1.0},"b":{"z":{}}}}`, `[{"op":"copy","from":"/s/a/x","path":"/s/a/w"},{"op":"test","path":"/s/a/y","value":1},{"op":"remove","path":"/s/b/z"}]`},
		{`{"p":"pad pad pad pad pad pad pad","s":[{"a":1},{"b":2}]}`, `[{"op":"add","path":"/s/0/c","value":3},{"op":"move","from":"/s/1/b","path":"/s/1/d"}]`},
	}
	for _, s := range seeds {
		f.Add([]byte(s[0]), []byte(s[1]))
	}
	saved := spanMin
	spanMin = 4 // so that the small documents of fuzzing use the index of containers
	defer func() { spanMin = saved }()
	f.Fuzz(func(t *testing.T, doc, patch []byte) {
		p, err := Decode(patch)
		if err != nil {
			return
		}
		orig := bytes.Clone(doc)
		out, err := Apply(doc, p)
		if !bytes.Equal(orig, doc) {
			t.Fatalf("input document modified")
		}
		if hasRepeatedNames(doc) {
			// The reference has no rule for them; TestDuplicateMembers
			// pins what Apply does.
			if err != nil && !errors.Is(err, ErrInvalidDocument) && !isSentinel(err) {
				t.Fatalf("error wraps no sentinel: %v", err)
			}
			return
		}
		ref, refErr := referenceApply(nil, doc, p)
		if err != nil {
			if out != nil {
				t.Fatalf("output %q returned with error %v", out, err)
			}
			if !isSentinel(err) {
				t.Fatalf("error wraps no sentinel (an internal error?): %v", err)
			}
			if refErr == nil {
				t.Fatalf("Apply failed (%v) where the exact evaluator gives %s", err, ref)
			}
			var a, r *OperationError
			if errors.As(refErr, &r) && (!errors.As(err, &a) || a.Index != r.Index) {
				t.Fatalf("Apply fails with %v, the exact evaluator with %v", err, refErr)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("invalid JSON output %q", out)
		}
		if refErr != nil {
			t.Fatalf("Apply succeeded with %s where the exact evaluator fails: %v", out, refErr)
		}
		if !equalJSON(out, ref) {
			t.Fatalf("Apply gives %s, the exact evaluator %s", out, ref)
		}
	})
}

// FuzzDecode: Decode never panics, and what it accepts survives a round trip
// through json.Marshal (Operation.MarshalJSON) and Decode.
func FuzzDecode(f *testing.F) {
	for _, s := range []string{
		`[{"op":"add","path":"/a","value":1}]`,
		`[{"op":"copy","from":"","path":"/a~1b"},{"op":"test","path":"/x","value":null,"extra":[]}]`,
		`[{"op":"add","path":"/a","value":1,"op":"remove"}]`,
		`{"op":"add"}`, `[]`, `[1]`, `[{"op":"move","from":"/a","path":"/a/b"}]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Decode(data)
		if err != nil {
			if p != nil {
				t.Fatalf("patch returned with error %v", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("decoded patch does not validate: %v", err)
		}
		enc, err := json.Marshal(p)
		if err != nil {
			t.Fatalf("marshal: %v", err)
		}
		q, err := Decode(enc)
		if err != nil {
			t.Fatalf("re-decode %s: %v", enc, err)
		}
		if len(p) != len(q) {
			t.Fatalf("round trip changed the length: %d -> %d", len(p), len(q))
		}
		for i := range p {
			if p[i].Op != q[i].Op || p[i].Path != q[i].Path || p[i].From != q[i].From || !bytes.Equal(trimSpace(p[i].Value), q[i].Value) {
				t.Fatalf("operation %d changed: %+v -> %+v", i, p[i], q[i])
			}
		}
	})
}

// FuzzPointer: ParsePointer never panics and FormatPointer inverts it; Get
// never panics, returns valid JSON on success and nothing but a sentinel
// error on failure, and rejects every pointer ParsePointer rejects.
func FuzzPointer(f *testing.F) {
	f.Add("/a/b", []byte(`{"a":{"b":[1]}}`))
	f.Add("/~01/-/0", []byte(`[{"~1":[0]}]`))
	f.Add("//", []byte(`{"":{"":null}}`))
	f.Fuzz(func(t *testing.T, ptr string, doc []byte) {
		toks, perr := ParsePointer(ptr)
		if perr == nil && FormatPointer(toks...) != ptr {
			t.Fatalf("FormatPointer(ParsePointer(%q)) = %q", ptr, FormatPointer(toks...))
		}
		if perr == nil && !slices.Equal(tokens(nil, ptr), toks) {
			t.Fatalf("tokens(%q) = %q, ParsePointer gives %q", ptr, tokens(nil, ptr), toks)
		}
		if perr != nil && !errors.Is(perr, ErrInvalidPointer) {
			t.Fatalf("ParsePointer(%q) error is not ErrInvalidPointer: %v", ptr, perr)
		}
		v, err := Get(doc, ptr)
		if err != nil {
			if v != nil {
				t.Fatalf("Get returned %q with error %v", v, err)
			}
			if !isSentinel(err) {
				t.Fatalf("Get error wraps no sentinel: %v", err)
			}
			if perr != nil && !errors.Is(err, ErrInvalidPointer) {
				t.Fatalf("Get(%q) = %v, want ErrInvalidPointer like ParsePointer", ptr, err)
			}
			return
		}
		if perr != nil {
			t.Fatalf("Get accepted %q, which ParsePointer rejects: %v", ptr, perr)
		}
		if !json.Valid(v) {
			t.Fatalf("Get returned invalid JSON %q", v)
		}
	})
}

// hasRepeatedNames reports whether some object of the JSON text doc has a
// member name twice.
func hasRepeatedNames(doc []byte) bool {
	d := json.NewDecoder(bytes.NewReader(doc))
	type frame struct {
		obj   bool
		names map[string]bool
		key   bool // the next string token is a member name
	}
	var stack []*frame
	for {
		tok, err := d.Token()
		if err != nil {
			return false
		}
		top := (*frame)(nil)
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		switch v := tok.(type) {
		case json.Delim:
			switch v {
			case '{':
				if top != nil && top.obj {
					top.key = true
				}
				stack = append(stack, &frame{obj: true, names: map[string]bool{}, key: true})
				continue
			case '[':
				if top != nil && top.obj {
					top.key = true
				}
				stack = append(stack, &frame{})
				continue
			default:
				stack = stack[:len(stack)-1]
				continue
			}
		case string:
			if top != nil && top.obj && top.key {
				if top.names[v] {
					return true
				}
				top.names[v] = true
				top.key = false
				continue
			}
		}
		if top != nil && top.obj {
			top.key = true
		}
	}
}
