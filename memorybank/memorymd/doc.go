// Package memorymd reads and edits MEMORY.md, the Markdown memory file that
// an agent and its user share: a machine block the agent maintains and a
// user block only the user edits.
//
//	# Project memory
//	<!-- MACHINE_BLOCK_START -->
//	## Current Focus
//	退款功能
//	<!-- MACHINE_BLOCK_END -->
//	<!-- USER_BLOCK_START -->
//	My own notes.
//	<!-- USER_BLOCK_END -->
//
// Markers are recognised on a line of their own (surrounding spaces and the
// spacing inside the comment are free); a marker mentioned inside other
// text is just text. A document has at most one block of each kind, each
// opened and closed once, neither inside the other; anything else is a
// [*BlockError]. Sections of the machine block are its level-2 ATX headings
// ("## Name") outside fenced code blocks.
//
// [Parse] gives an immutable [File]; [File.WithSection] and
// [File.WithMachineBlock] return a new File in which every byte outside the
// machine block is as it was, line endings (LF or CRLF) included. The
// package is pure: it does no I/O and knows nothing of where the text is
// stored.
package memorymd
