package memorybank

import (
	"math"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
)

// historyBanks are bank prefixes to place fuzzed paths in: the global bank,
// a branch bank, and a branch bank whose directory is as long as a
// segment may be.
var historyBanks = []struct {
	scope  Scope
	branch string
	prefix string
}{
	{ScopeGlobal, "", GlobalPrefix},
	{ScopeBranch, "feature/x", BranchPrefix + "feature-x/"},
	{ScopeBranch, "long", BranchPrefix + strings.Repeat("b", MaxSegmentLen) + "/"},
}

// keysOf returns the store keys a document at l may occupy: the document
// and, as history, a first and a last entry and the tombstone.
func keysOf(l loc) (doc string, history []string) {
	return l.key, []string{histio.Key(l.prefix, l.path, 1), histio.Key(l.prefix, l.path, math.MaxInt64), histio.Tombstone(l.prefix, l.path)}
}

// FuzzHistoryKeys: for every path a bank accepts, its history keys are
// valid store keys, none is a document key, and no key of one document
// (document or history) is a directory another needs, so no store, not
// even one of files, can hold one and refuse the other.
func FuzzHistoryKeys(f *testing.F) {
	long := strings.Repeat(strings.Repeat("d", MaxSegmentLen)+"/", 3) + strings.Repeat("n", 230) + ".md"
	for _, s := range [][2]string{
		{"x.json", "x.json/deleted.json"},
		{"x.json", "x.json/00000000000000000001.json"},
		{"notes.md", "Notes.md"},
		{long, long[:975]},
		{"a", "a/b"},
	} {
		f.Add(s[0], s[1], uint8(0), uint8(1))
	}
	f.Fuzz(func(t *testing.T, p, q string, bp, bq uint8) {
		lp, okp := fuzzLoc(p, bp)
		lq, okq := fuzzLoc(q, bq)
		if !okp || !okq {
			t.Skip()
		}
		dp, hp := keysOf(lp)
		dq, hq := keysOf(lq)
		for _, k := range append(hp, hq...) {
			require.NoError(t, ValidateKey(k), "a history key of a valid path")
			for _, d := range []string{dp, dq} {
				require.NotEqual(t, d, k, "a history key is never a document key")
				require.False(t, strings.HasPrefix(k, d+"/"), "%q would need %q as a directory", k, d)
				require.False(t, strings.HasPrefix(d, k+"/"), "%q would need %q as a directory", d, k)
			}
		}
		same := lp.key == lq.key
		for _, a := range hp {
			for _, b := range hq {
				require.False(t, strings.HasPrefix(a, b+"/") || strings.HasPrefix(b, a+"/"), "%q and %q: one would need the other as a directory", a, b)
				if !same {
					require.NotEqual(t, a, b, "two documents share a history key")
				}
			}
		}
	})
}

// fuzzLoc places p in one of historyBanks, as Bank.locate would.
func fuzzLoc(p string, bank uint8) (loc, bool) {
	hb := historyBanks[int(bank)%len(historyBanks)]
	if validatePath(p) != nil {
		return loc{}, false
	}
	l, err := newLoc(hb.scope, hb.branch, hb.prefix, p)
	return l, err == nil
}
