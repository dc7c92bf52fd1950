package textsearchtest

import "github.com/mnemobank/mnemobank/internal/textsearch"

// Diversify wraps a ranking in maximal marginal relevance (Carbonell and
// Goldstein), to measure whether spreading results over unlike documents
// finds more of the evidence of questions about everything on a subject:
// of the first pool documents ranked, it picks ten, each next one the best
// trade of lambda times its relevance (1 for the first ranked, falling
// linearly with rank) against 1-lambda times its greatest Jaccard
// similarity (of analysed terms) to a document picked before.
func Diversify(docs []Doc, ranked func(q string) []string, pool int, lambda float64) func(q string) []string {
	terms := map[string]map[string]bool{}
	for _, d := range docs {
		set := map[string]bool{}
		textsearch.Analyze(d.Title+"\n"+d.Text, func(t textsearch.Token) {
			if !t.Stop {
				set[string(t.Term)] = true
			}
		})
		terms[d.Key] = set
	}
	jaccard := func(a, b map[string]bool) float64 {
		both := 0
		for t := range a {
			if b[t] {
				both++
			}
		}
		if u := len(a) + len(b) - both; u > 0 {
			return float64(both) / float64(u)
		}
		return 0
	}
	return func(q string) []string {
		rest := ranked(q)
		rest = rest[:min(pool, len(rest))]
		n := float64(len(rest))
		rel := map[string]float64{}
		for i, k := range rest {
			rel[k] = 1 - float64(i)/n
		}
		var out []string
		for len(out) < 10 && len(rest) > 0 {
			best, bestV := 0, -2.0
			for i, k := range rest {
				sim := 0.0
				for _, o := range out {
					sim = max(sim, jaccard(terms[k], terms[o]))
				}
				if v := lambda*rel[k] - (1-lambda)*sim; v > bestV {
					best, bestV = i, v
				}
			}
			out = append(out, rest[best])
			rest = append(rest[:best], rest[best+1:]...)
		}
		return out
	}
}
