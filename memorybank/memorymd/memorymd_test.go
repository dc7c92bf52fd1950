package memorymd_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/memorymd"
)

// memoryMD is a realistic MEMORY.md with Chinese and Japanese text, a
// trailing note after the user block and no final newline.
const memoryMD = `# 项目记忆 / プロジェクトメモリ

> 本文件由 AI 与用户共同维护。ユーザーブロックは AI が変更しません。

<!-- MACHINE_BLOCK_START -->
## Current Focus
支付超时问题的排查（决済タイムアウト）

## Recent Changes
- 2024-01-20: 增加重试逻辑
- 2024-01-21: リトライ回数を 3 回に変更

## Routing
| 主题 | 文件 |
|------|------|
| 支付 | details/requirements/REQ-003-payment.md |
<!-- MACHINE_BLOCK_END -->

<!-- USER_BLOCK_START -->
## 我的笔记
- 不要在周五发布！
- 金曜日のリリースは禁止
<!-- USER_BLOCK_END -->

最后更新：手动维护 — 最終更新は手動`

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"LF", memoryMD},
		{"CRLF", strings.ReplaceAll(memoryMD, "\n", "\r\n")},
		{"final newline", memoryMD + "\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			md, err := memorymd.Parse(tc.text)
			require.NoError(t, err)
			assert.Equal(t, tc.text, md.String())
			eol := "\n"
			if strings.Contains(tc.text, "\r\n") {
				eol = "\r\n"
			}

			var names []string
			for _, s := range md.Sections() {
				names = append(names, s.Name)
			}
			assert.Equal(t, []string{"Current Focus", "Recent Changes", "Routing"}, names)
			body, ok := md.Section("current focus")
			require.True(t, ok)
			assert.Equal(t, "支付超时问题的排查（决済タイムアウト）", body)
			user, ok := md.UserBlock()
			require.True(t, ok)
			assert.Contains(t, user, "金曜日のリリースは禁止")

			next, err := md.WithSection("Current Focus", "退款功能（返金機能）\n- 下一步：写测试")
			require.NoError(t, err)
			before, after := md.Outside()
			nb, na := next.Outside()
			assert.Equal(t, before, nb, "text before the machine block")
			assert.Equal(t, after, na, "text after the machine block")
			body, _ = next.Section("Current Focus")
			assert.Equal(t, "退款功能（返金機能）"+eol+"- 下一步：写测试", body)
			rc, _ := next.Section("Recent Changes")
			assert.Equal(t, "- 2024-01-20: 增加重试逻辑"+eol+"- 2024-01-21: リトライ回数を 3 回に変更", rc)
			// Only the section body changed: the rest of the machine block is as it was.
			want := strings.Replace(tc.text, "支付超时问题的排查（决済タイムアウト）"+eol,
				"退款功能（返金機能）"+eol+"- 下一步：写测试"+eol, 1)
			assert.Equal(t, want, next.String())

			added, err := next.WithSection("Open Questions", "- 退款是否支持部分退款？")
			require.NoError(t, err)
			nb, na = added.Outside()
			assert.Equal(t, before, nb)
			assert.Equal(t, after, na)
			assert.Contains(t, added.String(),
				"details/requirements/REQ-003-payment.md |"+eol+eol+"## Open Questions"+eol+"- 退款是否支持部分退款？"+eol+memorymd.MachineBlockEnd)
			q, ok := added.Section("Open Questions")
			require.True(t, ok)
			assert.Equal(t, "- 退款是否支持部分退款？", q)
		})
	}
}

