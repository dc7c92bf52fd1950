package jsondiff

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
)

// FuzzDiff: the patch turns before into after, and its inverse turns after
// back, for any two JSON texts (normalised: a document the Bank diffs is
// canonical, each name once).
func FuzzDiff(f *testing.F) {
	f.Add([]byte(`{"a":1,"b":[1,2]}`), []byte(`{"a":2,"b":[1,2,3],"c":{"~/":null}}`))
	f.Add([]byte(`[1,{"x":"y"}]`), []byte(`[2,{"x":"z"}]`))
	f.Add([]byte(`1.50`), []byte(`"s"`))
	p := jsonpatch.New(nil)
	f.Fuzz(func(t *testing.T, before, after []byte) {
		var a, b any
		if json.Unmarshal(before, &a) != nil || json.Unmarshal(after, &b) != nil {
			return
		}
		before, _ = json.Marshal(a)
		after, _ = json.Marshal(b)
		fwd, inv, err := Diff(before, after)
		require.NoError(t, err)
		got, err := p.Apply(before, fwd)
		require.NoError(t, err)
		require.JSONEq(t, string(after), string(got))
		back, err := p.Apply(after, inv)
		require.NoError(t, err)
		require.JSONEq(t, string(before), string(back))
	})
}
