package textsearch

import "unicode/utf8"

// englishStop are English function words: question words, pronouns,
// articles, auxiliaries, prepositions and conjunctions, in folded form
// (the ends of contractions, "s" of "it's" and "t" of "don't", among
// them). They say how a question is asked, not what it is about.
var englishStop = set(
	"a", "about", "above", "after", "again", "against", "all", "also", "am", "an", "and", "any", "are", "as", "at",
	"be", "because", "been", "before", "being", "below", "between", "both", "but", "by",
	"can", "could", "d", "did", "do", "does", "doing", "down", "during",
	"each", "either", "else", "ever", "every", "few", "for", "from", "further",
	"had", "has", "have", "having", "he", "her", "here", "hers", "herself", "him", "himself", "his", "how",
	"i", "if", "in", "into", "is", "it", "its", "itself", "just", "ll", "m", "me", "might", "more", "most", "must", "my", "myself",
	"no", "nor", "not", "now", "of", "off", "on", "once", "only", "or", "other", "ought", "our", "ours", "ourselves", "out", "over", "own",
	"please", "re", "s", "same", "shall", "she", "should", "so", "some", "such",
	"t", "than", "that", "the", "their", "theirs", "them", "themselves", "then", "there", "these", "they", "this", "those", "through", "to", "too",
	"under", "until", "up", "us", "ve", "very", "was", "we", "were", "what", "whatever", "when", "whenever", "where", "which", "while", "who", "whom", "whose", "why", "will", "with", "would",
	"yet", "you", "your", "yours", "yourself", "yourselves",
)

// cjkStop are the terms of Japanese and Chinese function words as the
// analyzer cuts them (bigrams, or a lone character): Japanese particles,
// auxiliaries and question words, Chinese particles, pronouns and question
// words.
var cjkStop = set(
	// Japanese.
	"は", "が", "を", "に", "で", "と", "の", "も", "へ", "や", "か", "な", "ね", "よ", "て", "た", "だ",
	"です", "ます", "ませ", "せん", "でし", "した", "して", "しま", "まし", "ない", "ある", "いる", "いて", "てい",
	"こと", "もの", "ため", "よう", "どう", "どこ", "いつ", "なに", "何で", "何を", "何が", "だれ", "誰が",
	"この", "その", "あの", "どの", "これ", "それ", "あれ", "どれ", "から", "まで", "より", "など", "ので", "のに",
	"けど", "には", "では", "とは", "のは", "ても", "でも", "くだ", "ださ", "さい", "たら", "れる", "られ",
	"って", "った", "すか",
	// Chinese.
	"的", "了", "吗", "呢", "吧", "是", "在", "和", "与", "及", "或", "也", "都", "就", "而", "把", "被", "从", "对", "我", "你", "他", "她", "它",
	"什么", "怎么", "如何", "为什", "哪些", "哪个", "这个", "那个", "我们", "你们", "他们", "是否", "时候", "一个", "没有", "可以", "应该",
)

// cjkStopChars are function characters that make a bigram holding them a
// stop term: the bigrams a particle forms with its neighbours ("処理は",
// "池是") say nothing a query needs. Characters that also begin content
// words (Chinese 了 of 了解, Japanese な of なに) are not among them.
var cjkStopChars = set("は", "が", "を", "に", "で", "と", "の", "も", "へ", "や", "か", "ね", "よ", "的", "是", "吗", "呢", "吧", "么")

// isCJKStop reports whether a CJK term (a bigram or a lone character) is
// a function word or holds a function character.
func isCJKStop(t []byte) bool {
	for _, r := range string(t) {
		if cjkStopCharBits.has(r) {
			return true
		}
	}
	// Every stop term begins with a character of cjkStopFirst: most terms
	// are ruled out without a lookup.
	r, _ := utf8.DecodeRune(t)
	return cjkStopFirst.has(r) && cjkStop[string(t)]
}

// runeBits is a set of characters of the Basic Multilingual Plane.
type runeBits [0x10000 / 64]uint64

func (b *runeBits) has(r rune) bool { return r < 0x10000 && b[r>>6]&(1<<(r&63)) != 0 }

func (b *runeBits) add(r rune) {
	if r >= 0x10000 {
		panic("textsearch: a CJK stop character outside the Basic Multilingual Plane")
	}
	b[r>>6] |= 1 << (r & 63)
}

var cjkStopFirst, cjkStopCharBits = func() (first, chars *runeBits) {
	first, chars = new(runeBits), new(runeBits)
	for t := range cjkStop {
		r, _ := utf8.DecodeRuneInString(t)
		first.add(r)
	}
	for c := range cjkStopChars {
		r, _ := utf8.DecodeRuneInString(c)
		chars.add(r)
	}
	return first, chars
}()

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
