package jsonpatch

import (
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// ruleCase applies patch to doc; want is the compact result, or err the
// sentinel(s) the error must match.
type ruleCase struct {
	name  string
	doc   string
	patch string
	opts  *Options
	want  string
	errs  []error
	index int // operation index the *OperationError must carry; -1 = no OperationError
}

func runRules(t *testing.T, cases []ruleCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			doc := []byte(c.doc)
			before := string(doc)
			out, err := applyWith(c.opts, doc, []byte(c.patch))
			assert.Equal(t, before, string(doc), "the input document must never change")
			if len(c.errs) == 0 {
				require.NoError(t, err)
				assert.Equal(t, c.want, string(out))
				return
			}
			require.Error(t, err, "got %s", out)
			assert.Nil(t, out, "no output on failure")
			for _, e := range c.errs {
				assert.ErrorIs(t, err, e)
			}
			var oe *OperationError
			if c.index >= 0 {
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, c.index, oe.Index)
			} else {
				assert.False(t, errors.As(err, &oe), "not tied to an operation: %v", err)
			}
		})
	}
}

func applyWith(opts *Options, doc, patch []byte) ([]byte, error) {
	p, err := Decode(patch)
	if err != nil {
		return nil, err
	}
	return New(opts).Apply(doc, p)
}

func TestPointerRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "pointer without leading slash", doc: `{"a":1}`, patch: `[{"op":"replace","path":"a","value":2}]`, errs: []error{ErrInvalidPointer}},
		{name: "tilde not followed by 0 or 1", doc: `{"a~2":1}`, patch: `[{"op":"remove","path":"/a~2"}]`, errs: []error{ErrInvalidPointer}},
		{name: "trailing tilde", doc: `{"a":1}`, patch: `[{"op":"remove","path":"/a~"}]`, errs: []error{ErrInvalidPointer}},
		{name: "bad from pointer", doc: `{"a":1}`, patch: `[{"op":"copy","from":"a","path":"/b"}]`, errs: []error{ErrInvalidPointer}},
		{name: "escapes decode ~1 then ~0", doc: `{"a/b":1,"~1":2}`, patch: `[{"op":"remove","path":"/a~1b"},{"op":"replace","path":"/~01","value":3}]`, want: `{"~1":3}`},
		{name: "slash addresses the empty member, not the root", doc: `{"":1,"a":2}`, patch: `[{"op":"replace","path":"/","value":3}]`, want: `{"":3,"a":2}`},
		{name: "slash on an object without the empty member", doc: `{"a":2}`, patch: `[{"op":"replace","path":"/","value":3}]`, errs: []error{ErrPathNotFound}},
		{name: "test slash compares the empty member", doc: `{"":1,"a":2}`, patch: `[{"op":"test","path":"/","value":1}]`, want: `{"":1,"a":2}`},
		{name: "empty token in the middle", doc: `{"":{"x":1},"x":5}`, patch: `[{"op":"replace","path":"//x","value":2}]`, want: `{"":{"x":2},"x":5}`},
		{name: "add the empty member", doc: `{"a":1}`, patch: `[{"op":"add","path":"/","value":0}]`, want: `{"a":1,"":0}`},
		{name: "copy from the empty member", doc: `{"":[1],"a":1}`, patch: `[{"op":"copy","from":"/","path":"/b"}]`, want: `{"":[1],"a":1,"b":[1]}`},
	})
}

func TestIndexRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "leading zero", doc: `{"a":[1,2]}`, patch: `[{"op":"replace","path":"/a/01","value":9}]`, errs: []error{ErrInvalidIndex}},
		{name: "plus sign", doc: `{"a":[1,2]}`, patch: `[{"op":"remove","path":"/a/+1"}]`, errs: []error{ErrInvalidIndex}},
		{name: "minus zero", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/-0","value":9}]`, errs: []error{ErrInvalidIndex}},
		{name: "negative by default", doc: `{"a":[1,2]}`, patch: `[{"op":"replace","path":"/a/-1","value":9}]`, errs: []error{ErrInvalidIndex}},
		{name: "exponent", doc: `{"a":[1,2]}`, patch: `[{"op":"test","path":"/a/1e0","value":2}]`, errs: []error{ErrTestFailed, ErrInvalidIndex}},
		{name: "index past the end", doc: `{"a":[1,2]}`, patch: `[{"op":"replace","path":"/a/2","value":9}]`, errs: []error{ErrInvalidIndex}},
		{name: "add at length appends", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/2","value":3}]`, want: `{"a":[1,2,3]}`},
		{name: "add past length", doc: `{"a":[1,2]}`, patch: `[{"op":"add","path":"/a/3","value":3}]`, errs: []error{ErrInvalidIndex}},
		{name: "dash appends", doc: `{"a":[1]}`, patch: `[{"op":"add","path":"/a/-","value":2}]`, want: `{"a":[1,2]}`},
		{name: "dash only for add", doc: `{"a":[1]}`, patch: `[{"op":"replace","path":"/a/-","value":2}]`, errs: []error{ErrInvalidIndex}},
		{name: "dash is a member name in objects", doc: `{"a":{}}`, patch: `[{"op":"add","path":"/a/-","value":2}]`, want: `{"a":{"-":2}}`},
		{name: "numeric-looking member names", doc: `{"01":1,"+1":2,"-1":3}`, patch: `[{"op":"remove","path":"/01"},{"op":"replace","path":"/+1","value":5},{"op":"test","path":"/-1","value":3}]`, want: `{"+1":5,"-1":3}`},
		{name: "negative indices opt-in", opts: &Options{AllowNegativeIndices: true}, doc: `{"a":[1,2,3]}`, patch: `[{"op":"replace","path":"/a/-1","value":9},{"op":"remove","path":"/a/-3"}]`, want: `{"a":[2,9]}`},
		{name: "negative index out of range", opts: &Options{AllowNegativeIndices: true}, doc: `{"a":[1]}`, patch: `[{"op":"remove","path":"/a/-2"}]`, errs: []error{ErrInvalidIndex}},
	})
}

func TestTestRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "1 equals 1.0", doc: `{"a":1}`, patch: `[{"op":"test","path":"/a","value":1.0}]`, want: `{"a":1}`},
		{name: "1.0 equals 1e0 then later ops run", doc: `{"a":1.0,"b":[10e-1]}`, patch: `[{"op":"test","path":"/a","value":1e0},{"op":"test","path":"/b","value":[1]},{"op":"add","path":"/c","value":true}]`, want: `{"a":1.0,"b":[10e-1],"c":true}`},
		{name: "numbers in objects", doc: `{"a":{"x":0.5,"y":-0}}`, patch: `[{"op":"test","path":"/a","value":{"y":0,"x":5e-1}}]`, want: `{"a":{"x":0.5,"y":-0}}`},
		{name: "big numbers compare exactly", doc: `{"a":12345678901234567890123}`, patch: `[{"op":"test","path":"/a","value":12345678901234567890124}]`, errs: []error{ErrTestFailed}},
		{name: "different numbers", doc: `{"a":1}`, patch: `[{"op":"test","path":"/a","value":2}]`, errs: []error{ErrTestFailed}},
		{name: "number is not string", doc: `{"a":1}`, patch: `[{"op":"test","path":"/a","value":"1"}]`, errs: []error{ErrTestFailed}},
		{name: "string escapes", doc: `{"a":"\u0041"}`, patch: `[{"op":"test","path":"/a","value":"A"}]`, want: `{"a":"\u0041"}`},
		{name: "missing is not null", doc: `{"a":1}`, patch: `[{"op":"test","path":"/b","value":null}]`, errs: []error{ErrTestFailed, ErrPathNotFound}},
		{name: "null member is null", doc: `{"a":null}`, patch: `[{"op":"test","path":"/a","value":null}]`, want: `{"a":null}`},
		{name: "null is not false", doc: `{"a":null}`, patch: `[{"op":"test","path":"/a","value":false}]`, errs: []error{ErrTestFailed}},
		{name: "array with null (evanphx panics)", doc: `{"a":[null]}`, patch: `[{"op":"test","path":"/a","value":[null]}]`, want: `{"a":[null]}`},
		{name: "array with null in the document only", doc: `{"a":[null]}`, patch: `[{"op":"test","path":"/a","value":[1]}]`, errs: []error{ErrTestFailed}},
		{name: "array with null in the value only", doc: `{"a":[1]}`, patch: `[{"op":"test","path":"/a","value":[null]}]`, errs: []error{ErrTestFailed}},
		{name: "nested nulls", doc: `[{"a":[null,{"b":null}]}]`, patch: `[{"op":"test","path":"","value":[{"a":[null,{"b":null}]}]}]`, want: `[{"a":[null,{"b":null}]}]`},
		{name: "whole document", doc: `{"foo":1}`, patch: `[{"op":"test","path":"","value":{"foo":1.0}}]`, want: `{"foo":1}`},
		{name: "value is required", doc: `{"a":1}`, patch: `[{"op":"test","path":"/a"}]`, errs: []error{ErrInvalidPatch}},
		{name: "object compare keeps html bytes", doc: `{"a":{"b":"<&>"},"c":"<"}`, patch: `[{"op":"test","path":"/a","value":{"b":"<&>"}}]`, want: `{"a":{"b":"<&>"},"c":"<"}`},
		{name: "failing test leaves nothing applied", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":2},{"op":"test","path":"/a","value":3}]`, errs: []error{ErrTestFailed}, index: 1},
	})
}

func TestOperationRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "unknown op", doc: `{}`, patch: `[{"op":"spam","path":"/a","value":1}]`, errs: []error{ErrInvalidPatch}},
		{name: "duplicate op member", doc: `{"foo":"bar"}`, patch: `[{"op":"add","path":"/baz","value":"qux","op":"remove"}]`, errs: []error{ErrInvalidPatch}},
		{name: "duplicate path member", doc: `{}`, patch: `[{"op":"add","path":"/a","path":"/b","value":1}]`, errs: []error{ErrInvalidPatch}},
		{name: "duplicate value member", doc: `{}`, patch: `[{"op":"add","path":"/a","value":1,"value":2}]`, errs: []error{ErrInvalidPatch}},
		{name: "missing value", doc: `{}`, patch: `[{"op":"add","path":"/a"}]`, errs: []error{ErrInvalidPatch}},
		{name: "missing from", doc: `{"a":1}`, patch: `[{"op":"move","path":"/b"}]`, errs: []error{ErrInvalidPatch}},
		{name: "missing path", doc: `{}`, patch: `[{"op":"remove"}]`, errs: []error{ErrInvalidPatch}},
		{name: "op not a string", doc: `{}`, patch: `[{"op":1,"path":"/a"}]`, errs: []error{ErrInvalidPatch}},
		{name: "unused members are ignored", doc: `{"a":1}`, patch: `[{"op":"remove","path":"/a","value":5,"from":7,"x":[]}]`, want: `{}`},
		{name: "move into own child", doc: `{"a":{"b":1}}`, patch: `[{"op":"move","from":"/a","path":"/a/b/c"}]`, errs: []error{ErrInvalidPatch}},
		{name: "move the root into a child", doc: `{"a":1}`, patch: `[{"op":"move","from":"","path":"/a"}]`, errs: []error{ErrInvalidPatch}},
		{name: "move onto itself keeps order", doc: `{"a":1,"b":2}`, patch: `[{"op":"move","from":"/a","path":"/a"}]`, want: `{"a":1,"b":2}`},
		{name: "move onto itself must exist", doc: `{"a":1}`, patch: `[{"op":"move","from":"/x","path":"/x"}]`, errs: []error{ErrPathNotFound}},
		{name: "move to a sibling prefix is fine", doc: `{"a":{"b":1},"ab":0}`, patch: `[{"op":"move","from":"/a","path":"/ab"}]`, want: `{"ab":{"b":1}}`},
		{name: "remove the whole document", doc: `{"a":1}`, patch: `[{"op":"remove","path":""}]`, errs: []error{ErrInvalidPatch}},
		{name: "replace missing member", doc: `{"a":1}`, patch: `[{"op":"replace","path":"/b","value":1}]`, errs: []error{ErrPathNotFound}},
		{name: "add under a missing parent", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b/c","value":1}]`, errs: []error{ErrPathNotFound}},
		{name: "add under a scalar", doc: `{"a":1}`, patch: `[{"op":"add","path":"/a/c","value":1}]`, errs: []error{ErrPathNotFound}},
		{name: "replace keeps member position", doc: `{"a":1,"b":2,"c":3}`, patch: `[{"op":"replace","path":"/b","value":{"x":[]}}]`, want: `{"a":1,"b":{"x":[]},"c":3}`},
		{name: "error index found by evanphx", doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":2},{"op":"add","path":"/c","value":3},{"op":"remove","path":"/zz"}]`, errs: []error{ErrPathNotFound}, index: 2},
		{name: "empty patch returns the document as it was", doc: ` {"a" : 1} `, patch: `[]`, want: `{"a" : 1}`},
		{name: "only tests return the document as it was", doc: ` {"a" : [1, 2]} `, patch: `[{"op":"test","path":"/a/0","value":1}]`, want: `{"a" : [1, 2]}`},
		{name: "patch not an array", doc: `{}`, patch: `{"op":"add","path":"/a","value":1}`, errs: []error{ErrInvalidPatch}, index: -1},
		{name: "operation not an object", doc: `{}`, patch: `["add"]`, errs: []error{ErrInvalidPatch}},
	})
}

