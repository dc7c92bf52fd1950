package claudememory_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentmemory/agentmemory/memorybank"
	"github.com/agentmemory/agentmemory/memorybank/claudememory"
)

// reference is testdata/reference_python.json: inputs and the outputs the
// Python SDK's BetaLocalFilesystemMemoryTool gave for them, run in order on
// one fresh memory directory.
type reference struct {
	Source string `json:"source"`
	Steps  []struct {
		Name    string          `json:"name"`
		Input   json.RawMessage `json:"input"`
		Want    string          `json:"want"`
		IsError bool            `json:"is_error"`
	} `json:"steps"`
}

// Where the bank-backed directory differs from a file system on purpose: a
// directory exists only while it holds a file, so /memories/projects, left
// empty by the renames, is not listed.
var referenceDeviations = map[string][]string{
	"view after renames": {"\t/memories/projects/"},
	"view after deletes": {"\t/memories/projects/"},
}

// listingSize matches the size column of a listing line.
var listingSize = regexp.MustCompile(`(?m)^[0-9.]+[BKMG]\t(/memories.*)$`)

// normalize blanks what a file system measures differently from Files:
// directory sizes (inode sizes there, file totals here) and, when
// allSizes, file sizes (the bank's stored size includes its metadata).
func normalize(s string, allSizes bool) string {
	if !strings.HasPrefix(s, "Here're the files") {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if i == 1 || strings.HasSuffix(l, "/") || allSizes {
			lines[i] = listingSize.ReplaceAllString(l, "<size>\t$1")
		}
	}
	return strings.Join(lines, "\n")
}

func dropLines(s string, suffixes []string) string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		drop := false
		for _, suf := range suffixes {
			drop = drop || strings.HasSuffix(l, suf)
		}
		if !drop {
			out = append(out, l)
		}
	}
	return strings.Join(out, "\n")
}

func loadReference(t *testing.T) reference {
	t.Helper()
	data, err := os.ReadFile("testdata/reference_python.json")
	require.NoError(t, err)
	var ref reference
	require.NoError(t, json.Unmarshal(data, &ref))
	require.NotEmpty(t, ref.Steps)
	return ref
}

// Every command and error case gives the reference backend's text.
func TestMatchesReferenceBackend(t *testing.T) {
	ref := loadReference(t)
	backends := []struct {
		name     string
		files    func() claudememory.Files
		allSizes bool
	}{
		{"mapFiles", func() claudememory.Files { return newMapFiles(nil) }, false},
		{"BankFiles on MemStore", func() claudememory.Files {
			return claudememory.BankFiles(memorybank.New(new(memorybank.MemStore), nil))
		}, true},
	}
	for _, be := range backends {
		t.Run(be.name, func(t *testing.T) {
			ctx := context.Background()
			h := claudememory.New(be.files(), nil)
			for _, step := range ref.Steps {
				got, err := h.Handle(ctx, step.Input)
				if err != nil {
					var te *claudememory.ToolError
					require.True(t, errors.As(err, &te), "step %q: %v is not a *ToolError", step.Name, err)
					got = err.Error()
				}
				assert.Equal(t, step.IsError, err != nil, "step %q: is_error", step.Name)
				want := dropLines(step.Want, referenceDeviations[step.Name])
				assert.Equal(t, normalize(want, be.allSizes), normalize(got, be.allSizes), "step %q", step.Name)
			}
		})
	}
}
