package render_test

import (
	"fmt"
	"strings"

	"golang.org/x/net/html"
)

// activeElements load or run something in a page.
var activeElements = map[string]bool{
	"script": true, "iframe": true, "frame": true, "object": true, "embed": true,
	"svg": true, "math": true, "form": true, "style": true, "meta": true,
	"base": true, "link": true, "applet": true, "template": true,
}

// urlAttrs are the attributes whose value a browser follows or loads.
var urlAttrs = map[string]bool{
	"href": true, "src": true, "action": true, "formaction": true,
	"data": true, "xlink:href": true, "poster": true, "background": true,
	"srcset": true, "lowsrc": true, "dynsrc": true, "ping": true,
}

// executableMarkup parses HTML the way a browser would and returns a
// description of the first thing in it that could run script, or "" when
// there is none. Text that merely mentions "javascript:" or "<script>" is
// fine: it is text.
func executableMarkup(out string) string {
	z := html.NewTokenizer(strings.NewReader(out))
	for {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			if activeElements[tok.Data] {
				return fmt.Sprintf("element <%s>", tok.Data)
			}
			for _, a := range tok.Attr {
				key := strings.ToLower(a.Key)
				if a.Namespace != "" {
					key = a.Namespace + ":" + key
				}
				if strings.HasPrefix(key, "on") {
					return fmt.Sprintf("handler %s= on <%s>", key, tok.Data)
				}
				if key == "srcdoc" || key == "style" && strings.Contains(strings.ToLower(a.Val), "url(") {
					return fmt.Sprintf("attribute %s on <%s>", key, tok.Data)
				}
				if urlAttrs[key] && unsafeScheme(a.Val) {
					return fmt.Sprintf("%s=%q on <%s>", key, a.Val, tok.Data)
				}
			}
		}
	}
}

// unsafeScheme reports a URL a browser would run or render as a document:
// javascript:, vbscript: or data:, after the whitespace and control
// characters browsers ignore in a scheme are removed.
func unsafeScheme(v string) bool {
	clean := strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToLower(v))
	for _, s := range []string{"javascript:", "vbscript:", "data:"} {
		if strings.HasPrefix(clean, s) {
			return true
		}
	}
	return false
}
