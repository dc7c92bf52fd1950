// Package agentmemory is an embeddable memory for AI coding agents: correct,
// durable and safe to share between agents, processes and machines.
//
// The module is a set of independent packages:
//
//   - [github.com/agentmemory/agentmemory/jsonpatch]: strict, atomic RFC 6902
//     JSON Patch with precise, index-carrying errors, over evanphx/json-patch.
//   - [github.com/agentmemory/agentmemory/memorybank]: branch and global memory
//     banks of documents (memory_document_v2 JSON and Markdown) over a pluggable
//     versioned Store: full or patch writes, schema validation, read_context,
//     tag search, rules, MCP-ready tool definitions and confirmed write plans.
//   - [github.com/agentmemory/agentmemory/skillgraph]: a language model's edits
//     to a skill graph, validated and applied all-or-nothing.
//   - [github.com/agentmemory/agentmemory/memories]: learned memories in
//     memories.md: add, search, list, delete, prompt injection, shared across
//     git worktrees.
//
// None of the packages does I/O of its own: storage and transport are small
// interfaces the host implements, with in-memory defaults and file-backed
// implementations in subpackages.
package agentmemory
