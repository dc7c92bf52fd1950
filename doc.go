// Package mnemobank is an embeddable memory for AI coding agents: correct,
// durable and safe to share between agents, processes and machines.
//
// The module is a set of independent packages:
//
//   - [github.com/mnemobank/mnemobank/jsonpatch]: strict, atomic RFC 6902
//     JSON Patch with precise, index-carrying errors: its own engine, which
//     edits only what a patch touches (evanphx/json-patch is its reference
//     in tests and benchmarks).
//   - [github.com/mnemobank/mnemobank/memorybank]: branch and global memory
//     banks of documents (memory_document_v2 JSON and Markdown) over a pluggable
//     versioned Store: full or patch writes, schema validation, read_context,
//     search, history with undo; beside it, in packages of their own, the
//     agent tools (memorybank/tools), confirmed write plans (memorybank/plan),
//     the MEMORY.md format (memorybank/memorymd) and Claude's memory tool
//     (memorybank/claudememory).
//   - [github.com/mnemobank/mnemobank/skillgraph]: a language model's edits
//     to a skill graph, validated and applied all-or-nothing.
//   - [github.com/mnemobank/mnemobank/memories]: learned memories in
//     memories.md: add, search, list, delete, prompt injection, shared across
//     git worktrees.
//
// None of the packages does I/O of its own: storage and transport are small
// interfaces the host implements, with in-memory defaults and file-backed
// implementations in subpackages.
package mnemobank
