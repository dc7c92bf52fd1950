package textsearchtest

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"time"
)

// Message is one message of a generated chat.
type Message struct {
	ID      string // "c07-03": session 7, message 3
	Session string // "c07"
	Date    string // the session's date, YYYY-MM-DD
	Role    string // "user" or "assistant"
	Text    string
}

// Chat is a generated conversation between a person and an assistant over
// a year, and questions about it, each judged by the messages that answer
// it (Question.Evidence holds Message.IDs).
type Chat struct {
	Messages  []Message
	Questions []Question
}

// GenerateChat builds the chat from the material of chatdata.go with a
// fixed seed, so it is the same on every run. Every topic has a session
// in which the person asks for help and mentions facts in passing, in
// short messages, and the assistant answers at length (often with code or
// a table), repeating the topic's vocabulary; a topic with updates has a
// later session where the person says what changed; every topic has a
// further session of more questions and answers that mention no fact, as
// distractors. Sessions are ordered at random through 2025, a topic's
// update after its first session.
func GenerateChat() Chat {
	rng := rand.New(rand.NewPCG(42, 2025))
	type plan struct {
		t    *topic
		kind int // 0 first, 1 update, 2 follow-up without facts
	}
	var first, rest []plan
	for i := range topics {
		first = append(first, plan{&topics[i], 0})
		if len(topics[i].later) > 0 {
			rest = append(rest, plan{&topics[i], 1})
		}
		rest = append(rest, plan{&topics[i], 2})
	}
	rng.Shuffle(len(first), func(i, j int) { first[i], first[j] = first[j], first[i] })
	rng.Shuffle(len(rest), func(i, j int) { rest[i], rest[j] = rest[j], rest[i] })
	// Interleave: the first sessions fill the first half of the year with
	// some follow-ups among them, updates come after their topic's start.
	var order []plan
	started := map[string]bool{}
	for len(first) > 0 || len(rest) > 0 {
		if len(first) > 0 && (len(rest) == 0 || rng.IntN(3) > 0) {
			order = append(order, first[0])
			started[first[0].t.id] = true
			first = first[1:]
			continue
		}
		k := -1
		for i, p := range rest {
			if started[p.t.id] {
				k = i
				break
			}
		}
		if k < 0 {
			order = append(order, first[0])
			started[first[0].t.id] = true
			first = first[1:]
			continue
		}
		order = append(order, rest[k])
		rest = append(rest[:k], rest[k+1:]...)
	}

	var c Chat
	said := map[string]string{} // fact id → message id
	day := time.Date(2025, 1, 6, 0, 0, 0, 0, time.UTC)
	for s, p := range order {
		sess := fmt.Sprintf("c%02d", s+1)
		date := day.AddDate(0, 0, s*5+rng.IntN(4)).Format(time.DateOnly)
		n := 0
		add := func(role, text string) string {
			n++
			id := fmt.Sprintf("%s-%02d", sess, n)
			c.Messages = append(c.Messages, Message{ID: id, Session: sess, Date: date, Role: role, Text: text})
			return id
		}
		t := p.t
		switch p.kind {
		case 0:
			add("user", t.asks[0])
			add("assistant", answer(rng, t, 10, 16, true, ""))
			for k, f := range t.facts {
				said[f.id] = add("user", f.say)
				told := ""
				if k == len(t.facts)-1 {
					told = t.told.say
				}
				id := add("assistant", answer(rng, t, 4, 8, false, told))
				if told != "" {
					said[t.told.id] = id
				}
			}
			add("user", filler[rng.IntN(len(filler))])
			add("assistant", answer(rng, t, 2, 4, false, ""))
		case 1:
			for _, f := range t.later {
				said[f.id] = add("user", f.say)
				add("assistant", answer(rng, t, 4, 9, false, ""))
			}
			add("user", filler[rng.IntN(len(filler))])
			add("assistant", answer(rng, t, 2, 4, false, ""))
		case 2:
			add("user", t.asks[1])
			add("assistant", answer(rng, t, 10, 18, true, ""))
			add("user", filler[rng.IntN(len(filler))])
			add("assistant", answer(rng, t, 3, 6, false, ""))
		}
	}
	for i := range topics {
		t := &topics[i]
		for _, f := range append(append(append([]fact{}, t.facts...), t.later...), t.told) {
			c.Questions = append(c.Questions, Question{Kind: "single", Text: f.q, Evidence: []string{said[f.id]}})
		}
	}
	for _, m := range multi {
		q := Question{Kind: m.kind, Text: m.q}
		for _, id := range m.ids {
			if said[id] == "" {
				panic("textsearchtest: question " + m.q + " names no fact " + id)
			}
			q.Evidence = append(q.Evidence, said[id])
		}
		c.Questions = append(c.Questions, q)
	}
	return c
}

// answer is an assistant's message on t: an opener, between lo and hi
// sentences of the topic's material and general advice, the topic's code
// block when code is set and it has one, told (if any) among them, and a
// closer.
func answer(rng *rand.Rand, t *topic, lo, hi int, code bool, told string) string {
	pool := append(append([]string{}, t.tips...), general...)
	rng.Shuffle(len(pool), func(i, j int) { pool[i], pool[j] = pool[j], pool[i] })
	// The topic's own sentences first, mostly: an answer is about its topic.
	n := min(lo+rng.IntN(hi-lo+1), len(pool))
	var picked []string
	for _, s := range pool {
		if len(picked) == n {
			break
		}
		if isTip(t, s) || rng.IntN(3) == 0 {
			picked = append(picked, s)
		}
	}
	if told != "" {
		at := rng.IntN(len(picked) + 1)
		picked = append(picked[:at], append([]string{told}, picked[at:]...)...)
	}
	var b strings.Builder
	b.WriteString(openers[rng.IntN(len(openers))])
	for i, s := range picked {
		if i%4 == 3 {
			b.WriteString("\n\n")
		} else {
			b.WriteString(" ")
		}
		b.WriteString(s)
	}
	if code && t.code != "" {
		b.WriteString("\n\n")
		b.WriteString(t.code)
	}
	b.WriteString("\n\n")
	b.WriteString(closers[rng.IntN(len(closers))])
	return b.String()
}

func isTip(t *topic, s string) bool {
	for _, x := range t.tips {
		if x == s {
			return true
		}
	}
	return false
}
