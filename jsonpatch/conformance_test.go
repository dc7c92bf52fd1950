package jsonpatch

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// conformanceDir is the public json-patch-tests suite, copied unchanged
// into testdata so it runs in a plain clone.
var conformanceDir = filepath.Join("testdata", "json-patch-tests")

type conformanceCase struct {
	Comment  string          `json:"comment"`
	Doc      json.RawMessage `json:"doc"`
	Patch    json.RawMessage `json:"patch"` // raw, so duplicate members survive
	Expected json.RawMessage `json:"expected"`
	Error    string          `json:"error"`
	Disabled bool            `json:"disabled"`
}

// disabledExpectations is what this package does for the cases the suite
// leaves open (see doc.go): nil means "succeeds with expected (or doc)".
var disabledExpectations = map[string]error{
	"Toplevel scalar values OK?":       nil,
	"Whole document":                   nil,
	"duplicate ops":                    ErrInvalidPatch,
	"A.13 Invalid JSON Patch Document": ErrInvalidPatch,
}

func loadConformance(t *testing.T, name string) []conformanceCase {
	t.Helper()
	data, err := os.ReadFile(filepath.Join(conformanceDir, name))
	require.NoError(t, err)
	var cases []conformanceCase
	require.NoError(t, json.Unmarshal(data, &cases))
	return cases
}

func TestConformance(t *testing.T) {
	for _, file := range []string{"tests.json", "spec_tests.json"} {
		t.Run(file, func(t *testing.T) {
			cases := loadConformance(t, file)
			ran := 0
			for i, c := range cases {
				if c.Doc == nil || c.Patch == nil {
					continue // comment-only record
				}
				ran++
				t.Run(c.Comment, func(t *testing.T) {
					want, disabledErr := error(nil), error(nil)
					if c.Disabled {
						var known bool
						disabledErr, known = disabledExpectations[c.Comment]
						require.True(t, known, "case %d: disabled case without a documented decision", i)
						want = disabledErr
					}
					out, err := applyRaw(c.Doc, c.Patch)
					switch {
					case c.Disabled && want != nil:
						require.Error(t, err)
						assert.ErrorIs(t, err, want)
						assert.Nil(t, out)
					case c.Error != "" && !c.Disabled:
						require.Error(t, err, "case %d: want an error (%s), got %s", i, c.Error, out)
						assert.Nil(t, out)
						assert.True(t, isSentinel(err), "case %d: %v wraps none of the package's sentinels", i, err)
					default:
						require.NoError(t, err, "case %d", i)
						exp := c.Expected
						if exp == nil {
							exp = c.Doc
						}
						assert.JSONEq(t, string(exp), string(out), "case %d", i)
					}
				})
			}
			t.Logf("%s: ran %d cases", file, ran)
		})
	}
}

func applyRaw(doc, patch []byte) ([]byte, error) {
	p, err := Decode(patch)
	if err != nil {
		return nil, err
	}
	return Apply(doc, p)
}

func isSentinel(err error) bool {
	for _, s := range []error{ErrInvalidPatch, ErrInvalidPointer, ErrPathNotFound, ErrInvalidIndex, ErrTestFailed, ErrInvalidDocument, ErrLimitExceeded} {
		if errors.Is(err, s) {
			return true
		}
	}
	return false
}
