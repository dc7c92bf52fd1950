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

// scanner builds the gitleaks rule set once per process. Compiling its two
// hundred expressions takes 100 to 200 ms of CPU and about 20 MB of memory:
// more than everything else the server does before it answers its first
// request.
var scanner = sync.OnceValues(func() (screen.Scanner, error) { return gitleaks.New() })

// Scanner returns the process's credential scanner (gitleaks' default
// rules), building it first if need be.
func Scanner() (screen.Scanner, error) { return scanner() }

// Screens returns the secret screen for mode ("refuse" or "redact", as the
// --secrets flag gives it) and the poisoning flagger. The rule set is not
// built here: the screen builds it at its first scan (a write), unless Warm
// built it before. So a server answers its first requests without waiting
// for it, and a session that only reads never pays for it.
func Screens(mode string) (screen.Screen, screen.Flagger, error) {
	m, err := screen.ParseMode(mode)
	if err != nil {
		return nil, nil, err
	}
	return screen.Secrets{Scanner: lazyScanner{get: scanner}, Mode: m}, screen.Poisoning(), nil
}

// Warm builds the rule set now, and the poisoning flagger's expressions:
// a server calls it in the background once it serves, so its first write
// rarely waits for them.
func Warm() error {
	screen.Poisoning().Flags("")
	_, err := scanner()
	return err
}

// lazyScanner is gitleaks' scanner, built at its first use. Building it
// from the rules compiled into the gitleaks module fails only if that
// module is broken (its tests load them); the scanner then fails closed:
// every text is reported as holding a credential of kind
// KindScannerUnavailable, so nothing is stored unscreened.
type lazyScanner struct {
	get func() (screen.Scanner, error)
}

// KindScannerUnavailable is the kind of the finding a scan reports when the
// rule set could not be built.
const KindScannerUnavailable = "secret-scanner-unavailable"

func (l lazyScanner) Scan(text string) []screen.Finding {
	s, err := l.get()
	if err != nil {
		return []screen.Finding{{Kind: KindScannerUnavailable, Description: "the credential rules failed to load (" + err.Error() + "); nothing is stored until the server is repaired", Line: 1, Column: 1}}
	}
	return s.Scan(text)
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
