package tokens

import "testing"

// The estimate follows the shape of the real tokenizer's counts: words,
// digit groups, CJK characters, punctuation runs. (The 15% accuracy against
// recorded o200k_base counts is tested in memorybank.)
func TestEstimate(t *testing.T) {
	for _, tc := range []struct {
		text     string
		min, max int
	}{
		{"", 0, 0},
		{"hello", 1, 1},
		{"hello world, this is a test.", 6, 9},
		{"12345678", 3, 4},
		{"認証方式を決める", 5, 8},
		{`{"a": [1, 2, 3]}`, 8, 14},
	} {
		if n := Estimate(tc.text); n < tc.min || n > tc.max {
			t.Errorf("Estimate(%q) = %d, want %d..%d", tc.text, n, tc.min, tc.max)
		}
	}
	long := ""
	for range 100 {
		long += "the quick brown fox "
	}
	if n := Estimate(long); n < 380 || n > 420 {
		t.Errorf("400 words estimate to %d", n)
	}
}
