package mcpserver

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// A resource URI is read back as the document it was made from, and
// anything parseDocURI accepts names a valid document whose URI is the one
// given (or an equivalent spelling of it that reads back the same).
func FuzzParseDocURI(f *testing.F) {
	for _, s := range []string{
		"memorybank://global/progress.json",
		"memorybank://branch/feature%2Flogin/notes/a%20b.md",
		"memorybank://branch/x/../../etc/passwd",
		"memorybank://global/%zz",
		"memorybank://branch/",
		"file:///etc/passwd",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, uri string) {
		req, err := parseDocURI(uri)
		if err != nil {
			assert.LessOrEqual(t, len(err.Error()), 600, "an error quotes a short prefix of the URI")
			return
		}
		require.NoError(t, memorybank.ValidatePath(req.Path))
		if req.Scope == memorybank.ScopeBranch {
			require.NoError(t, memorybank.ValidateBranch(req.Branch))
		}
		again, err := parseDocURI(ResourceURI(req.Scope, req.Branch, req.Path))
		require.NoError(t, err)
		assert.Equal(t, req, again)
	})
}

// HEAD files name a branch the bank accepts, or are a detached HEAD (or
// another error); a branch written by git reads back as itself.
func FuzzParseHEAD(f *testing.F) {
	for _, s := range []string{"ref: refs/heads/main\n", "ref: refs/heads/feature/login", "0123456789abcdef0123456789abcdef01234567\n", "ref: refs/tags/v1\n", "ref:refs/heads/\n", ""} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, head []byte) {
		branch, err := parseHEAD(head)
		if err != nil {
			assert.Empty(t, branch)
			return
		}
		require.NoError(t, memorybank.ValidateBranch(branch))
		assert.Equal(t, strings.TrimSpace(branch), branch)
		again, err := parseHEAD([]byte("ref: refs/heads/" + branch + "\n"))
		require.NoError(t, err)
		assert.Equal(t, branch, again)
	})
}

func TestParseHEAD(t *testing.T) {
	for head, want := range map[string]string{"ref: refs/heads/main\n": "main", "ref:  refs/heads/feature/login \n": "feature/login"} {
		got, err := parseHEAD([]byte(head))
		require.NoError(t, err, head)
		assert.Equal(t, want, got)
	}
	for _, head := range []string{"0123456789abcdef0123456789abcdef01234567\n", "ref: refs/tags/v1\n", "ref: refs/heads/\n", ""} {
		_, err := parseHEAD([]byte(head))
		assert.True(t, errors.Is(err, errDetachedHead), "%q: %v", head, err)
	}
}
