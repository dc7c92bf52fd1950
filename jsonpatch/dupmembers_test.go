package jsonpatch

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every operation that goes into an object whose members repeat a name
// (a member of it as path or from, or it as their parent) is refused with
// ErrInvalidDocument naming the object and the name, whichever members
// repeat, however spelled, in small and large (indexed) objects. The same
// operations beside such an object succeed and leave it as it is.
func TestRepeatedNamesRefusedProperty(t *testing.T) {
	ops := []struct {
		name, patch string
		goesIn      bool
	}{
		{"add a new member", `[{"op":"add","path":"/p/new","value":1}]`, true},
		{"add a new member deeper", `[{"op":"add","path":"/p/k0/new","value":1}]`, true},
		{"replace a member", `[{"op":"replace","path":"/p/k0","value":1}]`, true},
		{"remove a member", `[{"op":"remove","path":"/p/k0"}]`, true},
		{"test a member", `[{"op":"test","path":"/p/k0","value":{}}]`, true},
		{"move out of it", `[{"op":"move","from":"/p/k0","path":"/moved"}]`, true},
		{"move into it", `[{"op":"move","from":"/q","path":"/p/new"}]`, true},
		{"copy out of it", `[{"op":"copy","from":"/p/k0","path":"/copied"}]`, true},
		{"copy into it", `[{"op":"copy","from":"/q","path":"/p/new"}]`, true},
		{"add beside it", `[{"op":"add","path":"/new","value":1}]`, false},
		{"replace beside it", `[{"op":"replace","path":"/q","value":2}]`, false},
		{"copy it whole", `[{"op":"copy","from":"/p","path":"/copied"}]`, false},
		{"move it whole", `[{"op":"move","from":"/p","path":"/moved"}]`, false},
	}
	rng := rand.New(rand.NewPCG(24, 10))
	p := New(nil)
	for round := range 60 {
		n := 2 + rng.IntN(3*indexFrom) // small objects and indexed ones
		names := make([]string, n)
		for i := range names {
			names[i] = fmt.Sprintf(`"k%d"`, i)
		}
		// One name repeats, at random positions, maybe spelled with an
		// escape.
		dup := 1 + rng.IntN(n-1)
		i, j := rng.IntN(n), rng.IntN(n)
		for i == j {
			j = rng.IntN(n)
		}
		names[i] = fmt.Sprintf(`"k%d"`, dup)
		names[j] = fmt.Sprintf(`"k%d"`, dup)
		if rng.IntN(2) == 0 {
			names[j] = fmt.Sprintf(`"\u006b%d"`, dup)
		}
		members := make([]string, n)
		for k, name := range names {
			members[k] = name + `:{}`
		}
		repeated := fmt.Sprintf("k%d", dup)
		obj := "{" + strings.Join(members, ",") + "}"
		doc := `{"p":` + obj + `,"q":1}`
		for _, op := range ops {
			t.Run(fmt.Sprintf("%d/%s", round, op.name), func(t *testing.T) {
				patch, err := Decode([]byte(op.patch))
				require.NoError(t, err)
				out, err := p.Apply([]byte(doc), patch)
				if !op.goesIn {
					require.NoError(t, err)
					assert.Contains(t, string(out), obj, "the object is left as it is")
					return
				}
				require.ErrorIs(t, err, ErrInvalidDocument, "%s %s gave %s", doc, op.patch, out)
				assert.Nil(t, out)
				assert.Contains(t, err.Error(), `"/p/`+repeated+`"`, "the error names the repeated member's pointer")
			})
		}
	}
}
