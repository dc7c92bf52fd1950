package skillgraph

import (
	"errors"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.yaml.in/yaml/v3"
)

// frontmatter reads the YAML between the --- lines of a SKILL.md, as a
// reader that resolves types (numbers, booleans, dates) would.
func frontmatter(t *testing.T, md string) map[string]any {
	t.Helper()
	rest, ok := strings.CutPrefix(md, "---\n")
	require.True(t, ok, "no frontmatter in %q", md)
	fm, _, ok := strings.Cut(rest, "\n---\n")
	require.True(t, ok, "unterminated frontmatter in %q", md)
	var m map[string]any
	require.NoError(t, yaml.Unmarshal([]byte(fm), &m), "frontmatter %q", fm)
	return m
}

func toolGraph(name string, tools ...string) *Graph {
	g := graph([]string{"a"})
	g.SkillID = name
	for i, tool := range tools {
		id := string(rune('t' + i))
		g.Nodes = append(g.Nodes, Node{ID: id, Type: TypeTool, Data: NodeData{Label: "use " + tool, ToolName: tool}})
		g.Edges = append(g.Edges, Edge{ID: "e" + id, Source: "a", Target: id})
	}
	return g
}

// allowed-tools is space-delimited in the Agent Skills format, and tool
// steps are numbered steps too, not only grants.
func TestSkillMDAllowedToolsAndToolSteps(t *testing.T) {
	md, err := SkillMD(toolGraph("review", "Read", "Bash(git:*)", "Read"), &SkillMDOptions{Description: "Reviews.", Lang: LangEN})
	require.NoError(t, err)
	assert.Equal(t, "Read Bash(git:*)", frontmatter(t, md)["allowed-tools"])
	assert.Contains(t, md, "\n1. **La**\n2. **use Read** — `Read`\n3. **use Bash(git:*)** — `Bash(git:*)`\n4. **use Read** — `Read`\n")
	assert.Equal(t, "`` a`b ``", codeSpan("a`b"))
}

// A tool name with whitespace or a comma would be cut in two by
// allowed-tools: SkillMD refuses it, Apply refuses it in an operation, and
// Validate warns about one already in a graph, which stays editable.
func TestToolNameWithSeparator(t *testing.T) {
	for _, tool := range []string{"Bash(git diff:*)", "Read, Write", "Read,Write", "Read\u00a0x", " Read"} {
		t.Run(tool, func(t *testing.T) {
			g := toolGraph("review", "Read", tool)
			_, err := SkillMD(g, &SkillMDOptions{Description: "d"})
			var ge *GraphError
			require.ErrorAs(t, err, &ge)
			require.Len(t, ge.Report.Errors, 1)
			assert.Equal(t, CodeToolNameSeparator, ge.Report.Errors[0].Code)
			assert.Equal(t, []string{"u"}, ge.Report.Errors[0].NodeIDs)
			assert.Contains(t, err.Error(), "Bash(git:*)", "the message shows what to write instead")

			rep := Validate(g)
			assert.Empty(t, rep.Errors)
			require.Len(t, rep.Warnings, 1)
			assert.Equal(t, CodeToolNameSeparator, rep.Warnings[0].Code)

			// The graph stays editable; a new such name is refused.
			_, res, err := testEditor(nil).Apply(g, []Operation{{OperationID: "op1", Kind: KindUpdateNode, NodeID: "a", Label: ptr("A")}})
			require.NoError(t, err)
			assert.Equal(t, CodeToolNameSeparator, res.Warnings[0].Code)
			for _, op := range []Operation{
				{OperationID: "op1", Kind: KindAddNode, Node: &Node{Type: TypeTool, Data: NodeData{Label: "x", ToolName: tool}}},
				{OperationID: "op1", Kind: KindUpdateNode, NodeID: "t", ToolName: SetString(tool)},
			} {
				_, _, err := testEditor(nil).Apply(g, []Operation{op})
				var oe *OperationError
				require.ErrorAs(t, err, &oe, op.Kind)
				assert.Equal(t, CodeToolNameSeparator, oe.Code)
				assert.ErrorIs(t, err, ErrInvalidOperation)
			}
		})
	}
}

