package ui

import (
	"html/template"

	"github.com/mnemobank/mnemobank/memorybank"
)

// ForgetBanks drops the banks page's counting, so a benchmark can measure
// a recount.
func (h *Handler) ForgetBanks() { h.forgetBanks() }

// RenderContent is the document page's view of d's content.
func RenderContent(d *memorybank.Document) template.HTML { return renderContent(d) }