func TestDocumentRules(t *testing.T) {
	runRules(t, []ruleCase{
		{name: "empty document", doc: ``, patch: `[]`, errs: []error{ErrInvalidDocument}, index: -1},
		{name: "whitespace document", doc: " \n\t", patch: `[{"op":"add","path":"","value":1}]`, errs: []error{ErrInvalidDocument}, index: -1},
		{name: "invalid document", doc: `{"a":}`, patch: `[{"op":"add","path":"/b","value":1}]`, errs: []error{ErrInvalidDocument}, index: -1},
		{name: "trailing garbage", doc: `{"a":1} x`, patch: `[]`, errs: []error{ErrInvalidDocument}, index: -1},
		{name: "whitespace-led object", doc: "\n  {\"a\": 1}\n", patch: `[{"op":"add","path":"/b","value":2}]`, want: `{"a":1,"b":2}`},
		{name: "whitespace-led array", doc: "\t[1, 2]", patch: `[{"op":"remove","path":"/0"}]`, want: `[2]`},
		{name: "scalar replaced", doc: `"foo"`, patch: `[{"op":"replace","path":"","value":"bar"}]`, want: `"bar"`},
		{name: "scalar tested", doc: ` 42 `, patch: `[{"op":"test","path":"","value":42.0}]`, want: `42`},
		{name: "scalar has no members", doc: `true`, patch: `[{"op":"add","path":"/a","value":1}]`, errs: []error{ErrPathNotFound}},
		{name: "root replaced by a scalar then patched", doc: `{"a":1}`, patch: `[{"op":"replace","path":"","value":[1]},{"op":"add","path":"/-","value":2}]`, want: `[1,2]`},
		{name: "html characters come back unescaped", doc: `{"a":"<b>&amp;</b>","k<>":1}`, patch: `[{"op":"add","path":"/c","value":"x<y&z>"},{"op":"replace","path":"/k<>","value":2}]`, want: `{"a":"<b>&amp;</b>","k<>":2,"c":"x<y&z>"}`},
		{name: "member names keep their spelling", doc: `{"\u00e9":{"x":1},"q\"":[1, 2],"a\/b":0}`, patch: `[{"op":"add","path":"/é/y","value":"<"},{"op":"remove","path":"/q\"/0"},{"op":"add","path":"/n\u2028\"","value":1}]`,
			want: "{\"\\u00e9\":{\"x\":1,\"y\":\"<\"},\"q\\\"\":[2],\"a\\/b\":0,\"n\u2028\\\"\":1}"},
		{name: "whitespace everywhere", doc: " { \"a\" : [ 1 , { \"b\" : \" x y \" } ] , \"c\" :\n{ } } ", patch: `[{"op":"add","path":"/a/1/d","value":[ 1, " z " ]},{"op":"copy","from":"/a","path":"/c/e"}]`,
			want: `{"a":[1,{"b":" x y ","d":[1," z "]}],"c":{"e":[1,{"b":" x y ","d":[1," z "]}]}}`},
		{name: "key order and big integers", doc: `{"z":1,"y":123456789012345678901234567890,"x":1.50}`, patch: `[{"op":"add","path":"/w","value":98765432109876543210}]`, want: `{"z":1,"y":123456789012345678901234567890,"x":1.50,"w":98765432109876543210}`},
	})
}