func TestSkillMDName(t *testing.T) {
	for _, name := range []string{"a", "code-review", "pdf2text", strings.Repeat("a", 64), "yes", "123", "2024-01-01"} {
		md, err := SkillMD(toolGraph(name), &SkillMDOptions{Description: "d"})
		require.NoError(t, err, name)
		assert.Equal(t, name, frontmatter(t, md)["name"], "a string, not a bool, number or date")
	}
	for name, suggestion := range map[string]string{
		"Code-Review":           "code-review",
		"-pdf":                  "pdf",
		"pdf-":                  "pdf",
		"pdf--processing":       "pdf-processing",
		"pdf_processing":        "pdf-processing",
		"pdf processing":        "pdf-processing",
		strings.Repeat("a", 65): strings.Repeat("a", 64),
		"日本語":                   "skill",
	} {
		_, err := SkillMD(toolGraph(name), &SkillMDOptions{Description: "d"})
		var ge *GraphError
		require.ErrorAs(t, err, &ge, name)
		assert.Equal(t, CodeInvalidSkillName, ge.Report.Errors[0].Code, name)
		assert.Contains(t, err.Error(), `such as "`+suggestion+`"`, name)
		assert.Regexp(t, skillName, suggestion)
	}
}

func TestSkillMDDescription(t *testing.T) {
	g := toolGraph("s")
	for _, d := range []string{"", " \n\t", strings.Repeat("語", 1025)} {
		_, err := SkillMD(g, &SkillMDOptions{Description: d})
		var oe *OptionError
		require.ErrorAs(t, err, &oe, "%.20q", d)
		assert.Equal(t, "SkillMDOptions.Description", oe.Option)
		assert.ErrorIs(t, err, ErrInvalidOption)
	}
	_, err := SkillMD(g, nil)
	assert.ErrorIs(t, err, ErrInvalidOption, "the default options have no description")
	long := strings.Repeat("語", 1024) // 1,024 characters, 3,072 bytes
	md, err := SkillMD(g, &SkillMDOptions{Description: long})
	require.NoError(t, err)
	assert.Equal(t, long, frontmatter(t, md)["description"])
}

// Every frontmatter value reads back as the same string, including words
// YAML 1.1 reads as booleans or null, numbers, dates and YAML syntax.
func TestSkillMDFrontmatterKeepsStrings(t *testing.T) {
	for _, v := range []string{"yes", "on", "no", "off", "y", "n", "true", "False", "null", "~", "123", "1e3", "0x1f", "0o17", "1:20",
		"2024-01-01", "a: b", "x #y", "- x", "[a]", "{a}", "*a", "&a", "!a", "|", ">", "'q'", `"q"`, "tail ", " lead",
		"two\nlines", "cr\r\nlf", "tab\tx", "nul\x00", "del\x7f", "nel\u0085", "bom\ufeff", "日本語の説明"} {
		md, err := SkillMD(toolGraph("s"), &SkillMDOptions{Description: v})
		require.NoError(t, err, "%q", v)
		assert.Equal(t, v, frontmatter(t, md)["description"], "%q", v)
	}
	for _, tool := range []string{"on", "yes", "true", "null", "123", "Read"} {
		md, err := SkillMD(toolGraph("s", tool), &SkillMDOptions{Description: "d"})
		require.NoError(t, err, tool)
		assert.Equal(t, tool, frontmatter(t, md)["allowed-tools"], tool)
	}
	md, err := SkillMD(toolGraph("s"), &SkillMDOptions{Description: "bad\xffutf8"})
	require.NoError(t, err)
	assert.Equal(t, "bad\uFFFDutf8", frontmatter(t, md)["description"])
}

// FuzzSkillMDFrontmatter: any name, description and tool name either
// renders to frontmatter that reads back as exactly those strings (invalid
// UTF-8 as U+FFFD) or is refused with a typed error; never a panic.
func FuzzSkillMDFrontmatter(f *testing.F) {
	f.Add("code-review", "Reviews: code", "Bash(git:*)")
	f.Add("yes", "on", "true")
	f.Add("a", "\x85\xc2", "Read")
	f.Add("2024-01-01", "two\nlines\r\n", "x,y")
	f.Fuzz(func(t *testing.T, name, desc, tool string) {
		g := toolGraph(name, tool)
		md, err := SkillMD(g, &SkillMDOptions{Description: desc})
		if err != nil {
			var ge *GraphError
			var oe *OptionError
			require.True(t, errors.As(err, &ge) || errors.As(err, &oe), "unexpected error %T: %v", err, err)
			return
		}
		require.True(t, utf8.ValidString(md))
		fm := frontmatter(t, md)
		assert.Equal(t, name, fm["name"])
		assert.Equal(t, strings.ToValidUTF8(desc, "\uFFFD"), fm["description"])
		assert.Equal(t, strings.ToValidUTF8(tool, "\uFFFD"), fm["allowed-tools"])
		assert.Len(t, fm, 3)
	})
}
