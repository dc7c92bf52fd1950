package consolidate_test

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/mnemobank/mnemobank/memories"
)

// The seeded set: memories and documents written like an agent's notes,
// with the answers known. It is generated, deterministically (a fixed
// PCG seed), so its size can grow for the benchmark; the labelled figures
// use seedSet(300).
//
// Each memory states one fact about one subject (a made-up service name
// of two syllables, unique per fact). Among them:
//   - duplicate clusters: a fact and one or two rephrasings of it (other
//     words around the same names, paths and numbers);
//   - contradicting pairs: a fact and the same statement with another
//     number, or a checklist whose first 50 characters (its title) are the
//     same and whose steps differ;
//   - stale memories: dated before the staleness cut and never returned;
//     as many old ones are returned by a search first, so age alone does
//     not make a candidate.
// Documents: a global bank of notes with duplicate pairs (a note copied
// under another path, a line added), and the bank of a merged branch whose
// new notes and changed notes are the promotions (copies identical to the
// global bank's are not).

var syllables = []string{"kes", "tral", "vor", "mint", "pax", "quil", "dorn", "zef", "lum", "brack",
	"hov", "nix", "tam", "ruk", "sel", "gant", "wex", "plo", "fen", "drim", "cob", "jat", "yul", "osk"}

// subject is the i-th made-up service name: distinct for every i below
// len(syllables)^3.
func subject(i int) string {
	n := len(syllables)
	return syllables[i%n] + syllables[(i/n)%n] + syllables[(i/n/n)%n]
}

// fact templates: text(s, n, path) and a rephrasing that keeps the names,
// the number and the path. Numbers are what contradicting pairs change.
type template struct {
	say, rephrase string
	numbered      bool
}

var templates = []template{
	{"The %[1]s service reads its configuration from %[3]s; restart it after editing that file.",
		"Configuration of the %[1]s service is read from %[3]s, so restart the service after an edit.", false},
	{"Run make %[1]s-test before pushing changes to the %[1]s package; CI runs the same target.",
		"Before pushing %[1]s package changes, run make %[1]s-test: CI runs that same target.", false},
	{"The %[1]s client retries failed requests %[2]d times with exponential backoff.",
		"Failed requests from the %[1]s client are retried %[2]d times, backing off exponentially.", true},
	{"The %[1]s database connection times out after %[2]d seconds; raise it in %[3]s when migrations are slow.",
		"Raise the %[1]s database connection timeout (%[2]d seconds) in %[3]s when migrations are slow.", true},
	{"The %[1]s handlers log through slog with the request id; never print with fmt in %[1]s code.",
		"In %[1]s code never print with fmt: the handlers log through slog with the request id.", false},
	{"The %[1]s worker pool has %[2]d goroutines; more makes the %[1]s queue thrash on the shared lock.",
		"More than %[2]d goroutines in the %[1]s worker pool makes its queue thrash on the shared lock.", true},
	{"Integration tests of %[1]s need docker running and the fixture database from %[3]s.",
		"%[1]s integration tests need the fixture database from %[3]s and docker running.", false},
	{"The %[1]s API returns at most %[2]d items per page; callers follow the next cursor.",
		"Callers of the %[1]s API follow the next cursor: each page holds at most %[2]d items.", true},
}

// reasons vary the notes: each fact ends with one, so two facts of one
// template share their template's words but not their point.
var reasons = []string{
	"Ana found this while chasing the flaky nightly build.",
	"Otherwise the staging rollout stalls behind the canary gate.",
	"Learned the hard way during the March outage postmortem.",
	"The vendor SDK silently swallows errors when this is wrong.",
	"Kenji's benchmark showed p99 latency doubling without it.",
	"Grafana alerts page the on-call rotation when this drifts.",
	"Terraform state drifts if someone changes it by hand.",
	"Security review flagged the old behaviour as a token leak.",
	"Local laptops on ARM need the emulated image for this.",
	"The migration script assumes this and fails halfway otherwise.",
	"Customer support escalations mostly trace back to this.",
	"Protobuf regeneration breaks when this is skipped.",
	"Windows runners choke on the long temp paths here.",
	"Redis eviction kicks in early if this is ignored.",
	"Feature flags in LaunchDarkly depend on this ordering.",
	"The Kafka consumer lag dashboard tracks exactly this.",
	"Mobile clients cache responses aggressively because of this.",
	"Bazel remote cache misses spike when this changes.",
	"Legal asked us to keep audit logs for this path.",
	"Sentry groups these failures under one noisy issue.",
	"The nginx ingress rewrites headers unless told otherwise.",
	"Go 1.26 vet complains about the old pattern here.",
	"Pairing with Priya showed the docs were wrong about it.",
	"Elasticsearch reindexing takes hours when this regresses.",
}

