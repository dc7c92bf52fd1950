package ui

import (
	"fmt"
	"html/template"
	"net/http"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
)

// showLimit bounds the part of a document a page shows: the Bank's limit
// of a write (Options.MaxDocumentBytes), so every document a write could
// store is shown whole. A larger one (placed in the folder by hand, or
// imported before imports obeyed the limit) is shown up to it, as plain
// text after a note, with a link to download it whole, so that a page
// costs about this much whatever the document.
func (h *Handler) showLimit() int { return h.opts.Bank.Options().MaxDocumentBytes }

// RawURL is the download of the document's whole text.
func (r ref) RawURL() string { return Prefix + "raw?" + r.values().Encode() }

// docText is what a page shows of d and a download gives: a text
// document's text, a JSON document's canonical envelope.
func docText(d *memorybank.Document) []byte {
	if d.Format == memorybank.FormatJSON {
		return d.Content
	}
	return []byte(d.Text())
}

// renderTruncated shows the first limit bytes of a document too large to
// show whole (cut at a line, or at least a character, boundary) after a
// note saying so.
func renderTruncated(text []byte, limit int) template.HTML {
	cut := limit
	for cut > 0 && !utf8.RuneStart(text[cut]) {
		cut--
	}
	if nl := strings.LastIndexByte(string(text[:cut]), '\n'); nl > cut/2 {
		cut = nl + 1
	}
	return render.PlainText(text[:cut], fmt.Sprintf(
		"This document is %d bytes, too large to show whole: the first %d bytes are shown as plain text. Download it to read all of it.",
		len(text), cut))
}

// raw serves a document's whole text as a download.
func (h *Handler) raw(w http.ResponseWriter, r *http.Request) error {
	doc, err := parseDoc(r.URL.Query())
	if err != nil {
		return err
	}
	d, err := h.opts.Bank.Read(r.Context(), doc.read())
	if err != nil {
		return err
	}
	ctype := "text/plain; charset=utf-8"
	if d.Format == memorybank.FormatJSON {
		ctype = "application/json"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Disposition", fmt.Sprintf("attachment; filename=%q", sanitizeFilename(path.Base(d.Path))))
	_, err = w.Write(docText(d))
	return err
}

// sanitizeFilename keeps a download's name to printable ASCII without
// quotes or backslashes.
func sanitizeFilename(s string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x20 || r > 0x7e || r == '"' || r == '\\' {
			return '_'
		}
		return r
	}, s)
}
