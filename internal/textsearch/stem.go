package textsearch

// Stem reduces an English word (lower-case ASCII letters) to a stem
// shared by its inflections: plurals and the third person ("adapters",
// "queries", "matches" → adapter, query, match), the past and the
// progressive ("failed", "failing" → fail; "stopped", "running" → stop,
// run; "tried" → try; "used", "using", "uses" → use) and a final silent e
// ("cache", "cached", "caching" → cach). It is a light stemmer: it leaves
// derivations ("adapter" and "adapt", "quickly" and "quick") apart, which
// a heavier one such as Porter's conflates at the cost of mixing unrelated
// words. Stems are terms, not words: "cach" is no word. Stem never
// modifies w; it returns w, a prefix of w, or a new slice.
func Stem(w []byte) []byte {
	if len(w) < 3 {
		return w
	}
	if s, ok := stemExceptions[string(w)]; ok {
		return []byte(s)
	}
	s := stemRules(w)
	if len(s) < len(w) && englishStop[string(s)] {
		// "notes" and "noted" must not meet the function word "not".
		return withSuffix(s, 'e')
	}
	return s
}

func stemRules(w []byte) []byte {
	n := len(w)
	ends := func(suffix string) bool { return n >= len(suffix) && string(w[n-len(suffix):]) == suffix }
	// Plurals and the third person.
	if n >= 4 && w[n-1] == 's' {
		switch {
		case ends("sses"), ends("xes"), ends("ches"), ends("shes"), ends("zzes"):
			w = w[:n-2]
		case ends("ies") && n > 4:
			return withSuffix(w[:n-3], 'y')
		case ends("ss"), ends("us"), ends("is"):
		default:
			w = w[:n-1]
		}
		n = len(w)
	}
	// The past and the progressive.
	switch {
	case ends("eed"):
	case ends("ied") && n > 4:
		return withSuffix(w[:n-3], 'y')
	case ends("ed"):
		w = undo(w, n-2)
	case ends("ing"):
		w = undo(w, n-3)
	}
	n = len(w)
	// A final silent e.
	if n >= 4 && w[n-1] == 'e' && w[n-2] != 'e' {
		w = w[:n-1]
	}
	return w
}

// undo removes the ending of w at cut when what remains has a vowel and
// two letters or more: a doubled final consonant is undone ("stopp" →
// stop) unless that leaves two letters ("add"), and a stem of two letters
// gets its e back ("us" → use).
func undo(w []byte, cut int) []byte {
	stem := w[:cut]
	if len(stem) < 2 || !hasVowel(stem) {
		return w
	}
	n := len(stem)
	if n == 2 {
		return withSuffix(stem, 'e')
	}
	if n >= 4 && stem[n-1] == stem[n-2] && !isVowel(stem[n-1]) {
		switch stem[n-1] {
		case 'l', 's', 'z':
		default:
			return stem[:n-1]
		}
	}
	return stem
}

func withSuffix(w []byte, c byte) []byte {
	out := make([]byte, len(w)+1)
	copy(out, w)
	out[len(w)] = c
	return out
}

func isVowel(c byte) bool {
	return c == 'a' || c == 'e' || c == 'i' || c == 'o' || c == 'u' || c == 'y'
}

func hasVowel(w []byte) bool {
	for _, c := range w {
		if isVowel(c) {
			return true
		}
	}
	return false
}

// stemExceptions are irregular forms, with the stem of the regular form
// they belong to.
var stemExceptions = func() map[string]string {
	m := map[string]string{}
	for irregular, regular := range irregularForms {
		m[irregular] = regular // words the rules must leave alone
		if irregular != regular {
			m[irregular] = string(stemRules([]byte(regular)))
		}
	}
	return m
}()

// irregularForms are irregular forms the rules would mangle or miss.
var irregularForms = map[string]string{
	"goes": "go", "going": "go", "gone": "go", "went": "go",
	"does": "do", "doing": "do", "done": "do", "did": "do",
	"has": "have", "had": "have", "having": "have",
	"was": "be", "were": "be", "been": "be", "being": "be", "is": "be", "are": "be",
	"news": "news", "series": "series", "species": "species",
	"ran": "run", "began": "begin", "begun": "begin", "wrote": "write", "written": "write",
	"told": "tell", "said": "say", "says": "say", "saw": "see", "seen": "see",
	"bought": "buy", "brought": "bring", "thought": "think", "taught": "teach",
	"found": "find", "left": "leave", "kept": "keep", "felt": "feel", "met": "meet",
	"children": "child", "men": "man", "women": "woman", "people": "person",
	"took": "take", "taken": "take", "gave": "give", "given": "give", "got": "get", "gotten": "get",
	"made": "make", "came": "come", "knew": "know", "known": "know",
}
