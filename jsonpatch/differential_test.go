package jsonpatch

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestAgreesWithExactEvaluator generates many patches over a nested
// document, at the top level and below it, and
// checks Apply against the operation-by-operation exact evaluator: same
// success, same output, same failing operation and sentinel.
func TestAgreesWithExactEvaluator(t *testing.T) {
	doc := []byte(` {"meta": {"v": 1, "tags": ["a", "b"]},
	  "s": {"x": {"t": "<x>", "n": 1.0, "l": [1, 2, {"q": null}]},
	        "y": {"t": "y", "n": 2, "l": []},
	        "z": [ {"k": 1}, {"k": 2} ]},
	  "": {"e": 0},
	  "k": {"a/b": 1, "m~n": [1], "0": {"x": "\u003c"}, "q\"": 2, "\u00e9": [[0]]}} `)
	paths := []string{
		"/meta/v", "/meta/tags/0", "/meta/tags/-", "/meta/tags/5", "/meta/new",
		"/s/x/t", "/s/x/n", "/s/x/l/0", "/s/x/l/2/q", "/s/x/l/-", "/s/x/l/2", "/s/x/new",
		"/s/y/t", "/s/y/l/0", "/s/y/l/-", "/s/y/n", "/s/z/0/k", "/s/z/1", "/s/z/-", "/s/z/01",
		"/s/w", "/s/x", "/s/y", "/s/x/l/-1", "/s/z/-2",
		"/k/a~1b", "/k/m~0n/0", "/k/m~0n/-", "/k/0/x", "/k/0", "/k/q\"", "/k/1", "/k/é/0/0", "/k/é/0/-", "//e", "/", "/missing/a", "/s/x/t/deep",
	}
	values := []string{`1`, `1.0`, `"y"`, `null`, `[1,2]`, `{"a":[null]}`, `"<&>"`, `2`, `{"k":1}`, `"\u003c"`, `[[0]]`, `{"x":"<"}`}
	ops := []string{OpAdd, OpRemove, OpReplace, OpMove, OpCopy, OpTest, OpTest}
	rng := rand.New(rand.NewPCG(1, 2))
	savedSpanMin := spanMin
	t.Cleanup(func() { spanMin = savedSpanMin })
	var nestedOnly, failures int
	for n := range 6000 {
		opts := []*Options{nil, {AllowNegativeIndices: true}}[n%2]
		spanMin = []int{savedSpanMin, 8, 1}[n%3] // with and without the index of containers
		var b strings.Builder
		b.WriteByte('[')
		count := 1 + rng.IntN(6)
		for i := range count {
			if i > 0 {
				b.WriteByte(',')
			}
			op := ops[rng.IntN(len(ops))]
			path := paths[rng.IntN(len(paths))]
			// Mostly stay inside one subtree, so grouping applies.
			if n%4 < 2 && !strings.HasPrefix(path, "/s/") && !strings.HasPrefix(path, "/k/") {
				path = "/s/x/l/0"
			}
			fmt.Fprintf(&b, `{"op":%q,"path":%q`, op, path)
			switch op {
			case OpMove, OpCopy:
				fmt.Fprintf(&b, `,"from":%q`, paths[rng.IntN(len(paths))])
			case OpAdd, OpReplace, OpTest:
				fmt.Fprintf(&b, `,"value":%s`, values[rng.IntN(len(values))])
			}
			b.WriteByte('}')
		}
		b.WriteByte(']')
		p, err := Decode([]byte(b.String()))
		if err != nil {
			require.ErrorIs(t, err, ErrInvalidPatch) // a move into its own child
			continue
		}
		pt := New(opts)
		if nested(p) {
			nestedOnly++
		}
		orig := bytes.Clone(doc)
		got, err := pt.Apply(doc, p)
		require.Equal(t, orig, doc)
		want, wantErr := referenceApply(opts, doc, p)
		if wantErr != nil {
			failures++
			require.Error(t, err, "patch %s: exact evaluator fails with %v, Apply gives %s", b.String(), wantErr, got)
			var a, r *OperationError
			if errors.As(wantErr, &r) {
				require.ErrorAs(t, err, &a, "patch %s", b.String())
				assert.Equal(t, r.Index, a.Index, "patch %s: %v vs %v", b.String(), err, wantErr)
				assert.Equal(t, wantErr.Error(), err.Error())
			}
			continue
		}
		require.NoError(t, err, "patch %s", b.String())
		assert.True(t, sameJSON(t, want, got), "patch %s:\nexact %s\nApply %s", b.String(), want, got)
	}
	t.Logf("%d patches working below the top level only, %d failing", nestedOnly, failures)
	assert.Greater(t, nestedOnly, 2000)
	assert.Greater(t, failures, 1000)
	assert.Less(t, failures, 5800)
}

// nested reports whether every pointer of p has two tokens or more.
func nested(p Patch) bool {
	for _, op := range p {
		if strings.Count(op.Path, "/") < 2 || (op.Op == OpMove || op.Op == OpCopy) && strings.Count(op.From, "/") < 2 {
			return false
		}
	}
	return true
}

// sameJSON compares two JSON texts token by token: member order and number
// spellings must match; strings compare by value, since the engine may
// re-encode a member name ("\u00e9" as "é").
func sameJSON(t *testing.T, a, b []byte) bool {
	t.Helper()
	da, db := json.NewDecoder(bytes.NewReader(a)), json.NewDecoder(bytes.NewReader(b))
	da.UseNumber()
	db.UseNumber()
	for {
		ta, ea := da.Token()
		tb, eb := db.Token()
		if ea != nil || eb != nil {
			return ea == io.EOF && eb == io.EOF
		}
		if ta != tb {
			return false
		}
	}
}
