package main

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// An export's manifest says what it was made from without saying where a
// person keeps files: no absolute directory.
func TestExportManifestHasNoAbsolutePath(t *testing.T) {
	bin := serverBinary(t)
	root, memFile := makeBank(t, 1)
	out, err := exec.Command(bin, "export", "--root", root, "--memories", memFile).Output()
	require.NoError(t, err)
	i := bytes.Index(out, []byte(`{"format":"mnemobank-archive","formatVersion":1,"source"`))
	require.GreaterOrEqual(t, i, 0, "the manifest's first line")
	var m struct {
		Source string `json:"source"`
	}
	line, _, _ := bytes.Cut(out[i:], []byte("\n"))
	require.NoError(t, json.Unmarshal(line, &m))
	assert.Equal(t, "directory "+filepath.Base(root), m.Source)
	assert.False(t, strings.Contains(m.Source, filepath.Dir(root)), "%q names the directory's parent", m.Source)
}
