package ui

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strconv"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/ownrevert"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// confirmRevert asks before a revert.
func (h *Handler) confirmRevert(w http.ResponseWriter, r *http.Request) error {
	if err := h.refuseReadOnly(); err != nil {
		return err
	}
	q := r.URL.Query()
	doc, err := parseDoc(q)
	if err != nil {
		return err
	}
	v, err := parseVersion("version", q.Get("version"))
	if err != nil {
		return err
	}
	current, err := h.currentVersion(r.Context(), doc)
	if err != nil {
		return err
	}
	if _, err := history.ReadVersion(r.Context(), h.opts.Bank, doc.read(), v); err != nil {
		return err
	}
	// A token that may not make this revert is told before it confirms.
	if _, err := h.checkRevert(r, memorybank.RevertRequest{Scope: doc.Scope, Branch: doc.Branch, Path: doc.Path, ToVersion: v}); err != nil {
		return err
	}
	fields := doc.values()
	fields.Set("version", strconv.FormatInt(v, 10))
	fields.Set("ifVersion", strconv.FormatInt(current, 10))
	return h.render(w, r, http.StatusOK, "confirm", "Revert "+doc.Path, "banks", confirmation{
		Class:    "revert",
		Action:   Prefix + "revert",
		CSRF:     h.csrfToken(r, Prefix+"revert"),
		Question: fmt.Sprintf("Revert %s (%s) to version %d?", doc.Path, doc.BankName(), v),
		Detail: fmt.Sprintf("The content of version %d is written as a new version (the history keeps every version); the history records the actor %q.",
			v, actor(r, Actor)),
		Fields: hiddenFields(fields),
		Button: fmt.Sprintf("Revert to version %d", v),
		Links:  []link{{"See the changes this undoes", doc.DiffURL(v, current)}},
		Cancel: doc.HistoryURL(),
	})
}

// revert writes an earlier version as the next one, only if the document
// is still at the version the confirmation showed.
func (h *Handler) revert(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	doc, err := parseDoc(f)
	if err != nil {
		return err
	}
	v, err := parseVersion("version", f.Get("version"))
	if err != nil {
		return err
	}
	var ifVersion int64
	if s := f.Get("ifVersion"); s != "" && s != "0" {
		if ifVersion, err = parseVersion("ifVersion", s); err != nil {
			return err
		}
	}
	req, err := h.checkRevert(r, memorybank.RevertRequest{Scope: doc.Scope, Branch: doc.Branch, Path: doc.Path,
		ToVersion: v, IfVersion: ifVersion, Actor: actor(r, Actor)})
	if err != nil {
		return err
	}
	res, err := history.Revert(r.Context(), h.opts.Bank, req)
	if errors.Is(err, memorybank.ErrConflict) {
		return &httpError{status: http.StatusConflict, err: err,
			msg: fmt.Sprintf("%s changed since the confirmation was shown (%v); nothing was reverted. Open its history again.", doc.Path, err)}
	}
	if err != nil {
		return err
	}
	h.forgetBanks()
	h.log.Info("ui: reverted", "scope", doc.Scope, "branch", doc.Branch, "path", doc.Path, "to", v, "version", res.Version)
	http.Redirect(w, r, doc.HistoryURL(), http.StatusSeeOther)
	return nil
}

// checkRevert applies the revert rule of package ownrevert to r's token:
// a write token reverts only versions its own name wrote, pinned to the
// version checked; an admin token, or a viewer without tokens, anything.
func (h *Handler) checkRevert(r *http.Request, req memorybank.RevertRequest) (memorybank.RevertRequest, error) {
	id, ok := identity(r)
	if !ok {
		return req, nil
	}
	req, err := ownrevert.Check(r.Context(), h.opts.Bank, id, req)
	if errors.Is(err, ownrevert.ErrDenied) {
		return req, forbidden(http.StatusForbidden, "403: %v", err)
	}
	return req, err
}

// confirmation is the page asking before a change.
type confirmation struct {
	Class, Action, Question, Detail, Button string
	CSRF                                    string // of the form posting to Action
	Fields                                  []field
	Links                                   []link
	Cancel                                  string
}

type field struct{ Name, Value string }

type link struct{ Text, URL string }

func hiddenFields(v url.Values) []field {
	var out []field
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range v {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, field{k, v.Get(k)})
	}
	return out
}

// currentVersion is the stored version of doc, 0 when it does not exist.
func (h *Handler) currentVersion(ctx context.Context, doc ref) (int64, error) {
	d, err := h.opts.Bank.Read(ctx, doc.read())
	if errors.Is(err, memorybank.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	return d.Version, nil
}
