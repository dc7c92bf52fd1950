package memories

import (
	"bytes"
	"context"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// scanMatches is substringMatches as it was before the token index: the
// first word looked for through the whole folded text, the others in the
// memories that hold it. It is the reference the index must agree with.
func (ix *index) scanMatches(words []string) []int {
	var cands []int
	first := []byte(words[0])
	for at, i := 0, 0; at < len(ix.text); {
		k := bytes.Index(ix.text[at:], first)
		if k < 0 {
			break
		}
		for pos := at + k; ix.starts[3*(i+1)] <= pos; {
			i++
		}
		cands = append(cands, i)
		at = ix.starts[3*(i+1)]
	}
	for _, w := range words[1:] {
		if len(cands) == 0 {
			break
		}
		wb := []byte(w)
		kept := cands[:0]
		for _, i := range cands {
			if bytes.Contains(ix.text[ix.starts[3*i]:ix.starts[3*i+3]], wb) {
				kept = append(kept, i)
			}
		}
		cands = kept
	}
	return cands
}

// rankReference is rank as it was before the token index, with
// scanMatches.
func (ix *index) rankReference(query string, limit int) (out []scored, total int) {
	words := queryWords(query)
	if len(words) == 0 {
		order := newestFirst(ix.ms)
		if limit > 0 {
			order = order[:min(limit, len(order))]
		}
		out = make([]scored, len(order))
		for k, i := range order {
			out[k] = scored{i: i}
		}
		return out, len(ix.ms)
	}
	sub := ix.scanMatches(words)
	isSub := make([]bool, len(ix.ms))
	for _, i := range sub {
		isSub[i] = true
	}
	top := textsearch.Top[scored]{Limit: limit, Better: ix.better}
	ix.terms.Each(textsearch.QueryTerms(query), nil, func(i int, s float64) {
		hit := isSub[i]
		isSub[i] = false
		top.Push(scored{i: i, score: s, substring: hit})
		total++
	})
	for _, i := range sub {
		if isSub[i] {
			top.Push(scored{i: i, substring: true})
			total++
		}
	}
	return top.Sorted(), total
}

// folded is the folded fields of each memory, joined as the index joins
// them.
func folded(ms []Memory) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = Fold(m.Title) + "\x00" + Fold(strings.Join(m.Tags, "\n")) + "\x00" + Fold(m.Content) + "\x00"
	}
	return out
}

// plainMatches is the plainest statement of a substring match: every word
// in the memory's folded fields (texts, from folded).
func plainMatches(texts []string, words []string) []int {
	var out []int
	for i, text := range texts {
		all := true
		for _, w := range words {
			all = all && strings.Contains(text, w)
		}
		if all {
			out = append(out, i)
		}
	}
	return out
}

// The token index finds the memories a scan of the whole folded text
// finds, and the searches rank, count and cut them as before, on a varied
// corpus and queries of every kind.
func TestSubstringIndexAgreesWithTheScan(t *testing.T) {
	ms := variedCorpus(1200, 1)
	ix := newIndex("v", ms)
	texts := folded(ms)
	queries := corpusQueries(ms, 400, 2)
	nonEmpty := 0
	for _, q := range queries {
		words := queryWords(q)
		if len(words) == 0 {
			continue
		}
		got := ix.substringMatches(words)
		if len(got) > 0 {
			nonEmpty++
		}
		require.Equal(t, plainMatches(texts, words), nilIfEmpty(got), "query %q", q)
		if !strings.Contains(q, "\x00") {
			// The scan could match a word holding a zero byte across two
			// memories; the index, like plainMatches, does not.
			require.Equal(t, nilIfEmpty(ix.scanMatches(words)), nilIfEmpty(got), "query %q", q)
		}
	}
	require.Greater(t, nonEmpty, len(queries)/2, "most queries match something")
	for _, q := range queries {
		if strings.Contains(q, "\x00") {
			continue // as above
		}
		for _, limit := range []int{0, 10} {
			want, wantTotal := ix.rankReference(q, limit)
			got, total := ix.rank(q, limit)
			require.Equal(t, wantTotal, total, "query %q limit %d", q, limit)
			require.Equal(t, want, got, "query %q limit %d", q, limit)
		}
	}
}

func nilIfEmpty(s []int) []int {
	if len(s) == 0 {
		return nil
	}
	return s
}

// Find and Search through a Manager answer as the reference path does:
// the same hits in the same order with the same scores and snippets.
func TestFindAgreesWithTheReference(t *testing.T) {
	ctx := context.Background()
	ms := variedCorpus(1200, 3)
	data := []byte(Header)
	for _, m := range ms {
		entry, err := EncodeEntry(m)
		require.NoError(t, err)
		data = append(data, entry...)
	}
	store := new(MemStore)
	_, err := store.Save(ctx, data, "")
	require.NoError(t, err)
	m, err := New(store, nil)
	require.NoError(t, err)
	ref := newIndex("", Parse(data).all())
	for _, q := range corpusQueries(ms, 100, 4) {
		if strings.Contains(q, "\x00") {
			continue // see TestSubstringIndexAgreesWithTheScan
		}
		res, err := m.Find(ctx, SearchRequest{Query: q, Limit: 20})
		require.NoError(t, err)
		r, total := ref.rankReference(q, 20)
		assert.Equal(t, SearchResult{Hits: ref.hits(r, q), Total: total}, res, "Find(%q)", q)
		all, err := m.Search(ctx, q)
		require.NoError(t, err)
		r, _ = ref.rankReference(q, 0)
		require.Equal(t, ref.memories(r), all, "Search(%q)", q)
	}
}

