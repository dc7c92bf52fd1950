package claudememory_test

import (
	"context"
	"encoding/json"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
	"github.com/mnemobank/mnemobank/screen"
)

// The memory tool writes through the Bank, so the Bank's secret screen
// refuses a credential in create and str_replace, and the model is told
// which kind and where.
func TestMemoryToolRefusesCredentials(t *testing.T) {
	ctx := context.Background()
	re := regexp.MustCompile(`FAKEKEY-[A-Za-z0-9]{16}`)
	sc := screen.ScannerFunc(func(text string) []screen.Finding {
		var out []screen.Finding
		for _, loc := range re.FindAllStringIndex(text, -1) {
			out = append(out, screen.Finding{Kind: "fake-key", Secret: text[loc[0]:loc[1]], Line: 1, Column: 1})
		}
		return out
	})
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{Secrets: screen.Secrets{Scanner: sc}})
	h := claudememory.New(claudememory.BankFiles(bank), nil)
	call := func(in map[string]any) error {
		raw, _ := json.Marshal(in)
		_, err := h.Handle(ctx, raw)
		return err
	}
	err := call(map[string]any{"command": "create", "path": "/memories/a.md", "file_text": "key FAKEKEY-abcdEFGH12345678"})
	require.ErrorIs(t, err, screen.ErrSecret)
	assert.Contains(t, err.Error(), "fake-key")
	require.NoError(t, call(map[string]any{"command": "create", "path": "/memories/a.md", "file_text": "key here"}))
	err = call(map[string]any{"command": "str_replace", "path": "/memories/a.md", "old_str": "here", "new_str": "FAKEKEY-abcdEFGH12345678"})
	require.ErrorIs(t, err, screen.ErrSecret)
}
