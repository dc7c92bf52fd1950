package archive_test

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// archive and archive/foreign open no file of their own: the program
// opens the directories (foreign reads an fs.FS) and the temporary files
// (archive's Spool). An import of os or syscall would bring that back.
func TestArchivePackagesOpenNoFiles(t *testing.T) {
	for _, dir := range []string{".", "foreign"} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		require.NoError(t, err)
		require.NotEmpty(t, files)
		for _, name := range files {
			if strings.HasSuffix(name, "_test.go") {
				continue
			}
			f, err := parser.ParseFile(token.NewFileSet(), name, nil, parser.ImportsOnly)
			require.NoError(t, err)
			for _, imp := range f.Imports {
				p, _ := strconv.Unquote(imp.Path.Value)
				assert.NotContains(t, []string{"os", "syscall", "path/filepath"}, p, "%s imports %s", name, p)
			}
		}
	}
}
