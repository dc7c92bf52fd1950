package tools

// Guide says once what the tools of For share, so that their descriptions
// (sent to the model on every turn) need not repeat it: a host puts it in
// its instructions or system prompt, as the MCP server does.
const Guide = `branch is the current git branch name (the bank does not detect it; a host may fill an omitted one and say so), required with scope branch; ` +
	`scope all is the global bank and branch's (search_documents without branch: every branch bank). Unknown arguments are refused. ` +
	`A document's path is relative to its bank. A .json path holds a memory_document_v2 envelope ` +
	`{schema, metadata: {title, documentType, tags}, content}, validated by its documentType ` +
	`(branch_context, active_context, progress, system_patterns; any other: a non-empty object); other paths hold text. ` +
	`patches are RFC 6902 operations on the whole envelope, e.g. {"op":"add","path":"/content/nextSteps/-","value":"x"}; ` +
	`/schema and metadata id, path, createdAt, version and lastModified are the bank's. ` +
	`ifVersion: act only if the document's version is still that one, else CONFLICT with the current version. ` +
	`Listings page: limit, offset and maxTokens bound an answer, "more" counts the rest and "hint" says how to get it. ` +
	`A failed call changes nothing; its code is NOT_FOUND (details list the documents that exist), INVALID_ARGUMENT, ` +
	`INVALID_PATCH, PATCH_TEST_FAILED, CONFLICT, VALIDATION_FAILED, LIMIT_EXCEEDED or INTERNAL, and its message says how to fix the call.`
