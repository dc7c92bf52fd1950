package textsearch

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// encodeCorpus is an index of chat-length documents, some of them with a
// role, and its keys in the order they were added.
func encodeCorpus(t testing.TB, n int) (*Index[string], []string, []string) {
	t.Helper()
	docs := chatText(n, 3000)
	ix, err := NewIndex[string](DocumentParams, Analyzer{})
	require.NoError(t, err)
	keys := make([]string, n)
	for i, d := range docs {
		keys[i] = fmt.Sprintf("notes/%03d.md", i)
		role := []string{"", "user", "assistant"}[i%3]
		require.NoError(t, ix.AddAs(keys[i], role, "Note "+fmt.Sprint(i)+"\n"+keys[i], "tag"+fmt.Sprint(i%4), d))
	}
	return ix, keys, docs
}

// encodeQueries are frequent and rare words, Chinese and Japanese
// bigrams, and a word no document holds.
var encodeQueries = [][]string{
	{"the"}, {"activecontext", "retrypolici"}, {"fail", "adapt"}, {"認証", "方式"}, {"缓存"}, {"tag1"}, {"note", "7"},
	{"kalo", "mine", "tor"}, {"nosuchword"}, {"zebrafinch"},
}

// scores are every document's score for each of the queries.
func scores[K comparable](ix *Index[K]) []map[K]float64 {
	var out []map[K]float64
	for _, q := range encodeQueries {
		m := map[K]float64{}
		ix.Each(q, nil, func(k K, s float64) { m[k] = s })
		out = append(out, m)
	}
	return out
}

// An index read back scores every query exactly as the index written,
// and goes on taking documents and removals as it would have.
func TestDecodeIndexScoresAsWritten(t *testing.T) {
	ix, keys, docs := encodeCorpus(t, 60)
	data, written := ix.AppendBinary(nil, nil)
	require.Equal(t, keys, written, "documents are written in the order they were added")
	back, err := DecodeIndex[string](data, DocumentParams, Analyzer{}, keys, nil)
	require.NoError(t, err)
	assert.Equal(t, ix.Len(), back.Len())
	assert.Equal(t, scores(ix), scores(back))
	for _, q := range encodeQueries {
		assert.Equal(t, ix.Stats(q), back.Stats(q), "query %q", q)
	}

	// Later changes land alike: a new document sharing the others' words
	// (its postings are appended to terms read back), a replaced one, a
	// removed one.
	for _, x := range []*Index[string]{ix, back} {
		require.NoError(t, x.Add("new.md", "New", "", docs[3]+" activeContext zebrafinch"))
		require.NoError(t, x.Add(keys[5], "Replaced", "", docs[7]))
		x.Remove(keys[9])
	}
	assert.Equal(t, scores(ix), scores(back))

	// Written again, its stored terms and those added since are merged in
	// order: read back, it still scores alike.
	data, written = back.AppendBinary(nil, nil)
	again, err := DecodeIndex[string](data, DocumentParams, Analyzer{}, written, nil)
	require.NoError(t, err)
	want, got := scores(ix), scores(again)
	for i := range want {
		assert.Len(t, got[i], len(want[i]))
		for k, s := range want[i] {
			assert.InEpsilon(t, s, got[i][k], 1e-9, "query %q, %s", encodeQueries[i], k) // removals drift the spread sums
		}
	}
	assert.Contains(t, got[len(got)-1], "new.md", "a term only the added document holds")
}

// Documents left out when reading back are as if never added: the index
// scores as one built from the others alone.
func TestDecodeIndexKeepsSomeDocuments(t *testing.T) {
	ix, keys, docs := encodeCorpus(t, 30)
	data, written := ix.AppendBinary(nil, nil)
	require.Equal(t, keys, written, "documents are written in the order they were added")
	keep := make([]bool, len(keys))
	only, err := NewIndex[string](DocumentParams, Analyzer{})
	require.NoError(t, err)
	for i := range keys {
		keep[i] = i%4 != 1
		if keep[i] {
			role := []string{"", "user", "assistant"}[i%3]
			require.NoError(t, only.AddAs(keys[i], role, "Note "+fmt.Sprint(i)+"\n"+keys[i], "tag"+fmt.Sprint(i%4), docs[i]))
		}
	}
	back, err := DecodeIndex[string](data, DocumentParams, Analyzer{}, keys, keep)
	require.NoError(t, err)
	assert.Equal(t, only.Len(), back.Len())
	assert.Equal(t, scores(only), scores(back))
	for _, q := range encodeQueries {
		assert.Equal(t, only.Stats(q), back.Stats(q), "query %q", q)
	}
}

