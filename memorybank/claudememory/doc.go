// Package claudememory is a backend for Claude's memory tool
// (memory_20250818) over a memory bank: a Go agent host that talks to the
// Messages API hands each memory tool call to a Handler and sends back the
// text it returns.
//
//	h := claudememory.New(claudememory.BankFiles(bank), nil)
//	text, err := h.Handle(ctx, toolUse.Input) // the tool_use block's input
//	if err != nil {
//		text = err.Error() // send with is_error: true
//	}
//
// The model issues view (a directory listing two levels deep with sizes,
// or a file with line numbers and an optional view_range), create,
// str_replace, insert, delete and rename on paths under /memories. Results
// and error messages are those of the local-filesystem backend of
// Anthropic's Python SDK (the TypeScript SDK's words a few of them
// differently), which the model knows: "The path
// /memories/x does not exist. Please provide a valid path.", "No
// replacement was performed, old_str `...` did not appear verbatim in
// ...", the line numbers of multiple matches, "Invalid `insert_line`
// parameter: 9. It should be within the range [0, 3].", "The destination
// ... already exists". Where those backends have no message (limits,
// refused names, races) the message says what was wrong and what to do.
//
// # Storage
//
// A Handler runs on Files: text files under paths relative to /memories,
// each with a version, written only by compare-and-swap. BankFiles keeps
// them as text documents of a memorybank.Bank's global bank under
// BankPrefix ("memories/"), so they are ordinary documents: read by
// read_context, found by search, on any Store (memory, directory,
// PostgreSQL). Directories are implicit: a directory exists while a file
// lies under it, so a directory emptied by delete or rename disappears, and
// a listed directory's size is the total size of its files. BankFiles
// neither lists nor touches paths ending in .json in any letter case
// (".JSON" too), which the bank keeps as JSON documents (ErrInvalidPath),
// and reports a name that collides with another file's up to letter case
// or Unicode normalisation as ErrExists (ErrNotFile for a file where a
// directory would be), naming the other by its /memories path.
//
// # Concurrency
//
// Several agents, in one process or many, may share one memory directory.
// str_replace and insert read the text and its version and write only if
// the version is still current; when another writer got there first, the
// edit is computed again on the latest text (up to Options.MaxRetries
// times), so no update is lost. If the old text a str_replace needs is
// gone, or an insert line is now out of range, the command fails and says
// the file changed meanwhile. create never overwrites. rename copies each
// file create-only and then deletes its source at the version copied: a
// crash between the two leaves the file in both places, never in neither.
// A directory delete or rename keeps files another writer changed
// meanwhile and names them (ErrPartial).
//
// # Paths and limits
//
// A path is /memories or /memories/ followed by a valid Store key
// ([memorybank.ValidateKey]) with no segment starting with a dot; "." and
// ".." segments (and their Unicode look-alikes), percent-encoded
// separators, backslashes and paths elsewhere are refused, never
// normalised, so no name reaches outside /memories and one file has one
// name. There are no links in Files, so nothing can point outside either.
// Handle refuses input that is not UTF-8 text (a byte that is not UTF-8, a
// \u escape of half a surrogate pair) as ErrInvalidInput: decoding would
// read it as U+FFFD, and the path would name another file.
// Limits (Options): a file holds at most 256 KiB; a directory at most 1000
// entries; /memories at most 10000 files; a path at most 512 bytes after
// "/memories/"; a tool input at most 4 times the file limit. A view result
// is at most 32 KiB: a longer file view ends with a note naming the
// view_range of the next lines, a longer listing with a note to view a
// subdirectory. Each limit is checked before anything is written.
//
// # Differences from the reference backends
//
// insert keeps "\r" and other separators inside their line (the Python
// backend's splitlines would turn them into "\n"), keeps a final blank
// line, and inserts an empty line for an empty insert_text (the Python
// backend drops a final blank line then);
// an empty old_str, a view_range starting past the end of the file and a
// view_range ending before its start are errors rather than empty results;
// "/memoriesX" is refused rather than read as "/memories/X".
//
// # Testing
//
// The package's tests replay the reference backend's recorded outputs
// (testdata/reference_python.json: the outputs of the Python SDK's
// BetaLocalFilesystemMemoryTool, anthropics/anthropic-sdk-python at the
// commit the file names, for testdata/reference_inputs.json, recorded once
// on a temporary directory) on an in-memory Files and on BankFiles over
// memorybank.MemStore, pin where the TypeScript SDK's backend differs
// (testdata/reference_typescript.json, recorded by
// testdata/record_reference_ts.cjs), race str_replace and insert in two goroutines and
// in two processes sharing an fsstore directory, and fuzz Handle.
package claudememory
