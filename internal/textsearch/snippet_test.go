package textsearch

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
)

// snippetReference is Snippet as it was before it stopped analysing once
// the best window is known: every term of the text found, every window
// counted.
func snippetReference(text string, terms []string, width, at int) string {
	if width <= 0 {
		width = 160
	}
	want := make(map[string]int, len(terms))
	for i, t := range terms {
		want[t] = i
	}
	type hit struct{ start, end, term int }
	var hits []hit
	Analyze(text, func(t Token) {
		if i, ok := want[string(t.Term)]; ok && len(hits) < 10000 {
			hits = append(hits, hit{t.Start, t.End, i})
		}
	})
	from := 0
	if len(hits) > 0 {
		best, bestN := 0, 0
		seen := make([]int, len(terms))
		for i := range hits {
			n := 0
			for j := i; j < len(hits) && hits[j].end-hits[i].start <= width; j++ {
				if seen[hits[j].term] != i+1 {
					seen[hits[j].term] = i + 1
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
		from = max(hits[best].start-width/4, 0)
	} else if at > 0 {
		from = max(min(at, len(text))-width/4, 0)
	}
	return passage(text, from, width)
}

// Snippet picks the passage the full count of every window picks, on
// texts of words, camel case, Chinese and Japanese runs (whose terms all
// span the run) and long runs, for terms present, absent and repeated.
func TestSnippetAsReference(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	words := []string{"adapter", "adapters", "failing", "fail", "retryPolicy", "activeContext", "the", "of", "token",
		"認証方式の期限", "缓存策略", "エラー処理", "Straße", "ＦＵＬＬ", strings.Repeat("long", 30), "x", "2026"}
	for range 3000 {
		var b strings.Builder
		for range rng.IntN(120) {
			b.WriteString(words[rng.IntN(len(words))])
			b.WriteString([]string{" ", "  ", "\n", ", ", ""}[rng.IntN(5)])
		}
		text := b.String()
		var q []string
		for range 1 + rng.IntN(4) {
			q = append(q, words[rng.IntN(len(words))])
		}
		terms := QueryTerms(strings.Join(q, " "))
		if rng.IntN(5) == 0 && len(terms) > 0 {
			terms = append(terms, terms[0]) // repeated
		}
		if rng.IntN(5) == 0 {
			terms = append(terms, "absent")
		}
		width := []int{0, 1, 10, 40, 160}[rng.IntN(5)]
		at := rng.IntN(len(text)+2) - 1
		require.Equal(t, snippetReference(text, terms, width, at), Snippet(text, terms, width, at), "text %q, terms %q, width %d", text, terms, width)
	}
}

// Ten thousand hits are enough to choose from, with or without stopping.
func TestSnippetManyHits(t *testing.T) {
	text := strings.Repeat("token adapter ", 6000) + "retry token adapter policy"
	terms := QueryTerms("token adapter retry policy")
	require.Equal(t, snippetReference(text, terms, 40, -1), Snippet(text, terms, 40, -1))
	require.Equal(t, snippetReference(text, terms[:2], 40, -1), Snippet(text, terms[:2], 40, -1))
}

func FuzzSnippet(f *testing.F) {
	f.Add("failing adapters, the activeContext 認証方式 token", "adapter token", 40)
	f.Add("缓存策略 缓存 策略", "缓存策略", 3)
	f.Fuzz(func(t *testing.T, text, query string, width int) {
		width %= 400
		terms := QueryTerms(query)
		require.Equal(t, snippetReference(text, terms, width, -1), Snippet(text, terms, width, -1))
	})
}