func TestSectionLayout(t *testing.T) {
	doc := "<!-- MACHINE_BLOCK_START -->\n## A\n\nold a\n\n## B\nold b\n<!-- MACHINE_BLOCK_END -->\n"
	md, err := memorymd.Parse(doc)
	require.NoError(t, err)

	for _, tc := range []struct{ name, section, body, want string }{
		{"blank lines around the body are kept", "A", "new a", "<!-- MACHINE_BLOCK_START -->\n## A\n\nnew a\n\n## B\nold b\n<!-- MACHINE_BLOCK_END -->\n"},
		{"a repeated heading in the body is dropped", "B", "## B\n\nnew b\n\n", "<!-- MACHINE_BLOCK_START -->\n## A\n\nold a\n\n## B\nnew b\n<!-- MACHINE_BLOCK_END -->\n"},
		{"an empty body keeps the heading", "A", "", "<!-- MACHINE_BLOCK_START -->\n## A\n\n## B\nold b\n<!-- MACHINE_BLOCK_END -->\n"},
		{"CRLF in the body becomes the document's LF", "B", "x\r\ny", "<!-- MACHINE_BLOCK_START -->\n## A\n\nold a\n\n## B\nx\ny\n<!-- MACHINE_BLOCK_END -->\n"},
		{"### sub-headings are body", "B", "### detail\nz", "<!-- MACHINE_BLOCK_START -->\n## A\n\nold a\n\n## B\n### detail\nz\n<!-- MACHINE_BLOCK_END -->\n"},
		{"a new section after a trailing line gets a blank line", "C", "c", "<!-- MACHINE_BLOCK_START -->\n## A\n\nold a\n\n## B\nold b\n\n## C\nc\n<!-- MACHINE_BLOCK_END -->\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			next, err := md.WithSection(tc.section, tc.body)
			require.NoError(t, err)
			assert.Equal(t, tc.want, next.String())
		})
	}

	empty, err := memorymd.Parse("x\n<!-- MACHINE_BLOCK_START -->\n<!-- MACHINE_BLOCK_END -->")
	require.NoError(t, err)
	next, err := empty.WithSection("Current Focus", "退款")
	require.NoError(t, err)
	assert.Equal(t, "x\n<!-- MACHINE_BLOCK_START -->\n## Current Focus\n退款\n<!-- MACHINE_BLOCK_END -->", next.String())
}

func TestMarkers(t *testing.T) {
	// Markers are whole lines; spacing inside the comment is free.
	md, err := memorymd.Parse("  <!--MACHINE_BLOCK_START-->  \n## A\nsee `<!-- MACHINE_BLOCK_END -->` inline\n<!--   MACHINE_BLOCK_END -->\n")
	require.NoError(t, err)
	inner, ok := md.MachineBlock()
	require.True(t, ok)
	assert.Equal(t, "## A\nsee `<!-- MACHINE_BLOCK_END -->` inline\n", inner)
	_, ok = md.UserBlock()
	assert.False(t, ok)

	// Headings inside fenced code are not sections.
	md, err = memorymd.Parse("<!-- MACHINE_BLOCK_START -->\n## A\n```md\n## Not a section\n```\n## B\n<!-- MACHINE_BLOCK_END -->\n")
	require.NoError(t, err)
	secs := md.Sections()
	require.Len(t, secs, 2)
	assert.Equal(t, "```md\n## Not a section\n```", secs[0].Body)

	// Without blocks the document is valid but has nothing the agent may write.
	md, err = memorymd.Parse("# notes\n")
	require.NoError(t, err)
	assert.False(t, md.HasMachineBlock())
	before, after := md.Outside()
	assert.Equal(t, "# notes\n", before)
	assert.Empty(t, after)
	_, err = md.WithSection("A", "x")
	assert.ErrorIs(t, err, memorymd.ErrNoMachineBlock)
	_, err = md.WithMachineBlock("x")
	assert.ErrorIs(t, err, memorymd.ErrNoMachineBlock)
}

func TestMalformed(t *testing.T) {
	const ms, me, us, ue = memorymd.MachineBlockStart, memorymd.MachineBlockEnd, memorymd.UserBlockStart, memorymd.UserBlockEnd
	for _, tc := range []struct {
		name, text string
		line       int
		reason     string
	}{
		{"machine end missing", "a\n" + ms + "\nb\n", 2, "never closed"},
		{"user end missing", us + "\nb", 1, "never closed"},
		{"nested user in machine", ms + "\n" + us + "\n" + ue + "\n" + me, 2, "cannot be nested"},
		{"nested machine in user", us + "\n" + ms + "\n" + me + "\n" + ue, 2, "cannot be nested"},
		{"duplicated machine block", ms + "\n" + me + "\n" + ms + "\n" + me, 3, "duplicated MACHINE_BLOCK"},
		{"duplicated user block", us + "\n" + ue + "\n\n" + us + "\n" + ue, 4, "duplicated USER_BLOCK"},
		{"end without start", "x\n" + me, 2, "closes no open block"},
		{"mismatched end", ms + "\n" + ue + "\n" + me, 2, "MACHINE_BLOCK opened on line 1 is still open"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := memorymd.Parse(tc.text)
			require.Error(t, err)
			assert.ErrorIs(t, err, memorymd.ErrMalformedBlocks)
			var be *memorymd.BlockError
			require.True(t, errors.As(err, &be))
			assert.Equal(t, tc.line, be.Line)
			assert.Contains(t, be.Error(), tc.reason)
		})
	}
}

