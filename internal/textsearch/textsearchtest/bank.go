// Package textsearchtest holds the judged evaluations of the search engine
// (internal/textsearch) that its users, the bank and the memories, are
// measured on:
//
//   - memorybank's evaluation (LoadBank: design documents, progress notes
//     and glossaries in English, Japanese and Chinese, with 53 queries),
//     read in place;
//   - collections of three shapes (Remarks, Sessions, Messages), each with
//     at least 150 judged questions: a hand-written team chat a remark a
//     document, and a generated chat between a person and an assistant
//     (GenerateChat, deterministic, no download) a whole session a
//     document or a message a document;
//   - the baseline they must beat (Okapi: plain BM25, k1 1.2, b 0.75,
//     lower-cased words, a small stop list), the figures (Measure:
//     recall_any@5, evidence recall@10, MRR) and a side-by-side report
//     (Compare), with diversification by maximal marginal relevance
//     measured on the questions answered by several documents (Diversify).
//
// The generated chat was written from what long chats with an assistant
// look like, not from any data set: about one question in seven shares no
// word with its evidence, the others one or two, paraphrasing the rest
// (a lexical search cannot find the first kind); an assistant's
// answers on a topic repeat the topic's vocabulary (distractors for the
// person's short notes); a fifth of the questions ask what the assistant
// said; 43 need several messages (lists, orderings, changes, summaries).
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
