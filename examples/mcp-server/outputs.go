package main

// bankOutputSchemas are the output schemas of the memory bank tools: every
// result is a JSON object; these name its main properties without closing
// it, so a client can rely on them and the bank may add more.
var bankOutputSchemas = map[string]any{}
