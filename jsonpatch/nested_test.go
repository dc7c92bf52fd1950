package jsonpatch

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// nestedDoc has two small subtrees under /s and a large member beside them,
// which patches working under /s/a and /s/b never need to look into.
var nestedDoc = `{"pad":"` + strings.Repeat("p", 4096) + `","s":{"a":{"x":1,"l":[1,2]},"b":{"y":2.0,"n":null}}}`

func TestNestedRules(t *testing.T) {
	pad := `"` + strings.Repeat("p", 4096) + `"`
	runRules(t, []ruleCase{
		{name: "subtrees changed, the rest kept", doc: nestedDoc, patch: `[{"op":"replace","path":"/s/a/x","value":"<&>"},{"op":"add","path":"/s/b/z","value":[1]},{"op":"move","from":"/s/a/l/0","path":"/s/a/l/-"}]`,
			want: `{"pad":` + pad + `,"s":{"a":{"x":"<&>","l":[2,1]},"b":{"y":2.0,"n":null,"z":[1]}}}`},
		{name: "tests of null, numbers and objects in subtrees", doc: nestedDoc, patch: `[{"op":"test","path":"/s/b/n","value":null},{"op":"test","path":"/s/b/y","value":2},{"op":"test","path":"/s/a","value":{"l":[1,2.0],"x":1}},{"op":"remove","path":"/s/a/x"}]`,
			want: `{"pad":` + pad + `,"s":{"a":{"l":[1,2]},"b":{"y":2.0,"n":null}}}`},
		{name: "first failure in patch order", doc: nestedDoc, patch: `[{"op":"test","path":"/s/b/y","value":2},{"op":"replace","path":"/s/a/x","value":5},{"op":"remove","path":"/s/b/zz"},{"op":"remove","path":"/s/a/nope"}]`,
			errs: []error{ErrPathNotFound}, index: 2},
		{name: "failure in another subtree comes first", doc: nestedDoc, patch: `[{"op":"replace","path":"/s/a/x","value":5},{"op":"remove","path":"/s/b/zz"},{"op":"remove","path":"/s/a/nope"}]`,
			errs: []error{ErrPathNotFound}, index: 1},
		{name: "parent missing", doc: nestedDoc, patch: `[{"op":"add","path":"/s/c/x","value":1}]`, errs: []error{ErrPathNotFound}, index: 0},
		{name: "parent is a scalar", doc: nestedDoc, patch: `[{"op":"add","path":"/pad/x","value":1}]`, errs: []error{ErrPathNotFound}, index: 0},
		{name: "copy inside a subtree", doc: nestedDoc, patch: `[{"op":"copy","from":"/s/a/l","path":"/s/a/m"},{"op":"add","path":"/s/a/m/-","value":3}]`,
			want: `{"pad":` + pad + `,"s":{"a":{"x":1,"l":[1,2],"m":[1,2,3]},"b":{"y":2.0,"n":null}}}`},
	})
}

func TestNestedErrorNamesFullPaths(t *testing.T) {
	_, err := Apply([]byte(nestedDoc), mustDecode(t, `[{"op":"test","path":"/s/b/n","value":null},{"op":"replace","path":"/s/b/title","value":1}]`))
	assert.EqualError(t, err, `jsonpatch: operation 1 (replace /s/b/title): path not found: "/s/b" has no member "title" (members: "y", "n")`)
}

// TestWorkBudget: a patch whose work grows with the document on every
// operation (here removals at the front of a long array) stops at the
// budget with ErrLimitExceeded, naming the operation.
func TestWorkBudget(t *testing.T) {
	saved := workBudget
	workBudget = 64 << 10
	t.Cleanup(func() { workBudget = saved })
	doc := `{"l":[` + strings.TrimSuffix(strings.Repeat("0,", 10000), ",") + `]}`
	var ops []string
	for range 5 {
		ops = append(ops, `{"op":"remove","path":"/l/0"}`)
	}
	runRules(t, []ruleCase{
		{name: "removals at the front stop at the budget", doc: doc, patch: "[" + strings.Join(ops, ",") + "]", errs: []error{ErrLimitExceeded}, index: 2},
		{name: "a few are fine", doc: doc, patch: "[" + strings.Join(ops[:2], ",") + "]", want: `{"l":[` + strings.TrimSuffix(strings.Repeat("0,", 9998), ",") + `]}`},
	})
}
