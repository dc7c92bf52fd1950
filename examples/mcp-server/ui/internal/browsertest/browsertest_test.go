package browsertest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFindPrefersTheEnvironment(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(EnvChrome, exe)
	got, why := Find()
	assert.Equal(t, exe, got)
	assert.Empty(t, why)

	t.Setenv(EnvChrome, filepath.Join(t.TempDir(), "no-such-browser"))
	got, why = Find()
	assert.Empty(t, got)
	assert.Contains(t, why, "is not an executable")
}

func TestFindSaysWhatToInstall(t *testing.T) {
	t.Setenv(EnvChrome, "")
	t.Setenv("PATH", t.TempDir())
	got, why := Find()
	assert.Empty(t, got)
	assert.Equal(t, "no chromium on PATH (install Debian's chromium)", why)
}

func TestScreenshotNamesStayInTheFolder(t *testing.T) {
	assert.Equal(t, "_.._etc_passwd", unsafeName.ReplaceAllString("/../etc/passwd", "_"))
	assert.Equal(t, "banks_page_1", unsafeName.ReplaceAllString("banks page 1", "_"))
}
