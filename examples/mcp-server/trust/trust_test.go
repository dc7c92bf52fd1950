package trust

import (
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/screen"
)

// The rule set is built at the first scan, not by Screens: the screen
// must still find a credential then, in both modes.
func TestScreensBuildTheRulesAtTheFirstScan(t *testing.T) {
	const text = "deploy key: AKIAZ7QW3RT5PLM2XC4N and nothing else"
	sec, _, err := Screens("refuse")
	require.NoError(t, err)
	_, err = sec.Screen("notes.md", text)
	var se *screen.SecretError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "aws-access-token", se.Findings[0].Kind)

	red, _, err := Screens("redact")
	require.NoError(t, err)
	out, err := red.Screen("notes.md", text)
	require.NoError(t, err)
	assert.NotContains(t, out, "AKIAZ7QW3RT5PLM2XC4N")
	assert.Contains(t, out, screen.Marker("aws-access-token"))
}

// A rule set that fails to build must not let a text through unscreened:
// refused in both modes, saying why.
func TestUnbuildableRulesRefuseEveryWrite(t *testing.T) {
	broken := lazyScanner{get: func() (screen.Scanner, error) { return nil, errors.New("rules: bad regexp") }}
	for _, mode := range []screen.Mode{screen.Refuse, screen.Redact} {
		_, err := screen.Secrets{Scanner: broken, Mode: mode}.Screen("notes.md", "a plain note")
		var se *screen.SecretError
		require.ErrorAs(t, err, &se, "mode %s", mode)
		assert.Equal(t, KindScannerUnavailable, se.Findings[0].Kind)
		assert.Contains(t, err.Error(), "rules: bad regexp")
	}
}

func TestScreensRejectAnUnknownMode(t *testing.T) {
	_, _, err := Screens("ignore")
	assert.ErrorIs(t, err, screen.ErrInvalidMode)
}
