package jsonpatch_test

import (
	"errors"
	"fmt"

	"github.com/mnemobank/mnemobank/jsonpatch"
)

func ExampleDecode() {
	p, err := jsonpatch.Decode([]byte(`[
		{"op": "test", "path": "/metadata/version", "value": 1},
		{"op": "replace", "path": "/metadata/version", "value": 2}
	]`))
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, op := range p {
		fmt.Println(op.Op, op.Path, string(op.Value))
	}

	// Two "op" members in one operation: decoders disagree on which wins, so it is rejected.
	_, err = jsonpatch.Decode([]byte(`[{"op": "add", "path": "/baz", "value": "qux", "op": "remove"}]`))
	fmt.Println(err)
	// Output:
	// test /metadata/version 1
	// replace /metadata/version 2
	// jsonpatch: operation 0 (add /baz): invalid patch: member "op" appears more than once in the operation object; keep exactly one
}

func ExampleApply() {
	doc := []byte(`{"title": "Notes <draft>", "tags": ["go"], "version": 1.0}`)
	p, _ := jsonpatch.Decode([]byte(`[
		{"op": "test", "path": "/version", "value": 1},
		{"op": "add", "path": "/tags/-", "value": "json-patch"},
		{"op": "replace", "path": "/title", "value": "Notes & plans"}
	]`))
	out, err := jsonpatch.Apply(doc, p)
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(string(out))
	// Output:
	// {"title":"Notes & plans","tags":["go","json-patch"],"version":1.0}
}

func ExampleOperationError() {
	doc := []byte(`{"content": {"body": "hello", "tags": []}}`)
	p, _ := jsonpatch.Decode([]byte(`[
		{"op": "add", "path": "/content/tags/-", "value": "a"},
		{"op": "replace", "path": "/content/title", "value": "Hi"}
	]`))
	out, err := jsonpatch.Apply(doc, p)
	fmt.Println(out == nil)
	fmt.Println(err)

	var oe *jsonpatch.OperationError
	if errors.As(err, &oe) {
		fmt.Println("failed operation:", oe.Index, oe.Op.Op, oe.Op.Path)
	}
	fmt.Println(errors.Is(err, jsonpatch.ErrPathNotFound))
	// Output:
	// true
	// jsonpatch: operation 1 (replace /content/title): path not found: "/content" has no member "title" (members: "body", "tags")
	// failed operation: 1 replace /content/title
	// true
}

func ExampleGet() {
	doc := []byte(`{"metadata": {"tags": ["design", "json-patch"]}, "a/b": {"~": 1}}`)
	v, _ := jsonpatch.Get(doc, "/metadata/tags/1")
	fmt.Println(string(v))
	v, _ = jsonpatch.Get(doc, jsonpatch.FormatPointer("a/b", "~"))
	fmt.Println(jsonpatch.FormatPointer("a/b", "~"), string(v))
	_, err := jsonpatch.Get(doc, "/metadata/tags/2")
	fmt.Println(err)
	// Output:
	// "json-patch"
	// /a~1b/~0 1
	// jsonpatch: invalid array index: index 2 is out of range for the array at "/metadata/tags", which has 2 elements (valid: 0 to 1)
}

func ExampleNew() {
	p := jsonpatch.New(&jsonpatch.Options{AllowNegativeIndices: true, MaxOperations: 100})
	patch, _ := jsonpatch.Decode([]byte(`[{"op": "remove", "path": "/-1"}]`))
	out, err := p.Apply([]byte(`[1, 2, 3]`), patch)
	fmt.Println(string(out), err)
	// Output:
	// [1,2] <nil>
}
