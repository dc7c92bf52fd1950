package jsonpatch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// groupDoc has two small subtrees under /s and a large member beside them,
// so that patches working under /s/a and /s/b are applied group by group.
var groupDoc = `{"pad":"` + strings.Repeat("p", 4096) + `","s":{"a":{"x":1,"l":[1,2]},"b":{"y":2.0,"n":null}}}`

func TestGroupedPlan(t *testing.T) {
	p := mustDecode(t, `[{"op":"replace","path":"/s/a/x","value":2},{"op":"add","path":"/s/b/z","value":1},{"op":"move","from":"/s/a/l/0","path":"/s/a/l/-"},{"op":"test","path":"/s/a/l","value":[2,1]}]`)
	groups, _ := planGroups(p)
	require.Len(t, groups, 2)
	assert.Equal(t, "/s/a", groups[0].root)
	assert.Equal(t, []int{0, 2, 3}, groups[0].ops)
	assert.Equal(t, "/s/b", groups[1].root)

	// A top-level operation, or a move across subtrees, makes one group of everything.
	g, _ := planGroups(mustDecode(t, `[{"op":"replace","path":"/s/a/x","value":2},{"op":"add","path":"/t","value":1}]`))
	assert.Nil(t, g)
	g, _ = planGroups(mustDecode(t, `[{"op":"move","from":"/s/a/x","path":"/s/b/x"}]`))
	require.Len(t, g, 1)
	assert.Equal(t, "/s", g[0].root)
	// Roots that are prefixes as strings but not as pointers stay apart.
	g, _ = planGroups(mustDecode(t, `[{"op":"add","path":"/s/a/x","value":2},{"op":"add","path":"/s/ab/x","value":1},{"op":"add","path":"/s/a/y/z","value":1}]`))
	require.Len(t, g, 2)
	assert.Equal(t, []int{0, 2}, g[0].ops)
}

func TestGroupedRules(t *testing.T) {
	pad := `"` + strings.Repeat("p", 4096) + `"`
	runRules(t, []ruleCase{
		{name: "groups applied and spliced", doc: groupDoc, patch: `[{"op":"replace","path":"/s/a/x","value":"<&>"},{"op":"add","path":"/s/b/z","value":[1]},{"op":"move","from":"/s/a/l/0","path":"/s/a/l/-"}]`,
			want: `{"pad":` + pad + `,"s":{"a":{"x":"<&>","l":[2,1]},"b":{"y":2.0,"n":null,"z":[1]}}}`},
		{name: "exact operations inside groups", doc: groupDoc, patch: `[{"op":"test","path":"/s/b/n","value":null},{"op":"test","path":"/s/b/y","value":2},{"op":"test","path":"/s/a","value":{"l":[1,2.0],"x":1}},{"op":"remove","path":"/s/a/x"}]`,
			want: `{"pad":` + pad + `,"s":{"a":{"l":[1,2]},"b":{"y":2.0,"n":null}}}`},
		{name: "first failure in patch order across groups", doc: groupDoc, patch: `[{"op":"test","path":"/s/b/y","value":2},{"op":"replace","path":"/s/a/x","value":5},{"op":"remove","path":"/s/b/zz"},{"op":"remove","path":"/s/a/nope"}]`,
			errs: []error{ErrPathNotFound}, index: 2},
		{name: "failure in a later group comes first", doc: groupDoc, patch: `[{"op":"replace","path":"/s/a/x","value":5},{"op":"remove","path":"/s/b/zz"},{"op":"remove","path":"/s/a/nope"}]`,
			errs: []error{ErrPathNotFound}, index: 1},
		{name: "group root missing", doc: groupDoc, patch: `[{"op":"add","path":"/s/c/x","value":1}]`, errs: []error{ErrPathNotFound}, index: 0},
		{name: "group root is a scalar", doc: groupDoc, patch: `[{"op":"add","path":"/pad/x","value":1}]`, errs: []error{ErrPathNotFound}, index: 0},
		{name: "copy inside a group", doc: groupDoc, patch: `[{"op":"copy","from":"/s/a/l","path":"/s/a/m"},{"op":"add","path":"/s/a/m/-","value":3}]`,
			want: `{"pad":` + pad + `,"s":{"a":{"x":1,"l":[1,2],"m":[1,2,3]},"b":{"y":2.0,"n":null}}}`},
	})
}

func TestGroupedErrorNamesFullPaths(t *testing.T) {
	_, err := Apply([]byte(groupDoc), mustDecode(t, `[{"op":"test","path":"/s/b/n","value":null},{"op":"replace","path":"/s/b/title","value":1}]`))
	assert.EqualError(t, err, `jsonpatch: operation 1 (replace /s/b/title): path not found: "/s/b" has no member "title" (members: "y", "n")`)
}

func TestExactBudget(t *testing.T) {
	saved := exactBudget
	exactBudget = 64 << 10
	t.Cleanup(func() { exactBudget = saved })
	doc := fmt.Sprintf(`{"a":null,"pad":"%s"}`, strings.Repeat("p", 16<<10))
	var ops []string
	for range 10 {
		ops = append(ops, `{"op":"test","path":"/a","value":null}`)
	}
	runRules(t, []ruleCase{
		{name: "top-level exact operations stop at the budget", doc: doc, patch: "[" + strings.Join(ops, ",") + "]", errs: []error{ErrLimitExceeded}, index: 3},
		{name: "a few are fine", doc: doc, patch: "[" + strings.Join(ops[:3], ",") + "]", want: doc},
	})
}