func TestLimits(t *testing.T) {
	var copies strings.Builder
	copies.WriteString(`[{"op":"add","path":"/a","value":"` + strings.Repeat("x", 1000) + `"}`)
	for i := range 20 {
		// Each copy doubles the document.
		fmt.Fprintf(&copies, `,{"op":"copy","from":"","path":"/c%d"}`, i)
	}
	copies.WriteString("]")
	big := `"` + strings.Repeat("x", 600<<10) + `"`
	twoCopies := func(from string) string {
		return fmt.Sprintf(`[{"op":"copy","from":"%s/a","path":"%s/b"},{"op":"copy","from":"%s/a","path":"%s/c"}]`, from, from, from, from)
	}
	bigOut := `{"a":` + big + `,"b":` + big + `,"c":` + big + `}`
	runRules(t, []ruleCase{
		{name: "copies over 1 MiB", doc: `{"a":` + big + `}`, patch: twoCopies(""), errs: []error{ErrLimitExceeded}, index: 1},
		{name: "copies over 1 MiB in a subtree", doc: `{"s":{"a":` + big + `},"pad":[` + big + `,` + big + `]}`, patch: twoCopies("/s"), errs: []error{ErrLimitExceeded}, index: 1},
		{name: "copies unlimited", opts: &Options{MaxCopyBytes: -1}, doc: `{"a":` + big + `}`, patch: twoCopies(""), want: bigOut},
		{name: "too many operations", opts: &Options{MaxOperations: 2}, doc: `{}`, patch: `[{"op":"test","path":"","value":{}},{"op":"test","path":"","value":{}},{"op":"test","path":"","value":{}}]`, errs: []error{ErrLimitExceeded}, index: -1},
		{name: "operations unlimited", opts: &Options{MaxOperations: -1}, doc: `{}`, patch: `[{"op":"test","path":"","value":{}}]`, want: `{}`},
		{name: "document too large", opts: &Options{MaxDocumentBytes: 10}, doc: `{"a":"0123456789"}`, patch: `[]`, errs: []error{ErrLimitExceeded}, index: -1},
		{name: "output too large", opts: &Options{MaxDocumentBytes: 20}, doc: `{"a":1}`, patch: `[{"op":"add","path":"/b","value":"0123456789abcdef"}]`, errs: []error{ErrLimitExceeded}, index: -1},
		{name: "doubling copies stop at the default copy limit", doc: `{}`, patch: copies.String(), errs: []error{ErrLimitExceeded}, index: 11},
		{name: "copy limit counts all copies", opts: &Options{MaxCopyBytes: 10}, doc: `{"a":"0123"}`, patch: `[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]`, errs: []error{ErrLimitExceeded}, index: 1},
		{name: "copy under the limit", opts: &Options{MaxCopyBytes: 12}, doc: `{"a":"0123"}`, patch: `[{"op":"copy","from":"/a","path":"/b"},{"op":"copy","from":"/a","path":"/c"}]`, want: `{"a":"0123","b":"0123","c":"0123"}`},
	})
}

