// Package foreign reads the memories other tools keep and imports them into
// a memory bank's global bank, with the plan, conflict policies and report
// of an archive import ([archive.Policy], [archive.Action]).
//
// Each source has a reader, a function from the tool's files to [Doc]s,
// and [Import] writes Docs into a Bank:
//
//   - [ReadClaudeCode]: Claude Code's memory of a project: every CLAUDE.md
//     (CLAUDE.local.md, a person's own, only with
//     DirOptions.IncludeLocal) under the project directory, .claude/CLAUDE.md
//     and .claude/rules/**/*.md, into "claude-code/" (".claude" becomes
//     "claude"); and a Claude Code auto-memory folder (the directory
//     ~/.claude/projects/<project>/memory/ holding the MEMORY.md index and
//     its topic files), into "claude-code/memory/". Front matter (a topic
//     file's name, description and type) becomes the document's metadata.
//   - [ReadMCPMemory]: the JSON Lines knowledge graph of the MCP reference
//     memory server (@modelcontextprotocol/server-memory): one Markdown
//     document per entity at "mcp-memory/<entity>.md", its type and
//     observations, its relations out and in.
//   - [ReadMemoryStore]: the full listing of an Anthropic memory store (the
//     JSON of a List memories response with view=full, or an array of its
//     memory objects), each memory into the folder "memories/" that the
//     Claude memory tool backend (claudememory.BankFiles) uses, byte for
//     byte. [ExportMemoryStore] writes that shape back.
//   - [ReadMarkdownDir]: a folder of Markdown notes (basic-memory,
//     Obsidian), into "notes/", each note byte for byte: its front matter
//     stays where its author wrote it, and the bank reads title and tags
//     from it.
//
// The package opens nothing itself: a file source is an io.Reader and a
// directory source an fs.FS, both opened by the program. A program gives a
// directory as (*os.Root).FS, so that a symbolic link that leaves it is
// refused by the file system itself; mnemobank's also opens files without
// blocking (a FIFO put in place of a listed file cannot hang it). Tests
// and hosts without a disk pass a testing/fstest.MapFS.
//
// The directory readers follow a symbolic link to a file inside the
// directory as that file, never descend into a link to a directory, refuse
// a link the fs.FS will not resolve, refuse names that would not be valid
// bank paths, and check every bound of [Limits] before reading what it
// bounds: a violation is a *SourceError naming the entry, wrapping
// ErrLimit, ErrUnsafePath or ErrFormat, and nothing is written. They never
// read a bank: a memory-bank folder (global-memory-bank, branch-memory-bank)
// and every directory of DirOptions.Exclude met in a walk are left out, and
// a source that is the bank (Exclude holds ".") is ErrExcluded. Every file left out
// that a user could have expected (an attachment, a canvas, CLAUDE.local.md,
// the bank) is returned as a Doc with NotRead set, and [Import] lists it in
// the plan as [NotRead], with why.
package foreign