func TestUserBlock(t *testing.T) {
	const us, ue = memorymd.UserBlockStart, memorymd.UserBlockEnd
	for _, tc := range []struct {
		name, text      string
		parsed, mention bool
	}{
		{"user block", memoryMD, true, true},
		{"no blocks", "# Notes\nplain text", false, false},
		{"marker inside a line", "see " + us + " here", false, false},
		{"unclosed user block", "a\n" + us + "\nb", false, true},
		{"stray user end", "a\n  " + ue + "  \n", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.mention, memorymd.MentionsUserBlock(tc.text))
			if md, err := memorymd.Parse(tc.text); err == nil {
				assert.Equal(t, tc.parsed, md.HasUserBlock())
			} else {
				assert.False(t, tc.parsed, "Parse: %v", err)
			}
		})
	}
}

func TestInvalidSection(t *testing.T) {
	md, err := memorymd.Parse("<!-- MACHINE_BLOCK_START -->\n## A\n## a\n```\n<!-- MACHINE_BLOCK_END -->\n")
	require.NoError(t, err)
	ok, err := memorymd.Parse("<!-- MACHINE_BLOCK_START -->\n## A\n<!-- MACHINE_BLOCK_END -->\n")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		md   *memorymd.File
		sec  string
		body string
	}{
		{"duplicate section", md, "A", "x"},
		{"add inside an unclosed fence", md, "New", "x"},
		{"body with a level-2 heading", ok, "A", "x\n## B\ny"},
		{"body with a block marker", ok, "A", "x\n<!-- USER_BLOCK_END -->"},
		{"body with an unclosed fence", ok, "A", "```go\nx"},
		{"empty name", ok, " ", "x"},
		{"multi-line name", ok, "A\nB", "x"},
		{"name of only hashes", ok, "##", "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.md.WithSection(tc.sec, tc.body)
			assert.ErrorIs(t, err, memorymd.ErrInvalidSection)
		})
	}
	_, err = ok.WithMachineBlock("## A\n<!-- MACHINE_BLOCK_END -->\n")
	assert.ErrorIs(t, err, memorymd.ErrInvalidSection)
	next, err := ok.WithMachineBlock("## New")
	require.NoError(t, err)
	assert.Equal(t, "<!-- MACHINE_BLOCK_START -->\n## New\n<!-- MACHINE_BLOCK_END -->\n", next.String())
}

func FuzzParse(f *testing.F) {
	f.Add(memoryMD)
	f.Add(strings.ReplaceAll(memoryMD, "\n", "\r\n"))
	f.Add("<!-- MACHINE_BLOCK_START -->\n## Fuzz\n```\n<!-- MACHINE_BLOCK_END -->")
	f.Add("<!-- USER_BLOCK_START -->\n<!-- MACHINE_BLOCK_START -->\n")
	f.Add("<!-- MACHINE_BLOCK_START -->\r<!-- MACHINE_BLOCK_END -->\r\n")
	f.Fuzz(func(t *testing.T, text string) {
		md, err := memorymd.Parse(text)
		if err != nil {
			if !errors.Is(err, memorymd.ErrMalformedBlocks) {
				t.Fatalf("error %v is not ErrMalformedBlocks", err)
			}
			return
		}
		if md.String() != text {
			t.Fatal("String() is not the parsed text")
		}
		_ = md.Sections()
		next, err := md.WithSection("Fuzz", "line 1\nline 2")
		if err != nil {
			if !errors.Is(err, memorymd.ErrNoMachineBlock) && !errors.Is(err, memorymd.ErrInvalidSection) {
				t.Fatalf("WithSection: unexpected error %v", err)
			}
			return
		}
		before, after := md.Outside()
		nb, na := next.Outside()
		if before != nb || after != na {
			t.Fatalf("text outside the machine block changed:\n%q\n%q", before+"|"+after, nb+"|"+na)
		}
		body, ok := next.Section("Fuzz")
		eol := "\n"
		if strings.HasSuffix(before, "\r\n") {
			eol = "\r\n"
		}
		if !ok || body != "line 1"+eol+"line 2" {
			t.Fatalf("section after rewrite: %q, %v", body, ok)
		}
	})
}
