package screen

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
)

// A Flag says why a text may be an attempt to steer the agent that will
// read it (memory poisoning): its kind, a sentence saying why, and where.
type Flag struct {
	// Kind is one of the Flag* kinds.
	Kind string `json:"kind"`
	// Why says what was found, for the person reviewing the entry.
	Why string `json:"why"`
	// Excerpt quotes the text that raised the flag (at most 80 bytes), for
	// the person; it is left out where the text itself is withheld.
	Excerpt string `json:"excerpt,omitempty"`
	// Line and Column (1-based, column in bytes) locate it.
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Kinds of Flag.
const (
	FlagOverride     = "override-instructions" // ignore / disregard previous instructions, "you are now"
	FlagToolCall     = "tool-call"             // tells the agent to call tools or run commands unasked
	FlagExfiltration = "exfiltration"          // sends data to an address
	FlagHidden       = "hidden-text"           // characters or markup a person does not see
)

// Flagger finds text that addresses the agent. Implementations are safe
// for concurrent use.
type Flagger interface {
	Flags(text string) []Flag
}

// FlaggerFunc adapts a function to a Flagger.
type FlaggerFunc func(text string) []Flag

// Flags calls f.
func (f FlaggerFunc) Flags(text string) []Flag { return f(text) }

type poisonRule struct {
	kind string
	why  string
	re   *regexp.Regexp
}

// The phrases are those of published injection corpora (instructions to
// ignore what came before, role reassignment, unasked tool calls, data sent
// to a URL). Each needs the agent addressed, not merely the topic named: a
// note that says "prompt injection is when text says to ignore previous
// instructions" is about injection, and is flagged too, since an agent
// reading it cannot tell the difference; a person can, and keeps it.
// They are compiled at the first use, not in the package's init: the
// bounded repetitions make them slow to compile (several milliseconds),
// which every program importing the package would pay at start.
var poisonRules = sync.OnceValue(func() []poisonRule {
	return []poisonRule{
		{FlagOverride, "tells the reader to ignore or override its instructions",
			regexp.MustCompile(`(?i)\b(ignore|disregard|forget|override|bypass|skip)\b[^.\n]{0,40}\b(previous|prior|preceding|above|earlier|all|any|your|system|original|other)\b[^.\n]{0,30}\b(instructions?|prompts?|rules|guidelines|directives|guardrails|polic(y|ies))\b`)},
		{FlagOverride, "reassigns the reader's role (\"you are now ...\")",
			regexp.MustCompile(`(?i)\byou are (now|no longer)\b|\bfrom now on,? you (are|will|must)\b|\bact as (an? )?(unrestricted|jailbroken|DAN)\b`)},
		{FlagOverride, "poses as a system or developer message",
			regexp.MustCompile(`(?i)(\bnew (system )?instructions?\s*:|^\s*#*\s*(system|developer)\s*(prompt|message|instructions?)?\s*:|<\|?(system|im_start)\|?>|\[/?INST\])`)},
		{FlagOverride, "tells the reader to keep something from the user",
			regexp.MustCompile(`(?i)\b(do not|don't|never)\s+(tell|inform|mention|reveal|show)\b[^.\n]{0,30}\b(the )?(user|human|person|operator)\b`)},
		{FlagToolCall, "holds tool-call markup an agent may take for its own",
			regexp.MustCompile(`(?i)<\s*/?\s*(tool_call|tool_use|function_calls?|antml:invoke|invoke\s+name)\b`)},
		{FlagToolCall, "tells the reader to call a tool or run a command without asking",
			regexp.MustCompile(`(?i)\b(silently|quietly|secretly|immediately|automatically|without (asking|telling|confirmation|confirming|approval))\b[^.\n]{0,40}\b(call|invoke|run|execute|delete|remove|push|install|download)\b|\b(call|invoke|run|execute|delete|remove|push|install|download)\b[^.\n]{0,60}\b(silently|secretly|without (asking|telling|confirmation|confirming|approval|the user))\b`)},
		{FlagExfiltration, "tells the reader to send data to an address",
			regexp.MustCompile(`(?i)\b(send|post|upload|forward|transmit|exfiltrate|leak|e-?mail|share|report)\b[^\n]{0,60}\b(secrets?|credentials?|tokens?|api[ _-]?keys?|passwords?|env(ironment)?( variables?)?|\.env|ssh keys?|private keys?|conversation|chat( history)?|memor(y|ies)|context|contents? of|source code|session)\b[^\n]{0,60}(https?://|ftp://|\b[\w.+-]+@[\w-]+\.[\w.]+)`)},
		{FlagExfiltration, "loads an image or link whose address carries data to fill in",
			regexp.MustCompile(`(?i)!?\[[^\]\n]*\]\(\s*https?://[^)\s]*[?&][^)\s]*=(\{|\$|%7B|<|\[)`)},
		{FlagExfiltration, "sends a secret to a remote address",
			regexp.MustCompile(`(?i)\b(curl|wget|http)\b[^\n]{0,120}(\s-d|--data[\w-]*|\s-F|--form|--upload-file|[?&]\w+=)\s*["']?[^\s"']*\$\{?[A-Z_]*(KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)\b|\b(curl|wget)\b[^\n]{0,40}(-d|--data|-F|--upload-file)\s*@?\S*(\.env|id_rsa|\.ssh|\.aws/credentials)`)},
		{FlagHidden, "hides text from a person with markup",
			regexp.MustCompile(`(?i)<[^>\n]+style\s*=\s*["'][^"'\n]*(display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0|opacity\s*:\s*0[;"'])`)},
		{FlagHidden, "addresses the reader inside an HTML comment a person does not see",
			regexp.MustCompile(`(?is)<!--(?:[^-]|-[^-]){0,400}?\b(assistant|agent|AI|model|LLM|claude|you must|you should|instructions?)\b(?:[^-]|-[^-]){0,400}?(-->|$)`)},
	}
})

type poisoning struct{}

// Poisoning returns the built-in Flagger: the rules above, and invisible
// characters (zero-width characters, Unicode tag characters, bidirectional
// embeddings, overrides and isolates), which hide or reorder what a person
// reads while an agent reads every code point.
func Poisoning() Flagger { return poisoning{} }

func (poisoning) Flags(text string) []Flag {
	var out []Flag
	seen := map[string]bool{}
	for _, r := range poisonRules() {
		loc := r.re.FindStringIndex(text)
		if loc == nil || seen[r.why] {
			continue
		}
		seen[r.why] = true
		line, col := LineColumn(text, loc[0])
		out = append(out, Flag{Kind: r.kind, Why: r.why, Excerpt: excerpt(text[loc[0]:loc[1]]), Line: line, Column: col})
	}
	if i, r, n := firstInvisible(text); n > 0 {
		line, col := LineColumn(text, i)
		out = append(out, Flag{Kind: FlagHidden, Why: fmt.Sprintf("holds %d invisible or reordering character(s), the first %U (%s)", n, r, InvisibleName(r)), Line: line, Column: col})
	}
	return out
}

// excerpt quotes at most 80 bytes of s, on one line.
func excerpt(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 80 {
		cut := 80
		for cut > 0 && s[cut]&0xC0 == 0x80 {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

// firstInvisible returns the offset and rune of the first invisible
// character of text, and how many there are. A byte order mark at the very
// start is an encoding mark, not hidden text.
func firstInvisible(text string) (at int, first rune, n int) {
	for i, r := range text {
		if !Invisible(r) || (i == 0 && r == '\uFEFF') {
			continue
		}
		if n == 0 {
			at, first = i, r
		}
		n++
	}
	return at, first, n
}

// Invisible reports whether r is a character a person does not see but an
// agent reads: zero-width characters, Unicode tag characters (U+E0000 to
// U+E007F, which can spell a whole hidden sentence), and the bidirectional
// embeddings, overrides and isolates that reorder what is shown.
func Invisible(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, // zero-width space, (non-)joiner, LRM, RLM
		r >= 0x202A && r <= 0x202E, // embeddings and overrides
		r >= 0x2060 && r <= 0x2064, // word joiner, invisible operators
		r >= 0x2066 && r <= 0x2069, // isolates
		r == 0xFEFF, r == 0x180E, r == 0x061C,
		r >= 0xE0000 && r <= 0xE007F: // tags
		return true
	}
	return false
}

// InvisibleName names an invisible character in a few words.
func InvisibleName(r rune) string {
	switch {
	case r == 0x200B:
		return "zero-width space"
	case r == 0x200C || r == 0x200D:
		return "zero-width joiner"
	case r == 0x200E || r == 0x200F || r == 0x061C:
		return "direction mark"
	case r >= 0x202A && r <= 0x202C:
		return "bidi embedding"
	case r == 0x202D || r == 0x202E:
		return "bidi override"
	case r >= 0x2066 && r <= 0x2069:
		return "bidi isolate"
	case r >= 0xE0000 && r <= 0xE007F:
		if r >= 0xE0020 && r <= 0xE007E {
			return fmt.Sprintf("tag character %q", rune(r-0xE0000))
		}
		return "tag character"
	case r == 0xFEFF:
		return "zero-width no-break space"
	}
	return "invisible character"
}