func TestOperationErrorMessage(t *testing.T) {
	doc := []byte(`{"content":{"body":"x","tags":[]}}`)
	p, err := Decode([]byte(`[{"op":"test","path":"/content/body","value":"x"},{"op":"add","path":"/content/tags/-","value":"a"},{"op":"add","path":"/content/tags/-","value":"b"},{"op":"replace","path":"/content/title","value":"T"}]`))
	require.NoError(t, err)
	_, err = Apply(doc, p)
	var oe *OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 3, oe.Index)
	assert.Equal(t, p[3], oe.Op)
	assert.ErrorIs(t, err, ErrPathNotFound)
	assert.Equal(t, `jsonpatch: operation 3 (replace /content/title): path not found: "/content" has no member "title" (members: "body", "tags")`, err.Error())
}

func TestValidateHandBuiltPatch(t *testing.T) {
	assert.NoError(t, Patch{{Op: OpCopy, Path: "/b"}}.Validate(), "From \"\" is the root pointer")
	assert.ErrorIs(t, Patch{{Op: OpAdd, Path: "/a", Value: []byte(`{`)}}.Validate(), ErrInvalidPatch)
	assert.ErrorIs(t, Patch{{Op: OpAdd, Path: "/a"}}.Validate(), ErrInvalidPatch)
	assert.ErrorIs(t, Patch{{Path: "/a"}}.Validate(), ErrInvalidPatch)
	_, err := Apply([]byte(`{}`), Patch{{Op: OpReplace, Path: "x", Value: []byte(`1`)}})
	assert.ErrorIs(t, err, ErrInvalidPointer)
	out, err := Apply([]byte(`{"a":1}`), Patch{{Op: OpAdd, Path: "/b", Value: []byte(" [ 1 , 2 ] ")}})
	require.NoError(t, err)
	assert.Equal(t, `{"a":1,"b":[1,2]}`, string(out))
}

func TestConcurrentApply(t *testing.T) {
	// Large enough that the index of containers and the pooled scratch
	// space are used by every goroutine at once.
	pad := `,"pad":[{"s":"` + strings.Repeat("x", 80) + `"},{"t":[` + strings.Repeat("1,", 40) + `2]}]`
	doc := []byte(`{"n":0,"list":[1,2,3],"m":{"a":null}` + pad + `}`)
	patches := []Patch{
		mustDecode(t, `[{"op":"add","path":"/list/-","value":4}]`),
		mustDecode(t, `[{"op":"test","path":"/m/a","value":null},{"op":"replace","path":"/n","value":1}]`),
		mustDecode(t, `[{"op":"test","path":"/n","value":1}]`),
		mustDecode(t, `[{"op":"remove","path":"/pad/1/t/40"},{"op":"move","from":"/pad/0/s","path":"/s"}]`),
	}
	want := []string{
		`{"n":0,"list":[1,2,3,4],"m":{"a":null}` + pad + `}`,
		`{"n":1,"list":[1,2,3],"m":{"a":null}` + pad + `}`,
		"",
		`{"n":0,"list":[1,2,3],"m":{"a":null},"pad":[{},{"t":[` + strings.TrimSuffix(strings.Repeat("1,", 40), ",") + `]}],"s":"` + strings.Repeat("x", 80) + `"}`,
	}
	pt := New(nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				k := (g + i) % len(patches)
				out, err := pt.Apply(doc, patches[k])
				if want[k] == "" {
					assert.ErrorIs(t, err, ErrTestFailed)
				} else {
					assert.NoError(t, err)
					assert.Equal(t, want[k], string(out))
				}
			}
		})
	}
	wg.Wait()
}