// nouns name what a fact touches: three per fact, as an agent notes the
// files and systems involved.
var nouns = strings.Fields(`webhook scheduler ledger invoice tenant quota
	sidecar cronjob bucket keystore tracer span gateway resolver shard replica
	snapshot manifest chart operator lease mutex cursor batch outbox inbox
	nonce checksum codec parser lexer renderer template locale timezone
	currency refund coupon cart session cookie header payload schema enum
	fixture mock stub golden fuzzer profiler heap goroutine channel context
	deadline backoff jitter circuit bulkhead`)

// steps are release checklist steps; two checklists of one service that
// disagree take different ones.
var steps = []string{"tag the commit", "build the image", "push to staging", "bump the chart version",
	"wait for the canary report", "announce in the release channel", "freeze merges for an hour",
	"rotate the deploy key", "run the smoke suite", "update the changelog", "snapshot the database",
	"notify the support rota"}

var dirs = []string{"config", "deploy", "etc", "internal/settings", "ops", "testdata/fixtures"}

func path(s string, i int) string {
	return fmt.Sprintf("%s/%s.yaml", dirs[i%len(dirs)], s)
}

// labelled is the seeded set with its answers.
type labelled struct {
	memories   []memories.Memory
	clusters   [][]string  // duplicate clusters of memories, by id
	conflicts  [][2]string // contradicting pairs of memories
	stale      []string    // memory ids that are stale
	used       []string    // old memory ids a search returns (not stale); queries in usedQuery
	usedQuery  []string
	docs       []seedDoc // global bank
	docDups    [][]string
	branchDocs []seedDoc // the merged branch's bank
	promote    []string  // branch document paths to promote
}

type seedDoc struct{ path, text string }

const (
	seedToday = "2026-06-01"
	seedFresh = "2026-05-" // fresh dates: May 2026
	seedOld   = "2025-11-" // before the 90-day cut (2026-03-03)
)

