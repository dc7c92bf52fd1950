package ui_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
)

// Any query string on any page, and any form on any change, gets an
// answer below 500 (a clear refusal, never a panic or an internal error).
func FuzzRequests(f *testing.F) {
	standInRenderer(f) // so that skill/graph.svg?id=release draws
	fx := newFixture(f, ui.Options{})
	fx.seed()
	pages := []string{"", "docs", "doc", "history", "diff", "revert", "search", "memories", "memories/delete", "memories/trash", "memories/restore", "skills", "skill", "skill/graph.svg"}
	for _, q := range []string{"", "scope=global&path=architecture.md", "scope=branch&branch=feature%2Flogin&path=progress.md&version=1",
		"offset=-1&limit=1000", "q=%00%ff&tags=a,,b&scope=branch", "id=mem-1&from=0&to=99999999999999999999", "path=..%2F..&scope=global"} {
		for i := range pages {
			f.Add(uint8(i), q, false)
			f.Add(uint8(i), q, true)
		}
	}
	f.Fuzz(func(t *testing.T, page uint8, query string, post bool) {
		if strings.ContainsAny(query, "# \r\n") {
			return // not a query string a client can send
		}
		method := http.MethodGet
		var body *strings.Reader
		target := "/ui/" + pages[int(page)%len(pages)]
		if post {
			method, body = http.MethodPost, strings.NewReader(query)
		} else {
			target += "?" + query
			body = strings.NewReader("")
		}
		if _, err := url.ParseRequestURI(target); err != nil {
			return // the server refuses it before any handler
		}
		req := httptest.NewRequest(method, target, body)
		req.Host = "localhost"
		if post {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		rec := httptest.NewRecorder()
		fx.h.ServeHTTP(rec, req)
		if rec.Code >= 500 {
			t.Fatalf("%s %s: %d %s", method, target, rec.Code, rec.Body.String())
		}
	})
}
