package textsearchtest

import "fmt"

// Row is one shape's figures: the engine beside plain BM25 and BM25 with
// stemming on all questions, and evidence recall@10 on the broad ones
// (Question.Broad) for the engine, the engine diversified (Diversify) and
// plain BM25.
type Row struct {
	Set                      string
	Docs, Questions, BroadQs int
	Engine, BM25, BM25Stem   Scores
	BroadEngine, BroadMMR    float64
	BroadBM25                float64
}

func (r Row) String() string {
	return fmt.Sprintf("%-8s %4d docs %3d q | engine %v | BM25 %v | BM25+stem %v | broad (%d q) recall@10: engine %.3f, with MMR %.3f, BM25 %.3f",
		r.Set, r.Docs, r.Questions, r.Engine, r.BM25, r.BM25Stem, r.BroadQs, r.BroadEngine, r.BroadMMR, r.BroadBM25)
}

// Compare measures engine (a ranking of set.Docs) on set beside the
// baselines; stem is the stemmer of the stemmed baseline.
func Compare(set Set, engine func(q string) []string, stem func(string) string) Row {
	var broad []Question
	for _, q := range set.Questions {
		if q.Broad() {
			broad = append(broad, q)
		}
	}
	bm := Okapi(set.Docs, nil)
	r := Row{Set: set.Name, Docs: len(set.Docs), Questions: len(set.Questions), BroadQs: len(broad),
		Engine: Measure(set.Questions, engine), BM25: Measure(set.Questions, bm), BM25Stem: Measure(set.Questions, Okapi(set.Docs, stem))}
	if len(broad) > 0 {
		r.BroadEngine = Measure(broad, engine).Recall10
		r.BroadMMR = Measure(broad, Diversify(set.Docs, engine, 30, 0.7)).Recall10
		r.BroadBM25 = Measure(broad, bm).Recall10
	}
	return r
}

// Header names the figures of Row.String.
const Header = "figures: recall_any@5, evidence recall@10, MRR"