func mustDecode(t *testing.T, s string) Patch {
	t.Helper()
	p, err := Decode([]byte(s))
	require.NoError(t, err)
	return p
}

func TestUTF8(t *testing.T) {
	_, err := Apply([]byte("{\"a\xff\":1}"), nil)
	assert.ErrorIs(t, err, ErrInvalidDocument)
	assert.Contains(t, err.Error(), "byte 3")
	_, err = Decode([]byte("[{\"op\":\"add\",\"path\":\"/a\",\"value\":\"\xc3\"}]"))
	assert.ErrorIs(t, err, ErrInvalidPatch)
	_, err = Apply([]byte(`{}`), Patch{{Op: OpAdd, Path: "/\xff", Value: []byte(`1`)}})
	assert.ErrorIs(t, err, ErrInvalidPointer)
	_, err = Apply([]byte(`{}`), Patch{{Op: OpAdd, Path: "/a", Value: []byte("\"\xff\"")}})
	assert.ErrorIs(t, err, ErrInvalidPatch)
	_, err = Get([]byte("[\"\xff\"]"), "/0")
	assert.ErrorIs(t, err, ErrInvalidDocument)
}

// A repeated member name in an object a patch goes into is refused, never
// half-changed; elsewhere it is left alone; tests never change bytes.
func TestDuplicateMembers(t *testing.T) {
	p := New(nil)
	for _, tc := range []struct{ doc, patch, want string }{
		{`{"x":{"a":1,"a":2},"y":1}`, `[{"op":"replace","path":"/y","value":3}]`, `{"x":{"a":1,"a":2},"y":3}`},
	} {
		patch, err := Decode([]byte(tc.patch))
		require.NoError(t, err)
		out, err := p.Apply([]byte(tc.doc), patch)
		require.NoError(t, err)
		assert.Equal(t, tc.want, string(out))
	}
	big := `{"a":0,`
	for i := range 100 {
		big += fmt.Sprintf(`"k%d":%d,`, i, i)
	}
	big += `"a":1}`
	for _, tc := range []struct{ doc, patch string }{
		{`{"a":1,"a":2}`, `[{"op":"remove","path":"/a"}]`},
		{`{"a":1,"a":2}`, `[{"op":"test","path":"/a","value":2}]`},
		{`{"x":{"a":1,"a":2}}`, `[{"op":"replace","path":"/x/a","value":3}]`},
		{`{"a":1,"a":2}`, `[{"op":"add","path":"/a","value":3}]`},
		{`{"a":{"b":1},"a":{"b":2}}`, `[{"op":"move","from":"/a/b","path":"/c"}]`},
		{big, `[{"op":"remove","path":"/a"}]`}, // an object large enough to be hashed
	} {
		patch, err := Decode([]byte(tc.patch))
		require.NoError(t, err)
		out, err := p.Apply([]byte(tc.doc), patch)
		require.ErrorIs(t, err, ErrInvalidDocument, "%s %s gave %s", tc.doc, tc.patch, out)
		assert.Contains(t, err.Error(), `"a"`)
	}
}

func TestHasRepeatedNames(t *testing.T) {
	for doc, want := range map[string]bool{
		`{"a":1,"a":2}`: true, `{"a":{"b":1},"c":{"b":2}}`: false, `{"x":[{"a":1,"a":1}]}`: true,
		`{"a":"a","b":"a"}`: false, `[{"a":1},{"a":1}]`: false, `{"a":{},"b":[],"a":0}`: true, `1`: false,
	} {
		assert.Equal(t, want, hasRepeatedNames([]byte(doc)), doc)
	}
}
