// Package trust is what the mnemobank server does so that what it stores
// can be trusted: it builds the secret screen (gitleaks' rules, refusing or
// redacting, by the --secrets flag) and the poisoning flagger that every
// write path of the bank and the learned memories runs through, and the
// scrub command that removes credentials stored before.
//
// Decision: the default mode is refuse, so a model learns at once which
// credential it tried to store and where, and can write the text again
// with a placeholder; redact is for hosts that would rather keep the rest
// of a text than lose it.
package trust

import (
	"sync"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/screen"
	"github.com/mnemobank/mnemobank/screen/gitleaks"
)

// scanner builds the gitleaks rule set once per process: compiling its
// two hundred expressions takes a noticeable fraction of a second.
var scanner = sync.OnceValues(func() (screen.Scanner, error) { return gitleaks.New() })

// Scanner returns the process's credential scanner (gitleaks' default rules).
func Scanner() (screen.Scanner, error) { return scanner() }

// Screens returns the secret screen for mode ("refuse" or "redact", as the
// --secrets flag gives it) and the poisoning flagger.
func Screens(mode string) (screen.Screen, screen.Flagger, error) {
	m, err := screen.ParseMode(mode)
	if err != nil {
		return nil, nil, err
	}
	s, err := Scanner()
	if err != nil {
		return nil, nil, err
	}
	return screen.Secrets{Scanner: s, Mode: m}, screen.Poisoning(), nil
}

// Apply sets the screens of mode on the options of a bank and of the
// learned memories (either may be nil); excludeFlagged leaves flagged
// documents and memories out of read_context and injection.
func Apply(mode string, excludeFlagged bool, bank *memorybank.Options, mem *memories.Options) error {
	sec, fl, err := Screens(mode)
	if err != nil {
		return err
	}
	if bank != nil {
		bank.Secrets, bank.Flagger, bank.ExcludeFlagged = sec, fl, excludeFlagged
	}
	if mem != nil {
		mem.Secrets, mem.Flagger, mem.ExcludeFlagged = sec, fl, excludeFlagged
	}
	return nil
}
