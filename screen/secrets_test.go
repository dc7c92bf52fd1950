package screen_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/screen"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fake finds "KEY-" followed by 8 letters.
var fake = screen.ScannerFunc(func(text string) []screen.Finding {
	var out []screen.Finding
	for i := 0; ; {
		j := strings.Index(text[i:], "KEY-")
		if j < 0 || i+j+12 > len(text) {
			return out
		}
		line, col := screen.LineColumn(text, i+j)
		out = append(out, screen.Finding{Kind: "fake-key", Secret: text[i+j : i+j+12], Line: line, Column: col})
		i += j + 12
	}
})

func TestSecretsRefuse(t *testing.T) {
	s := screen.Secrets{Scanner: fake}
	got, err := s.Screen("notes.md", "clean text")
	require.NoError(t, err)
	assert.Equal(t, "clean text", got)

	_, err = s.Screen("notes.md", "line one\nuse KEY-abcdefgh here")
	require.ErrorIs(t, err, screen.ErrSecret)
	var se *screen.SecretError
	require.True(t, errors.As(err, &se))
	assert.Equal(t, "notes.md", se.Where)
	require.Len(t, se.Findings, 1)
	assert.Equal(t, 2, se.Findings[0].Line)
	assert.Equal(t, 5, se.Findings[0].Column)
	assert.NotContains(t, err.Error(), "KEY-abcdefgh", "an error never repeats the credential")
	assert.Contains(t, err.Error(), "fake-key")
	assert.Contains(t, err.Error(), "notes.md")
}

func TestSecretsRedact(t *testing.T) {
	s := screen.Secrets{Scanner: fake, Mode: screen.Redact}
	got, err := s.Screen("m", "KEY-abcdefgh and again KEY-abcdefgh, KEY-zzzzzzzz")
	require.NoError(t, err)
	assert.Equal(t, "[REDACTED:fake-key] and again [REDACTED:fake-key], [REDACTED:fake-key]", got)
}

func TestParseMode(t *testing.T) {
	m, err := screen.ParseMode("redact")
	require.NoError(t, err)
	assert.Equal(t, screen.Redact, m)
	_, err = screen.ParseMode("warn")
	assert.ErrorIs(t, err, screen.ErrInvalidMode)
}