// A search does not read the text of memories the token index rules out:
// a word written into the folded text of a memory that does not hold it
// (as a scan would see it) is not found there.
func TestSubstringSearchReadsOnlyCandidates(t *testing.T) {
	ms := variedCorpus(2000, 5)
	ix := newIndex("v", ms)
	words := []string{"zebrafish"}
	want := plainMatches(folded(ms), words)
	require.Len(t, want, 3)
	planted := 0
	for i := range ms {
		body := ix.text[ix.starts[3*i+2] : ix.starts[3*i+3]-1]
		if len(body) > 20 && !bytes.Contains(body, []byte("zebrafish")) && planted < 5 {
			copy(body[5:], "zebrafish")
			planted++
		}
	}
	require.Equal(t, 5, planted)
	assert.Equal(t, want, ix.substringMatches(words))
	assert.Equal(t, []int(nil), ix.substringMatches([]string{"nowhere", "zebrafish"}))
}

// corpusQueries returns queries for ms: corpusWords one by one and in
// pairs, pieces of the memories' text (partial words, several words,
// punctuation), words of separators only, words no memory holds, NUL,
// invalid UTF-8, and empty or blank queries.
func corpusQueries(ms []Memory, n int, seed uint64) []string {
	r := rand.New(rand.NewPCG(seed, 11))
	qs := []string{"", "  ", "agent", "AGENT", "zebrafish", "zebrafish.", "agent zebrafish", "-", "…", ". ,", "e-", "-42",
		"://", "a\x00b", "\xff", "\xe3\x80", "nowhere-to-be-found", "qqqqq", "ent", "t", "ss", "データ", "続が", "。", "接続 agent",
		"how should I handle errors from adapters", "what did the build do?", "straße café ﬁle", "ａｇｅｎｔ"}
	for _, w := range corpusWords {
		qs = append(qs, w, w+" "+corpusWords[r.IntN(len(corpusWords))])
	}
	for range n {
		m := ms[r.IntN(len(ms))]
		text := m.Content
		if r.IntN(4) == 0 {
			text = m.Title + " " + strings.Join(m.Tags, " ")
		}
		from := r.IntN(len(text))
		to := min(len(text), from+1+r.IntN(24))
		qs = append(qs, text[from:to])
	}
	return qs
}

// BenchmarkRankOldNew40000 alternates, call by call, the path as it was
// (rankReference: the scan of the whole folded text) and as it is, on
// 40,000 varied memories: what Find does once the index is built (rank
// with the default limit, then the hits) and what Search does (rank every
// match, then copy them). It reports both, their ratio (new/old), and the
// bytes of the token index beside those of the folded text.
func BenchmarkRankOldNew40000(b *testing.B) {
	ix := newIndex("v", variedCorpus(40000, 1))
	queries := []struct{ name, query string }{{"common", "agent"}, {"rare", "zebrafish"}, {"sentence", "what did the agent do about the build cache timeout?"}, {"letter", "e"}, {"pieces", "a n"}}
	for _, q := range queries {
		b.Run("Find/"+q.name, func(b *testing.B) {
			alternate(b, ix, func() int {
				r, _ := ix.rankReference(q.query, DefaultSearchLimit)
				return len(ix.hits(r, q.query))
			}, func() int {
				r, _ := ix.rank(q.query, DefaultSearchLimit)
				return len(ix.hits(r, q.query))
			})
		})
		b.Run("Search/"+q.name, func(b *testing.B) {
			alternate(b, ix, func() int {
				r, _ := ix.rankReference(q.query, 0)
				return len(ix.memories(r))
			}, func() int {
				r, _ := ix.rank(q.query, 0)
				return len(ix.memories(r))
			})
		})
	}
}

// alternate runs old and new in turn, each timed, and reports them.
func alternate(b *testing.B, ix *index, old, cur func() int) {
	var tOld, tCur time.Duration
	for b.Loop() {
		start := time.Now()
		want := old()
		mid := time.Now()
		got := cur()
		tCur += time.Since(mid)
		tOld += mid.Sub(start)
		if got != want || got == 0 {
			b.Fatal(got, want)
		}
	}
	n := float64(b.N)
	b.ReportMetric(float64(tOld.Nanoseconds())/n, "old-ns")
	b.ReportMetric(float64(tCur.Nanoseconds())/n, "new-ns")
	b.ReportMetric(float64(tCur)/float64(tOld), "new/old")
	b.ReportMetric(float64(len(ix.text)), "text-bytes")
	b.ReportMetric(float64(ix.sub.bytes()), "index-bytes")
}
