package textsearchtest

import (
	"bufio"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// Collections of three shapes, for measuring a search on each:
//
//   - remarks: a team's chat, one short remark a document (memories'
//     testdata/dialogue, written by hand);
//   - sessions: the generated chat (GenerateChat), one whole session a
//     document;
//   - messages: the generated chat, one message a document: short notes of
//     the person beside the assistant's answers ten to fifty times longer,
//     often with code.
//
// Each has at least 150 questions judged by the documents answering them,
// some answered only by several documents together.

// Question is a judged question.
type Question struct {
	// Kind is how the question was made: single (one message states it),
	// two (two do), when (asks for a date), para (paraphrases its
	// evidence); and, answered by several messages: list (everything on a
	// subject), order (what came first), update (what changed), summary.
	Kind     string
	Text     string
	Evidence []string // the keys of the documents that answer it
}

// Broad reports whether q is answered only by several documents
// together: two facts, or everything on a subject (a list, an ordering, a
// change over time, a summary).
func (q Question) Broad() bool {
	switch q.Kind {
	case "two", "list", "order", "update", "summary":
		return true
	}
	return false
}

// Set is a collection and its questions. A Doc's Tags hold its author's
// role when known ("user", "assistant").
type Set struct {
	Name      string
	Docs      []Doc
	Questions []Question
}

// Remarks reads the hand-written dialogue under dir (the path of
// memories/testdata/dialogue): a remark a document, titled with its speaker
// and date.
func Remarks(dir string) (Set, error) {
	s := Set{Name: "remarks"}
	f, err := os.Open(filepath.Join(dir, "remarks.txt"))
	if err != nil {
		return s, err
	}
	defer f.Close()
	date := ""
	ids := map[string]bool{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		switch {
		case line == "" || strings.HasPrefix(line, "# "):
		case strings.HasPrefix(line, "## "):
			date = strings.TrimPrefix(line, "## ")
		default:
			id, rest, ok1 := strings.Cut(line, " ")
			speaker, text, ok2 := strings.Cut(rest, ": ")
			if !ok1 || !ok2 || date == "" {
				return s, fmt.Errorf("textsearchtest: remarks.txt: a line not \"<id> <speaker>: <text>\" after a \"## <date>\": %q", line)
			}
			s.Docs = append(s.Docs, Doc{Key: id, Path: id, Title: speaker + " on " + date, Text: text})
			ids[id] = true
		}
	}
	if err := sc.Err(); err != nil {
		return s, err
	}
	data, err := os.ReadFile(filepath.Join(dir, "questions.txt"))
	if err != nil {
		return s, err
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		if len(parts) != 3 {
			return s, fmt.Errorf("textsearchtest: questions.txt: a line not \"<kind> | <question> | <ids>\": %q", line)
		}
		q := Question{Kind: parts[0], Text: parts[1], Evidence: strings.Fields(parts[2])}
		for _, id := range q.Evidence {
			if !ids[id] {
				return s, fmt.Errorf("textsearchtest: question %q names remark %s, which remarks.txt lacks", q.Text, id)
			}
		}
		s.Questions = append(s.Questions, q)
	}
	return s, nil
}

// Sessions is the generated chat, a session a document: its messages one
// a line after their author's role.
func Sessions() Set {
	c := GenerateChat()
	s := Set{Name: "sessions"}
	of := map[string]string{}
	for _, m := range c.Messages {
		of[m.ID] = m.Session
		if n := len(s.Docs); n == 0 || s.Docs[n-1].Key != m.Session {
			s.Docs = append(s.Docs, Doc{Key: m.Session, Path: "chats/" + m.Session + ".md", Title: "Chat on " + m.Date})
		}
		d := &s.Docs[len(s.Docs)-1]
		d.Text += m.Role + ": " + m.Text + "\n\n"
	}
	for _, q := range c.Questions {
		var ev []string
		for _, id := range q.Evidence {
			if !slices.Contains(ev, of[id]) {
				ev = append(ev, of[id])
			}
		}
		q.Evidence = ev
		s.Questions = append(s.Questions, q)
	}
	return s
}

// Messages is the generated chat, a message a document, titled with its
// author's role and date, the role its one tag.
func Messages() Set {
	c := GenerateChat()
	s := Set{Name: "messages", Questions: c.Questions}
	for _, m := range c.Messages {
		s.Docs = append(s.Docs, Doc{Key: m.ID, Path: "chats/" + m.Session + "/" + m.ID + ".md", Title: m.Role + " on " + m.Date, Tags: []string{m.Role}, Text: m.Text})
	}
	return s
}

// Scores are a ranking's figures over a set of questions.
type Scores struct {
	RecallAny5 float64 // share of questions with some evidence in the top 5
	Recall10   float64 // mean share of a question's evidence in the top 10
	MRR        float64 // mean reciprocal rank of the first evidence (top 10; 0 if none)
}

func (s Scores) String() string {
	return fmt.Sprintf("%.3f %.3f %.3f", s.RecallAny5, s.Recall10, s.MRR)
}

// AtLeast reports whether s is at least o on every figure.
func (s Scores) AtLeast(o Scores) bool {
	return s.RecallAny5 >= o.RecallAny5 && s.Recall10 >= o.Recall10 && s.MRR >= o.MRR
}

// Measure scores ranked (the keys of the best documents for a question,
// best first) over qs.
func Measure(qs []Question, ranked func(q string) []string) Scores {
	var s Scores
	for _, q := range qs {
		got := ranked(q.Text)
		got = got[:min(10, len(got))]
		found := 0
		for i, k := range got {
			if !slices.Contains(q.Evidence, k) {
				continue
			}
			if found == 0 {
				s.MRR += 1 / float64(i+1)
				if i < 5 {
					s.RecallAny5++
				}
			}
			found++
		}
		s.Recall10 += float64(found) / float64(len(q.Evidence))
	}
	n := float64(len(qs))
	return Scores{s.RecallAny5 / n, s.Recall10 / n, s.MRR / n}
}

// okapiStop is the small stop list of the Okapi baseline.
var okapiStop = map[string]bool{}

func init() {
	for _, w := range strings.Fields("a an the and or of to in on at for with by from is are was were be been do does did " +
		"i me my we our you your he she it its they them their this that what which who when where why how") {
		okapiStop[w] = true
	}
}

// Okapi is the baseline a search is measured against: Okapi BM25 with k1
// 1.2 and b 0.75 over a document's title, tags and text as one text, its
// words the lower-cased runs of letters and digits less a small stop
// list; stem, when not nil, rewrites each word. It returns the keys of the
// ten best documents, ties in collection order.
func Okapi(docs []Doc, stem func(string) string) func(q string) []string {
	words := func(s string) []string {
		var out []string
		for _, w := range strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) }) {
			if okapiStop[w] {
				continue
			}
			if stem != nil {
				w = stem(w)
			}
			out = append(out, w)
		}
		return out
	}
	tf := make([]map[string]int, len(docs))
	lens := make([]float64, len(docs))
	df := map[string]int{}
	total := 0.0
	for i, d := range docs {
		tf[i] = map[string]int{}
		for _, w := range words(d.Title + "\n" + strings.Join(d.Tags, " ") + "\n" + d.Text) {
			if tf[i][w] == 0 {
				df[w]++
			}
			tf[i][w]++
			lens[i]++
		}
		total += lens[i]
	}
	avg := total / float64(len(docs))
	n := float64(len(docs))
	return func(q string) []string {
		type hit struct {
			i int
			s float64
		}
		var hits []hit
		var qw []string
		for _, w := range words(q) {
			if !slices.Contains(qw, w) {
				qw = append(qw, w)
			}
		}
		for i := range docs {
			s := 0.0
			for _, w := range qw {
				f := float64(tf[i][w])
				if f == 0 {
					continue
				}
				idf := math.Log(1 + (n-float64(df[w])+0.5)/(float64(df[w])+0.5))
				s += idf * f * 2.2 / (f + 1.2*(0.25+0.75*lens[i]/avg))
			}
			if s > 0 {
				hits = append(hits, hit{i, s})
			}
		}
		slices.SortStableFunc(hits, func(a, b hit) int {
			switch {
			case a.s > b.s:
				return -1
			case a.s < b.s:
				return 1
			}
			return 0
		})
		var keys []string
		for _, h := range hits[:min(10, len(hits))] {
			keys = append(keys, docs[h.i].Key)
		}
		return keys
	}
}
