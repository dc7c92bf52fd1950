// Package lcmemory connects a memory bank and the learned memories to
// langchaingo (github.com/tmc/langchaingo), the Go agent framework:
//
//   - [BankRetriever] is a schema.Retriever over the bank's full-text
//     search (Bank.SearchTextPage): each hit is read and becomes a
//     schema.Document whose PageContent is the document's text (for a
//     JSON document, its "content" member as JSON) and whose Metadata
//     holds scope, branch, path, title, tags, version, lastModified and
//     score; Document.Score is the score too.
//   - [MemoriesRetriever] is a schema.Retriever over the memories' search
//     (memories.Manager.Find): PageContent is the memory's content,
//     Metadata its id, title, tags, date, score and substring.
//   - [Memories] is a schema.Memory that gives a chain the learned
//     memories relevant to its input, under the memory key "memories":
//     the memories package's own injection (Manager.InjectionFor, what
//     memories.Inject puts in front of a prompt: the memories sharing the
//     input's words first, then the newest, whole entries within the
//     Manager's caps).
//   - [Tools] gives the bank's tools (memorybank/tools, through
//     memorybank/tools/toolcall) as langchaingo tools for its agents.
//
// Decisions where langchaingo leaves a choice:
//
//   - Token budget: a retriever returns whole documents, best first, while
//     their PageContent fits MaxTokens (counted by the TokenCounter); a
//     document that does not fit is left out and smaller ones after it may
//     still be taken. Nothing is cut mid-document, so a document larger
//     than the budget is never returned.
//   - A document deleted between the search and its read is skipped.
//   - Memories.SaveContext and Clear change nothing: memories are learned
//     deliberately (Manager.Add, or a tool), not every exchange, and
//     clearing a chain's memory must not delete what the agent learned.
//   - A langchaingo tool takes one string: the tool's arguments as a JSON
//     object. Its description ends with the tool's JSON Schema, since
//     langchaingo's agents declare a single string argument ("__arg1") to
//     the model. A failed call is answered with the error's JSON
//     {"code","message","details"} as the observation, not returned as an
//     error, because langchaingo's executor stops the whole run on a tool
//     error; the model reads the code and the hint and retries. Only a
//     cancelled context is returned as an error.
//
// The package does no I/O of its own: the Bank, the Manager and the LLM
// come from the host. cmd/langchain-agent is a runnable agent using all
// three.
package lcmemory
