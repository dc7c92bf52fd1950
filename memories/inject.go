package memories

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Render returns the text InjectionContent prepends to a prompt for ms:
// the format's shape, "# Memories", a blank line, each memory as "## title",
// "- Tags:", "- Date:", "- Content:" (continuation lines indented) and a
// blank line, then "---". Memories come newest first (by date, then later in
// ms first).
//
// budget > 0 caps the result at budget characters (runes, so a CJK
// character counts one, like an ASCII letter): only whole memories are
// included, the newest that fit, followed by a line saying how many more
// were left out. If not even that line fits, Render returns "". budget <= 0
// means no cap. No memories render as "". Render is pure.
func Render(ms []Memory, budget int) string {
	return render(ms, newestFirst(ms), true, budget, 0, nil)
}

// render renders the memories of ms in the given order, the first ones
// that fit both caps (runes and, with count, tokens; 0: no cap). older says
// the order is newest first, so those left out are the older ones.
func render(ms []Memory, order []int, older bool, runes, tokenCap int, count func(string) int) string {
	s, _ := renderTaken(ms, order, older, runes, tokenCap, count)
	return s
}

// renderTaken is render that also says how many of order it rendered.
func renderTaken(ms []Memory, order []int, older bool, runes, tokenCap int, count func(string) int) (string, int) {
	if len(ms) == 0 {
		return "", 0
	}
	const head, foot = "# Memories\n\n", "---\n"
	parts := make([]string, len(order))
	cost := make([]int, len(order)+1) // cost[k]: runes of the first k parts
	toks := make([]int, len(order)+1) // toks[k]: tokens of the first k parts
	for k, i := range order {
		parts[k] = renderOne(&ms[i])
		cost[k+1] = cost[k] + utf8.RuneCountInString(parts[k])
		if count != nil && tokenCap > 0 {
			toks[k+1] = toks[k] + count(parts[k])
		}
	}
	fixed := utf8.RuneCountInString(head) + utf8.RuneCountInString(foot)
	fixedTok := 0
	if count != nil && tokenCap > 0 {
		fixedTok = count(head) + count(foot)
	}
	fits := func(k int, line string) bool {
		if runes > 0 && fixed+cost[k]+utf8.RuneCountInString(line) > runes {
			return false
		}
		if count != nil && tokenCap > 0 && fixedTok+toks[k]+count(line) > tokenCap {
			return false
		}
		return true
	}
	take, omitted := len(parts), ""
	if !fits(len(parts), "") {
		take = -1
		for k := len(parts) - 1; k >= 0; k-- {
			line := omittedLine(len(parts)-k, older)
			if fits(k, line) {
				take, omitted = k, line
				break
			}
		}
		if take < 0 {
			return "", 0
		}
	}
	var b strings.Builder
	b.WriteString(head)
	for _, p := range parts[:take] {
		b.WriteString(p)
	}
	b.WriteString(omitted)
	b.WriteString(foot)
	return b.String(), take
}

func omittedLine(n int, older bool) string {
	noun := "memories"
	if n == 1 {
		noun = "memory"
	}
	if !older {
		return fmt.Sprintf("(%d more %s not shown)\n\n", n, noun)
	}
	return fmt.Sprintf("(%d older %s not shown)\n\n", n, noun)
}

func renderOne(m *Memory) string {
	var b strings.Builder
	b.WriteString("## " + m.Title + "\n")
	b.WriteString(strings.TrimRight("- Tags: "+strings.Join(m.Tags, ", "), " ") + "\n")
	b.WriteString(strings.TrimRight("- Date: "+m.Date, " ") + "\n")
	first, rest, _ := strings.Cut(m.Content, "\n")
	b.WriteString("- Content: " + first + "\n")
	if rest != "" {
		for l := range strings.SplitSeq(rest, "\n") {
			if l != "" {
				b.WriteString("  " + l)
			}
			b.WriteString("\n")
		}
	}
	b.WriteString("\n")
	return b.String()
}

// Inject returns prompt with m's injection content in front of it, as the
// reference agent loop does (injection + prompt). With inject "manual" or "none", or
// memories disabled, it returns prompt unchanged.
func Inject(ctx context.Context, m MemoryManager, prompt string) (string, error) {
	if pm, ok := m.(interface {
		InjectionFor(ctx context.Context, prompt string) (string, error)
	}); ok {
		c, err := pm.InjectionFor(ctx, prompt)
		if err != nil {
			return "", err
		}
		return c + prompt, nil
	}
	c, err := m.InjectionContent(ctx)
	if err != nil {
		return "", err
	}
	return c + prompt, nil
}
