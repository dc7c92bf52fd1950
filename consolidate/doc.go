// Package consolidate keeps an agent's memory true as it piles up: it
// gathers what could be tidied (Gather), and applies a plan a person
// confirmed (Apply), all or nothing, every step undoable (Undo).
//
// # Candidates
//
// Gather reads the memories of a memories.Manager and the documents of a
// memorybank.Bank and reports four kinds of candidates, each with the
// texts and versions of the entries it names:
//
//   - duplicate: a cluster of memories, or of documents of one bank, that
//     say nearly the same thing, by the near-duplicate detector of package
//     memories (memories.NearDuplicates), whose threshold was measured on
//     labelled pairs.
//   - conflict: two entries on one subject that disagree: the same title
//     (case and accents folded) with different texts, or texts that would
//     be duplicates but for the numbers they state. Differs lists the
//     words only one of them holds.
//   - stale: a memory neither returned by a search or an injection nor
//     written in Options.StaleAfter (90 days by default). Use is what
//     memories.Options.Usage records; a memory never returned counts from
//     its date.
//   - promote: a document of the bank of a branch that has been merged
//     into the default branch, absent from the global bank or different
//     there. Which branches are merged is the host's to say
//     (Options.MergedBranches, from git); this package never runs git.
//
// # Plans
//
// A Plan says what to do: merge these entries into this text, retire
// these, promote these. Each step carries the version of every entry it
// was built on (a memory's memories.Fingerprint, a document's version).
// Nothing is changed without a Plan, and hosts show a plan to a person
// (Plan.Describe renders each change as a diff) before they Apply it.
//
// Apply checks every version first and refuses the whole plan with a
// *ChangedError (ErrChanged) if any entry changed meanwhile. The memory
// steps are one memories.Batch: one compare-and-swap rewrite of the file,
// the merged and retired memories copied to the trash first. Document
// steps are writes and deletes conditional on the versions (IfVersion);
// documents are separate keys, so they cannot change in one write: if
// one fails, the steps already done are undone before Apply returns, so
// the plan lands whole or not at all as far as a reader after Apply can
// tell.
//
// Undo takes what Apply returned (Applied, JSON-serialisable so a host can
// keep it) and restores every entry: memories from the trash, documents
// from their history (history.Revert), promoted documents deleted (or
// reverted when the global bank had one).
//
// Merging memories writes a new memory (the merged text, the union of the
// members' tags, today's date) and removes the members; merging documents
// writes the merged text into the newest member and deletes the others.
// A merged or retired entry is thus gone from the file or the bank, so
// injection and read_context, which read what is there, never show it;
// until a plan is applied, memory injection shows one member per
// duplicate cluster (see memories.Manager.InjectionFor).
//
// DefaultPlan is the plan the command line applies without a model: each
// duplicate cluster merged into its newest text with the union of the
// tags; conflicts, stale entries and promotions are left for a person to
// decide, listed only.
package consolidate
