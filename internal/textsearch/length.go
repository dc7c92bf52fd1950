package textsearch

import "math"

// Length normalisation that adapts to the collection.
//
// BM25's B says how much a document's length relative to the average
// discounts its term counts. Which B ranks best depends on how lengths
// spread. In a collection of like documents (one short remark each, one
// whole chat session each) a longer one tends to say more, and a light B
// ranks best; in a collection mixing short notes with answers ten to fifty
// times longer, a long answer holds the query's words by sheer length and
// buries the short note that states the fact, and full normalisation
// ranks best. So a field's B is its value for like documents, and rises
// linearly to 1 as the standard deviation of the logarithm of the field's
// lengths (over the documents where it is not empty) goes from spreadLow
// to spreadHigh. Measured (textsearchtest's sets, analysed terms of the
// text): remarks 0.56, whole sessions 0.41, memorybank's documents 0.47,
// mixed messages 1.19. A standard deviation of the log of 0.6 means the
// middle two thirds of lengths span a factor of about 3.3; 1.5, a factor
// of 20. On the mixed messages this gives the memories' content B 0.3 a B
// of 0.76 and the bank's text B 0.75 one of 0.91: both then rank above
// plain BM25 on every figure, where a fixed B 0.3 ranked below it. An end
// of the ramp at 1.2 (B about 1 on those messages) or 2.0 measured within
// a question or two of 1.5 on either engine (TestShapes). BM25+ (a floor
// added to every matched term's weight, for long documents over-penalised)
// works the other way: the long documents are the distractors here.
// Measured with the bank's parameters, a floor of 0.5 gains up to 0.017
// on remarks and sessions but costs the mixed messages 0.032 of
// recall_any@5 (0.639 against 0.671), so it was not taken.

const (
	spreadLow  = 0.6
	spreadHigh = 1.5
)

// adaptiveB is the B used for a field of base B whose log lengths have
// standard deviation sigma.
func adaptiveB(b, sigma float64) float64 {
	t := min(max((sigma-spreadLow)/(spreadHigh-spreadLow), 0), 1)
	return b + (1-b)*t
}

// Spread sums what the standard deviation of a field's log lengths needs:
// over the documents where the field is not empty, their count, and the
// sums of ln(1+length) and of its square.
type Spread struct {
	Filled       int
	SumLog, Sum2 float64
}

func (s *Spread) add(length uint32, sign int) {
	if length == 0 {
		return
	}
	l := math.Log1p(float64(length))
	s.Filled += sign
	s.SumLog += float64(sign) * l
	s.Sum2 += float64(sign) * l * l
}

func (s *Spread) merge(o Spread) {
	s.Filled += o.Filled
	s.SumLog += o.SumLog
	s.Sum2 += o.Sum2
}

// Sigma is the standard deviation of the log lengths; 0 for fewer than
// two documents.
func (s Spread) Sigma() float64 {
	if s.Filled < 2 {
		return 0
	}
	n := float64(s.Filled)
	mean := s.SumLog / n
	return math.Sqrt(max(s.Sum2/n-mean*mean, 0))
}
