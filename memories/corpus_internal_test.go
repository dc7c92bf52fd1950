package memories

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// corpusWords are the words of variedCorpus beside its generated ones:
// punctuation inside words, letter case, compatibility and decomposed
// forms, ligatures, CJK without spaces, a word every memory holds
// ("agent") and one only three hold ("zebrafish", placed apart).
var corpusWords = []string{
	"the", "a", "of", "build", "builds", "rebuild", "building", "cache", "adapter", "adapters", "error", "errors",
	"timeout", "try-catch", "C++", "e-42", "E0042", "x.y", "foo_bar", "a/b/c", "https://example.com/x?q=1",
	"12:30", "v1.2.3", "Straße", "STRASSE", "café", "cafe\u0301", "ﬁle", "ＡＢＣ", "ｴﾗｰ", "①", "don't", "--flag",
	"データベース接続", "接続プールの設定を確認すること。", "数据库是什么", "エラー", "「引用」", "…", "—", "(note)", "[x]",
	"#tag", "@user", "$HOME", "100%", "key=value", "α-β", "ΣΊΣΥΦΟΣ", "İstanbul", "ǅ",
}

// variedCorpus returns n memories, the same for the same n and seed: words
// from a Zipf-like draw over a few thousand generated words and
// corpusWords, one memory in ten mostly Japanese or Chinese, tags, titles
// of their own or made from the content, and repeated dates.
func variedCorpus(n int, seed uint64) []Memory {
	r := rand.New(rand.NewPCG(seed, 7))
	syll := []string{"ka", "to", "ri", "men", "do", "la", "qua", "sen", "vi", "rox", "pel", "un", "es", "ti", "mo", "zar"}
	gen := make([]string, 3000)
	for i := range gen {
		var b strings.Builder
		for range 1 + r.IntN(3) {
			b.WriteString(syll[r.IntN(len(syll))])
		}
		gen[i] = b.String()
	}
	zipf := rand.NewZipf(r, 1.1, 2, uint64(len(gen)+len(corpusWords)-1))
	word := func() string {
		k := int(zipf.Uint64())
		if k < len(corpusWords) {
			return corpusWords[k]
		}
		return gen[k-len(corpusWords)]
	}
	tags := []string{"pattern", "decision", "error-handling", "db", "ui", "Build System", "テスト", "x"}
	day := time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)
	ms := make([]Memory, n)
	for i := range ms {
		var words []string
		for range 6 + r.IntN(50) {
			words = append(words, word())
		}
		words[r.IntN(len(words))] = "agent"
		if i%10 == 3 {
			words = append(words[:2], "データベース接続がタイムアウトしたら"+gen[r.IntN(len(gen))]+"を確認。", "数据库连接超时")
		}
		if i == n/7 || i == n/2 || i == n-5 {
			words = append(words, "zebrafish.")
		}
		if r.IntN(3) == 0 {
			words[r.IntN(len(words))] += "."
		}
		content := strings.Join(words, " ")
		if r.IntN(8) == 0 {
			content += "\n\n  " + word() + " " + word()
		}
		m := Memory{ID: fmt.Sprintf("mem-%d-%08x", 1700000000+i, i), Content: content, Title: MakeTitle(content),
			Date: day.AddDate(0, 0, r.IntN(700)).Format(time.DateOnly)}
		if r.IntN(5) == 0 {
			m.Title = strings.ToUpper(word()) + " " + word()
		}
		for range r.IntN(4) {
			m.Tags = append(m.Tags, tags[r.IntN(len(tags))])
		}
		ms[i] = m
	}
	return ms
}

// VariedFile is variedCorpus as a memories file, for the benchmarks of
// package memories_test.
func VariedFile(n int, seed uint64) []byte {
	data := []byte(Header)
	for _, m := range variedCorpus(n, seed) {
		entry, err := EncodeEntry(m)
		if err != nil {
			panic(err) // generated memories are valid
		}
		data = append(data, entry...)
	}
	return data
}