// Removed documents, and those keep refuses, are left out.
func TestAppendBinarySubset(t *testing.T) {
	ix, keys, _ := encodeCorpus(t, 12)
	ix.Remove(keys[0])
	data, written := ix.AppendBinary(nil, func(k string) bool { return k != keys[5] })
	want := append(slices.Clone(keys[1:5]), keys[6:]...)
	require.Equal(t, want, written)
	back, err := DecodeIndex[string](data, DocumentParams, Analyzer{}, written, nil)
	require.NoError(t, err)
	ix.Remove(keys[5])
	assert.Equal(t, ix.Len(), back.Len())
	wantScores, got := scores(ix), scores(back)
	for i := range wantScores {
		assert.Len(t, got[i], len(wantScores[i]))
		for k, s := range wantScores[i] {
			assert.InEpsilon(t, s, got[i][k], 1e-9, "query %q, %s", encodeQueries[i], k) // removals drift the spread sums
		}
	}
}

// Another analysis or other weights, other keys, and damaged bytes are
// refused with ErrEncoding, never a panic.
func TestDecodeIndexRefuses(t *testing.T) {
	ix, keys, _ := encodeCorpus(t, 8)
	data, written := ix.AppendBinary(nil, nil)
	require.Equal(t, keys, written, "documents are written in the order they were added")

	other := DocumentParams
	other.Fields = append([]Field(nil), other.Fields...)
	other.Fields[1].Weight = 3
	roles := DocumentParams
	roles.Roles = maps.Clone(roles.Roles)
	roles.Roles["user"] = 3
	for name, c := range map[string]struct {
		p  Params
		an Analyzer
		k  []string
	}{
		"other weights":  {other, Analyzer{}, keys},
		"other roles":    {roles, Analyzer{}, keys},
		"other stemming": {DocumentParams, Analyzer{Stemmer: func(w []byte) []byte { return w }}, keys},
		"fewer keys":     {DocumentParams, Analyzer{}, keys[1:]},
	} {
		_, err := DecodeIndex[string](data, c.p, c.an, c.k, nil)
		assert.ErrorIs(t, err, ErrEncoding, name)
	}
	for n := 0; n < len(data); n += 1 + n/64 {
		_, err := DecodeIndex[string](data[:n], DocumentParams, Analyzer{}, keys, nil)
		require.ErrorIs(t, err, ErrEncoding, "cut at %d of %d bytes", n, len(data))
	}
	_, err := DecodeIndex[string](append(data, 0), DocumentParams, Analyzer{}, keys, nil)
	assert.ErrorIs(t, err, ErrEncoding, "a byte too many")
	for i := len(encodingMagic) + 8; i < len(data); i += 7 {
		bad := append([]byte(nil), data...)
		bad[i] ^= 0x5a
		if _, err := DecodeIndex[string](bad, DocumentParams, Analyzer{}, keys, nil); err != nil {
			assert.True(t, errors.Is(err, ErrEncoding), "byte %d: %v", i, err)
		}
	}
}

// The fingerprint follows the analysis, not only the parameters.
func TestFingerprint(t *testing.T) {
	base := Fingerprint(DocumentParams, Analyzer{})
	assert.Equal(t, base, Fingerprint(DocumentParams, Analyzer{}))
	assert.NotEqual(t, base, Fingerprint(DocumentParams, Analyzer{Stemmer: func(w []byte) []byte { return w }}))
	k1 := DocumentParams
	k1.K1 = 1.5
	assert.NotEqual(t, base, Fingerprint(k1, Analyzer{}))
}

// FuzzDecodeIndex feeds DecodeIndex bytes after a right beginning (the
// magic and the fingerprint), so that mutations reach the documents, terms
// and postings.
func FuzzDecodeIndex(f *testing.F) {
	ix, keys, _ := encodeCorpus(f, 3)
	data, _ := ix.AppendBinary(nil, nil)
	head := len(encodingMagic) + 8
	f.Add(data[head:])
	f.Add(data[head : head+len(data)/2])
	f.Add([]byte(strings.Repeat("\xff", 40)))
	f.Fuzz(func(t *testing.T, body []byte) {
		in := append(append([]byte(nil), data[:head]...), body...)
		back, err := DecodeIndex[string](in, DocumentParams, Analyzer{}, keys, nil)
		if err != nil {
			require.ErrorIs(t, err, ErrEncoding)
			return
		}
		back.Each([]string{"the", "note", "kalo"}, nil, func(string, float64) {})
		require.NoError(t, back.Add("x", "a b c the note"))
		_, written := back.AppendBinary(nil, nil)
		require.Len(t, written, back.Len())
	})
}

// Searches may run concurrently on an index read back, whose postings
// are decoded by the first search that needs them.
func TestDecodedIndexConcurrentReads(t *testing.T) {
	ix, keys, _ := encodeCorpus(t, 20)
	data, written := ix.AppendBinary(nil, nil)
	require.Equal(t, keys, written, "documents are written in the order they were added")
	back, err := DecodeIndex[string](data, DocumentParams, Analyzer{}, keys, nil)
	require.NoError(t, err)
	want := scores(ix)
	var wg sync.WaitGroup
	got := make([][]map[string]float64, 4)
	for i := range got {
		wg.Go(func() { got[i] = scores(back) })
	}
	wg.Wait()
	for i := range got {
		assert.Equal(t, want, got[i])
	}
}
