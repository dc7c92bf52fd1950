package mcpserver

import (
	"strconv"
	"unicode/utf8"
)

// maxQuotedInput bounds how much of a client's input an error message
// quotes: a 1 MB URI is not echoed back.
const maxQuotedInput = 100

// quoteInput quotes s for an error message: at most maxQuotedInput bytes
// of it (cut at a character boundary), then how long it was.
func quoteInput(s string) string {
	if len(s) <= maxQuotedInput {
		return strconv.Quote(s)
	}
	cut := maxQuotedInput
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "... (" + strconv.Itoa(len(s)) + " bytes)"
}
