package ui

// ForgetBanks drops the banks page's counting, so a benchmark can measure
// a recount.
func (h *Handler) ForgetBanks() { h.forgetBanks() }
