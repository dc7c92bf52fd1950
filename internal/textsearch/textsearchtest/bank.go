// Package textsearchtest loads the judged evaluation of memorybank
// (memorybank/testdata/legacy-bank and memorybank/testdata/eval: design
// documents, progress notes and glossaries in English, Japanese and
// Chinese, with 53 queries and the documents answering them) for the
// evaluations of internal/textsearch and memories, which read it in place.
package textsearchtest

import (
	"encoding/json"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
)

// Doc is a bank document as the bank's search sees it.
type Doc struct {
	Key   string // store key: "global-memory-bank/db/migrations.md"
	Path  string // path in its bank: "db/migrations.md"
	Title string
	Tags  []string
	Text  string // a Markdown document's text; a JSON document's strings, one a line
}

// Query is a judged query.
type Query struct {
	Lang     string   `json:"lang"`
	Query    string   `json:"query"`
	Relevant []string `json:"relevant"` // Doc.Key
}

// LoadBank reads the documents and queries under testdata, the path of
// memorybank/testdata.
func LoadBank(testdata string) ([]Doc, []Query, error) {
	var docs []Doc
	for _, dir := range []string{"legacy-bank", "eval/bank"} {
		root := filepath.Join(testdata, dir)
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil || d.IsDir() {
				return err
			}
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			key, _ := filepath.Rel(root, p)
			key = filepath.ToSlash(key)
			_, path, _ := strings.Cut(key, "/")
			if b := strings.Index(path, "/"); strings.HasPrefix(key, "branch-") && b >= 0 {
				path = path[b+1:] // the branch's directory is not part of the path
			}
			doc := Doc{Key: key, Path: path}
			if strings.HasSuffix(p, ".json") {
				var j struct {
					Metadata struct {
						Title string   `json:"title"`
						Tags  []string `json:"tags"`
					} `json:"metadata"`
					Content any `json:"content"`
				}
				if err := json.Unmarshal(data, &j); err != nil {
					return err
				}
				doc.Title, doc.Tags = j.Metadata.Title, j.Metadata.Tags
				var b strings.Builder
				jsonStrings(j.Content, &b)
				doc.Text = b.String()
			} else {
				var body []string
				for _, line := range strings.Split(string(data), "\n") {
					switch {
					case doc.Title == "" && strings.HasPrefix(line, "# "):
						doc.Title = strings.TrimPrefix(line, "# ")
					case doc.Tags == nil && strings.HasPrefix(line, "tags:"):
						for _, f := range strings.Fields(strings.TrimPrefix(line, "tags:")) {
							doc.Tags = append(doc.Tags, strings.TrimPrefix(f, "#"))
						}
					default:
						body = append(body, line)
					}
				}
				doc.Text = strings.Join(body, "\n")
			}
			docs = append(docs, doc)
			return nil
		})
		if err != nil {
			return nil, nil, err
		}
	}
	data, err := os.ReadFile(filepath.Join(testdata, "eval", "queries.json"))
	if err != nil {
		return nil, nil, err
	}
	var f struct {
		Queries []Query `json:"queries"`
	}
	if err := json.Unmarshal(data, &f); err != nil {
		return nil, nil, err
	}
	return docs, f.Queries, nil
}

// jsonStrings writes the strings of v, member names included, one a line.
func jsonStrings(v any, b *strings.Builder) {
	switch v := v.(type) {
	case string:
		b.WriteString(v)
		b.WriteByte('\n')
	case []any:
		for _, e := range v {
			jsonStrings(e, b)
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(v)) {
			e := v[k]
			b.WriteString(k)
			b.WriteByte('\n')
			jsonStrings(e, b)
		}
	}
}
