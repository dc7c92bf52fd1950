package memorybank_test

import (
	"errors"
	"path"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

func TestValidateKeyAccepts(t *testing.T) {
	for _, key := range []string{
		"a",
		"a.json",
		"global-memory-bank/projectbrief.md",
		"branch-memory-bank/feature/login/activeContext.md",
		".gitkeep",
		"a/.hidden/b",
		"..a",
		"a..b",
		"CONSOLE.md",   // only the exact device names are reserved
		"com10",        // COM0-COM9 only
		"CONIN",        // CONIN$ is the device
		"conout$x.md",  // the whole base must match
		"xnul",         // reserved name must be the whole base
		"notes/日本語.md", // non-ASCII is fine
		"with space/a b.md",
		"emoji-😀.txt",
		strings.Repeat("x", memorybank.MaxSegmentLen),
		strings.Repeat(strings.Repeat("y", 100)+"/", 10) + strings.Repeat("z", memorybank.MaxKeyLen-1010),
	} {
		assert.NoError(t, memorybank.ValidateKey(key), "key %q", key)
	}
}

func TestValidateKeyRejects(t *testing.T) {
	tests := []struct {
		key    string
		reason string // a fragment of KeyError.Reason
	}{
		{"", "empty"},
		{"/a", "absolute"},
		{"/", "absolute"},
		{"a/", "ends with a slash"},
		{"a//b", "empty segment"},
		{".", `"."`},
		{"..", `".."`},
		{"a/../b", `".."`},
		{"./a", `"."`},
		{"a/.", `"."`},
		{`a\b`, "backslash"},
		{"a\x00b", "control character U+0000"},
		{"a\nb", "control character U+000A"},
		{"a\tb", "control character U+0009"},
		{"a\x7fb", "control character U+007F"},
		{"a\u0085b", "control character U+0085"},
		{"a<b", "reserved on Windows"},
		{"a>b", "reserved on Windows"},
		{"c:/x", "reserved on Windows"},
		{`a"b`, "reserved on Windows"},
		{"a|b", "reserved on Windows"},
		{"a?b", "reserved on Windows"},
		{"a*b", "reserved on Windows"},
		{"CON", "device name"},
		{"con", "device name"},
		{"dir/Prn.txt", "device name"},
		{"aux.tar.gz", "device name"},
		{"NUL", "device name"},
		{"nul .md", "device name"},
		{"COM1", "device name"},
		{"COM0", "device name"},
		{"lpt0.md", "device name"},
		{"CONIN$", "device name"},
		{"conin$.txt", "device name"},
		{"dir/CONOUT$", "device name"},
		{"conout$ .md", "device name"},
		{"com9.json", "device name"},
		{"LPT5/x", "device name"},
		{"COM¹", "device name"},
		{"a./b", "ends with a dot or space"},
		{"a ", "ends with a dot or space"},
		{"...", "ends with a dot or space"},
		{strings.Repeat("x", memorybank.MaxSegmentLen+1), "256 bytes long"},
		{"a/" + strings.Repeat("x", memorybank.MaxSegmentLen+1) + "/b", "256 bytes long"},
		{strings.Repeat("abcdefghi/", 103), "1030 bytes long"},
		{"a\xffb", "UTF-8"},
		{"\xc3", "UTF-8"},
	}
	for _, tt := range tests {
		err := memorybank.ValidateKey(tt.key)
		require.Error(t, err, "key %q", tt.key)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "key %q", tt.key)
		var ke *memorybank.KeyError
		require.ErrorAs(t, err, &ke, "key %q", tt.key)
		assert.Equal(t, tt.key, ke.Key)
		assert.Contains(t, ke.Reason, tt.reason, "key %q", tt.key)
		assert.Contains(t, err.Error(), ke.Reason)
	}
}

// FuzzValidateKey checks that ValidateKey never panics and that every key it
// accepts is a clean, relative, UTF-8 path within the limits.
func FuzzValidateKey(f *testing.F) {
	for _, seed := range []string{"a/b.json", "../x", "a//b", "CON.txt", "a\x00", "é/ü", "/abs", "a/"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, key string) {
		err := memorybank.ValidateKey(key)
		if err != nil {
			if !errors.Is(err, memorybank.ErrInvalidKey) {
				t.Fatalf("ValidateKey(%q) = %v, not an ErrInvalidKey", key, err)
			}
			return
		}
		if !utf8.ValidString(key) || len(key) > memorybank.MaxKeyLen {
			t.Fatalf("accepted %q: bad UTF-8 or too long", key)
		}
		if path.Clean(key) != key || path.IsAbs(key) || strings.HasPrefix(key, "../") || key == ".." {
			t.Fatalf("accepted %q, which is not a clean relative path", key)
		}
		if strings.ContainsAny(key, "\\<>:\"|?*\x00") {
			t.Fatalf("accepted %q with a forbidden character", key)
		}
	})
}

func BenchmarkValidateKey(b *testing.B) {
	for b.Loop() {
		if err := memorybank.ValidateKey("branch-memory-bank/feature/login/activeContext.md"); err != nil {
			b.Fatal(err)
		}
	}
}
