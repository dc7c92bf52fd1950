package skilldoc

import (
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// skillIDPattern is the rule ValidID implements, as a regexp.
var skillIDPattern = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$`)

func TestValidID(t *testing.T) {
	for id, want := range map[string]bool{
		"fix-bug": true, "a": true, "A_1": true, "9lives": true, strings.Repeat("a", 64): true,
		"": false, "-a": false, "_a": false, "../etc": false, "a/b": false, "a.json": false, "é": false,
		strings.Repeat("a", 65): false, "a b": false,
	} {
		assert.Equal(t, want, ValidID(id), "%q", id)
	}
}

// ValidID accepts exactly what the regexp of its rule matches.
func FuzzValidID(f *testing.F) {
	for _, s := range []string{"fix-bug", "", "-a", "../etc", strings.Repeat("z", 64), strings.Repeat("z", 65), "a\x00", "Ω"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, id string) {
		if got, want := ValidID(id), skillIDPattern.MatchString(id); got != want {
			t.Fatalf("ValidID(%q) = %v, the rule says %v", id, got, want)
		}
	})
}