// seedSet generates n unique facts and, around them, the duplicates,
// conflicts, stale memories and documents described above (n/6
// duplicate clusters, n/12 number conflicts, n/25 title conflicts, n/10
// stale and n/10 old but used memories).
func seedSet(n int) *labelled {
	r := rand.New(rand.NewPCG(39, 2026))
	l := &labelled{}
	id := 0
	add := func(content, date string, tags ...string) string {
		id++
		m := memories.Memory{ID: fmt.Sprintf("mem-%d-%08x", 1760000000+id, id), Date: date, Tags: tags, Content: content}
		m.Title = memories.MakeTitle(content)
		l.memories = append(l.memories, m)
		return m.ID
	}
	fresh := func() string { return fmt.Sprintf("%s%02d", seedFresh, 1+r.IntN(28)) }
	old := func() string { return fmt.Sprintf("%s%02d", seedOld, 1+r.IntN(28)) }
	tagSets := [][]string{{"build"}, {"testing"}, {"ops", "config"}, {"style"}, {"db"}, {"api"}}
	for i := range n {
		s := subject(i)
		t := templates[i%len(templates)]
		num := 3 + r.IntN(60)
		p := path(s, i)
		// Two reasons, a pair no other fact of this template has.
		nr := len(reasons)
		ra := (i / len(templates)) % nr
		rb := (ra + 1 + (i/len(templates)/nr)%(nr-1)) % nr
		kn := r.Perm(len(nouns))
		why := " " + reasons[ra] + " " + reasons[rb] + " Touches the " + nouns[kn[0]] + ", the " + nouns[kn[1]] + " and the " + nouns[kn[2]] + "."
		text := fmt.Sprintf(t.say, s, num, p) + why
		tags := tagSets[r.IntN(len(tagSets))]
		switch {
		case i%6 == 1: // a duplicate cluster: the fact, a rephrasing, sometimes a copy with other tags
			a := add(text, fresh(), tags...)
			b := add(fmt.Sprintf(t.rephrase, s, num, p)+why, fresh(), tags[0])
			c := []string{a, b}
			if i%12 == 1 {
				c = append(c, add(text+" (noted again)", fresh(), "notes"))
			}
			l.clusters = append(l.clusters, c)
		case i%12 == 3 && t.numbered: // a number conflict
			a := add(text, fresh(), tags...)
			b := add(fmt.Sprintf(t.say, s, num+1+r.IntN(40), p)+why, fresh(), tags...)
			l.conflicts = append(l.conflicts, [2]string{a, b})
		case i%25 == 5: // a title conflict: same first 50 characters, other steps
			head := fmt.Sprintf("Release checklist for the %s service, in this order: ", s)
			k := r.Perm(len(steps))
			a := add(head+steps[k[0]]+", "+steps[k[1]]+", then "+steps[k[2]]+".", fresh(), "release")
			b := add(head+steps[k[3]]+" first, then "+steps[k[4]]+" and "+steps[k[5]]+".", fresh(), "release")
			l.conflicts = append(l.conflicts, [2]string{a, b})
		case i%10 == 7: // stale
			l.stale = append(l.stale, add(text, old(), tags...))
		case i%10 == 9: // old but returned by a search
			l.used = append(l.used, add(text, old(), tags...))
			l.usedQuery = append(l.usedQuery, s)
		default:
			add(text, fresh(), tags...)
		}
	}
	r.Shuffle(len(l.memories), func(i, j int) { l.memories[i], l.memories[j] = l.memories[j], l.memories[i] })

	// Documents: n/3 notes of the global bank, a duplicate pair every
	// seventh, and a merged branch.
	nd := max(n/3, 12)
	dr := rand.New(rand.NewPCG(39, 100))
	note := func(i int) seedDoc {
		s := subject(100000 + i)
		var b strings.Builder
		fmt.Fprintf(&b, "# Notes on %s\n\n", s)
		for k := range 3 {
			t := templates[(i+k)%len(templates)]
			kn := dr.Perm(len(nouns))
			fmt.Fprintf(&b, "- "+t.say+" %[4]s Touches the %[5]s and the %[6]s.\n", s, 5+dr.IntN(50), path(s, i+k),
				reasons[dr.IntN(len(reasons))], nouns[kn[0]], nouns[kn[1]])
		}
		return seedDoc{path: fmt.Sprintf("notes/%s.md", s), text: b.String()}
	}
	for i := range nd {
		d := note(i)
		l.docs = append(l.docs, d)
		if i%7 == 2 {
			c := seedDoc{path: strings.Replace(d.path, "notes/", "notes/old-", 1),
				text: d.text + "- Checked again during the last incident review.\n"}
			l.docs = append(l.docs, c)
			l.docDups = append(l.docDups, []string{d.path, c.path})
		}
	}
	for i := range max(nd/8, 6) {
		switch i % 3 {
		case 0: // new in the branch
			d := note(200000 + i)
			l.branchDocs = append(l.branchDocs, d)
			l.promote = append(l.promote, d.path)
		case 1: // changed in the branch
			d := l.docs[i*3]
			d.text += fmt.Sprintf("- The branch moved the %s settings to the new loader.\n", subject(100000+i))
			l.branchDocs = append(l.branchDocs, d)
			l.promote = append(l.promote, d.path)
		default: // the same as in the global bank: nothing to promote
			l.branchDocs = append(l.branchDocs, l.docs[i*3+1])
		}
	}
	return l
}
