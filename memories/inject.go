package memories

import (
	"context"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Render returns the text InjectionContent prepends to a prompt for ms:
// the seed's shape, "# Memories", a blank line, each memory as "## title",
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
	if len(ms) == 0 {
		return ""
	}
	const head, foot = "# Memories\n\n", "---\n"
	order := newestFirst(ms)
	parts := make([]string, len(order))
	cost := make([]int, len(order)+1) // cost[k]: runes of the first k parts
	for k, i := range order {
		parts[k] = renderOne(&ms[i])
		cost[k+1] = cost[k] + utf8.RuneCountInString(parts[k])
	}
	fixed := utf8.RuneCountInString(head) + utf8.RuneCountInString(foot)
	take, omitted := len(parts), ""
	if budget > 0 && fixed+cost[len(parts)] > budget {
		take = -1
		for k := len(parts) - 1; k >= 0; k-- {
			line := omittedLine(len(parts) - k)
			if fixed+cost[k]+utf8.RuneCountInString(line) <= budget {
				take, omitted = k, line
				break
			}
		}
		if take < 0 {
			return ""
		}
	}
	var b strings.Builder
	b.WriteString(head)
	for _, p := range parts[:take] {
		b.WriteString(p)
	}
	b.WriteString(omitted)
	b.WriteString(foot)
	return b.String()
}

func omittedLine(n int) string {
	noun := "memories"
	if n == 1 {
		noun = "memory"
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
// seed's loop does (injection + prompt). With inject "manual" or "none", or
// memories disabled, it returns prompt unchanged.
func Inject(ctx context.Context, m MemoryManager, prompt string) (string, error) {
	c, err := m.InjectionContent(ctx)
	if err != nil {
		return "", err
	}
	return c + prompt, nil
}
