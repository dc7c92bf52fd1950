// Package plan checks and applies the structured outputs an agent produces
// around a Markdown memory bank (MEMORY.md with its details/ files), over a
// [memorybank.Bank]:
//
//   - select_files: which files to load for a task, within a budget (5
//     files and 500 lines by default), with risk alerts. [SelectFiles]
//     makes one from the store, ordered by the caller's relevance, then
//     fewer lines, then newer; [DecodeFileSelection] and [CheckSelection]
//     hold a model's own output to its schema and to the true counts in
//     the store.
//   - memory_ops: the writes the agent plans, which the user confirms
//     before anything changes. [DecodeWritePlan] checks one,
//     [WritePlan.Confirmation] renders it for the user (zh, en or ja),
//     [ParseAnswer] reads the answer, and [Apply] applies it.
//
// The JSON Schemas of both outputs are embedded ([Schema]) so a host can
// give them to a model; decoding reports every problem by JSON Pointer in
// an [*Error].
//
//	sel, err := plan.SelectFiles(ctx, bank, root, candidates, nil)
//	wp, err := plan.DecodeWritePlan(modelOutput)
//	text, _ := wp.Confirmation(memorybank.English)
//	ok, err := plan.ParseAnswer(userAnswer)
//	res, err := plan.Apply(ctx, bank, plan.ApplyRequest{Root: root, Plan: wp, Confirmed: ok})
//
// Every function reads and writes only through the Bank's exported methods,
// so a plan obeys the Bank's rules (paths, limits, compare-and-swap).
//
// Rules where the formats leave a choice:
//
//   - Root. The formats' paths are relative to "memory-bank/". Here they are
//     relative to a [Root]: the branch bank of one branch, or the global
//     bank. Markdown files are the Bank's text documents; .json paths are
//     its JSON documents. Paths follow the Bank's rules
//     ([memorybank.ValidatePath]: relative, no "..", no segment starting
//     with ".").
//   - Lines. A file's lines are those of the text an agent reads: the text
//     of a text document without the front matter the Bank keeps, or the
//     indented JSON of a JSON document as stored ([CountLines]: a last line
//     without a line ending counts).
//   - Selection. Candidates are taken greedily in order, skipping any that
//     would pass a limit. Missing candidates are an error, not skipped.
//   - Schemas are strict: unknown fields are problems (a misspelt field is
//     the usual model mistake); create needs reason, update needs changes,
//     operations is non-empty, riskAlerts is optional.
//   - Content. The memory_ops operations describe changes but do not carry
//     them. [Operation].Content, an added optional field, carries the text;
//     changes stays the description the user confirms.
//   - Applying. Operations are grouped per file and each file is written
//     once with compare-and-swap; every file is checked before any is
//     written. The user block of a MEMORY.md is never written or deleted;
//     an update without block of a document with blocks may change only its
//     machine block (see package memorymd).
//   - Confirmation text: Chinese by default (the format's own language),
//     English and Japanese in the same shape. Answers: see [ParseAnswer].
package plan
