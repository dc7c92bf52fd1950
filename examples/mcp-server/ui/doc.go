// Package ui is mnemobank's browser viewer: server-rendered pages under
// /ui/ that let a person see, search, compare and undo what agents
// remembered in a memorybank.Bank and a memories file. Pages are
// html/template; the templates, one CSS file and one small script (the live
// feed) are embedded, so nothing is fetched from the network. New parses
// the templates and starts nothing; the live feed's watcher runs only while
// an event stream is open.
//
// # Pages and their element ids
//
// Each list shows 50 rows (?limit= up to 100, ?offset= up to 1,000,000) with
// links #prev and #next.
//
//	/ui/                         banks: #banks (global and branch banks, counts, last change)
//	/ui/docs?scope=&branch=      a bank's documents: #documents
//	/ui/doc?scope=&branch=&path= a document: #doc-meta, #doc-version, #doc-tags, #doc-content,
//	                             #history-link; &version=N shows a kept version (#old-version)
//	/ui/history?...&path=        #history (rows .entry with data-version; .diff-link, .revert-link),
//	                             #diff-form
//	/ui/diff?...&from=&to=       #diff (rows .add, .del, .same); #diff-note when the changed part
//	                             is past render.MaxDiffLines and shown removed and added whole
//	/ui/revert?...&version=      confirmation #confirm: form.revert, #confirm-button
//	/ui/search?q=&scope=&branch=&tags=  #search-form, #results (li.hit, p.snippet)
//	/ui/memories?q=&offset=      #memory-search-form, #memories (li.memory with data-id; .delete-link)
//	/ui/memories/delete?id=      confirmation: form.delete
//	/ui/memories/trash           #trash (.restore-link)
//	/ui/memories/restore?id=     confirmation: form.restore
//	/ui/skills                   #skills
//	/ui/skill?id=                #graph (img of /ui/skill/graph.svg?id=), #skill-md; when the
//	                             graph cannot be drawn, #graph-error and #graph-dot (its DOT) instead
//	/ui/events                   the live feed (server-sent events "change")
//	/ui/signin                   with tokens: form#signin (GET), the token posted to it (POST)
//	/ui/signout                  POST from the header's form.signout: ends the browser's session
//
// Every page has #feed, the live feed's list, and #nav; a read-only viewer,
// and a page shown to a read token, shows #read-only; with tokens, #user
// names the token and its scope. An error page shows #error with
// data-status.
//
// # Decisions
//
// Actor: with tokens, a change from the viewer is recorded under the
// token's name, as the MCP server records an agent's. Without tokens a
// revert is recorded with the actor "person:ui" (Actor), a name no
// agent's client name takes, so the history tells a person's undo from an
// agent's write, and a consolidation with "ui". The reason is history's
// default, "revert to version N". The revert form carries the version the
// confirmation showed (ifVersion): if an agent wrote meanwhile, nothing is
// reverted and the person is told (409).
//
// Scopes: with tokens (Options.Auth or Options.Token) each route needs the
// scope the MCP tool doing the same needs, and a refusal (403) names the
// scope needed and the token's:
//
//	read   every page above, the pictures, the live feed, the style sheet and script
//	write  revert (its confirmation page and POST; revert_document), memories/delete
//	       (delete_memory), memories/restore (restore_memory), the POST of
//	       memories/consolidate (apply_consolidation)
//	admin  a revert that undoes a version another name wrote (package ownrevert:
//	       a write token reverts only its own writes), also told on the
//	       confirmation page
//
// A page shows the links and forms of the changes its token may make, and
// none to a read token. Without tokens every change is allowed (unless
// read-only), as before tokens existed.
//
// Changes: revert, delete and restore are each a GET confirmation page and a
// POST from its form; nothing changes on a GET. Every POST is checked, in
// this order, before its fields are read: the viewer is not read-only (403);
// the token has the scope (403); a browser's Sec-Fetch-Site is same-origin
// (or none), and its Origin, when sent, is this host (403); the body is at
// most 8 KiB; the form's CSRF token is valid (403). A CSRF token is the
// Unix time it was made and an HMAC-SHA-256, under a random key made by
// New, of that time, the path the form posts to and the session it was
// served to (the session cookie, or the hash of a bearer token; none
// without tokens): it is refused by another process (a restarted server),
// for another action, in another session (another person's, or the same
// person's after signing in again), or after 12 hours.
//
// Requests: every response carries a Content-Security-Policy without inline
// script or style (default-src 'self'; script-src 'self'; style-src 'self';
// img-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors
// 'none'; form-action 'self'), X-Content-Type-Options: nosniff,
// Referrer-Policy: same-origin (with no-referrer a browser sends "Origin:
// null" on every form POST, which the Origin check must refuse),
// X-Frame-Options: DENY and Cache-Control: no-store. A skill graph's SVG
// has its own policy (default-src 'none';
// style-src 'unsafe-inline'): it may style itself and nothing else. The Host
// header must name a loopback host (localhost, 127.0.0.1, ::1) or one of
// Options.Hosts, otherwise 421: a page of another site whose name was
// pointed at this address (DNS rebinding) is refused. A request a browser
// says another site's page made (Sec-Fetch-Site cross-site or same-site)
// is refused (403) unless it is a GET navigation to a page: another site
// may link here, but not load a picture, a script or the live feed. Everything shown is
// escaped by html/template; Markdown is rendered and sanitised and JSON
// shown as a tree by package render (a JSON document render.JSON refuses,
// nested past 64 levels or over 1 MiB, is shown as its escaped text after a
// note saying why, never as an error page); the live feed's script sets
// only text and links into /ui/.
//
// Tokens: with Options.Auth (the HTTP server's Authenticator: every
// personal token and the shared one) or Options.Token (the shared token
// alone), every request (pages, assets, the feed) needs a token the
// Authenticator accepts: as "Authorization: Bearer <token>"; from the
// sign-in form at /ui/signin (POST, from this viewer's own page only, so
// another site cannot sign a person in under its token); or once as
// ?token=<token> on a GET, which redirects to the same address without it
// (so it leaves the address bar and the browser's history). Signing in
// sets an HttpOnly, SameSite=Strict cookie on /ui/, for 7 days:
// "1.<time>.<nonce>.<SHA-256 of the token>.<HMAC>", so it names the token
// without holding it and cannot be made without the key. Every request
// of a session asks the Authenticator about the token again (by its hash,
// tokens.Authenticator.VerifyHash), so a revoked or expired token's
// session ends within the Authenticator's cache (2 s), on every server,
// and its cookie is cleared; failed tokens count towards the same limit
// per address as the MCP endpoint's (then 429). The key is derived from
// Options.Token when there is one, so sessions survive a restart and hold
// on every server with the same shared token; without it the key is
// random, and a session holds only on the server that made it, until it
// restarts. Signing out clears the cookie in that browser; the token
// stays valid until revoked. A session cookie is not accepted by the MCP
// endpoint. Without tokens, only loopback host names are served (the host
// program refuses to listen elsewhere).
//
// Limits: a query string of at most 8 KiB (414), a form of 8 KiB, a search
// of 4 KiB (memories: 1 KiB) and 20 tags, paths and branches as the bank
// validates them, 16 open event streams (503 beyond), 50 events per change
// signal (the rest counted in one "more" event), a diff of at most 1 MiB or
// 20,000 lines a side, 10 s to draw a skill graph. The banks page counts
// every bank at most once a second and shows that counting meanwhile.
//
// Read-only (Options.ReadOnly): the revert, delete and restore links and
// forms are not rendered, their confirmation pages and POSTs answer 403, and
// the pages show a "read-only" badge. Everything else is shown.
//
// Live feed: it shows the documents created, changed and deleted by any
// writer the bank's store can see (Bank.Watch), found by comparing a
// listing of every bank before and after each signal. Learned memories
// have no change signal, so their changes are not in the feed.
//
// Skill graphs: the picture is drawn by render.GraphSVG, which runs a
// renderer program (mnemobank-dot, or Graphviz's dot) rather than loading
// Graphviz into this process, and is drawn when the skill page is built, so
// that a graph that cannot be drawn (no renderer installed, a renderer
// failing) shows its DOT source as text and the reason, never a broken
// image; /ui/skill/graph.svg then answers 503 saying how to install one.
// Drawn pictures are kept by skill and document version, at most 32 and
// 1 MiB of SVG, least recently used first out, so viewing a skill again
// runs nothing; failures are not kept.
//
// Learned memories: deleting goes through memories.Manager.Delete into its
// trash, and restoring through memories.Manager.Restore, the functions the
// MCP server's delete_memory and restore_memory tools call. Skill graphs are
// read from the global bank through package skilldoc, as the server's skill
// tools store them.
//
// Not here: the Markdown, JSON, diff and SVG rendering (package render),
// Graphviz (cmd/mnemobank-dot),
// and listening and shutdown (the host: call Close when the server shuts
// down, since an event stream never ends by itself).
//
// # Testing
//
// The handler tests drive ServeHTTP with httptest; the end-to-end tests
// (e2e_test.go) drive the pages in headless Chromium and skip, saying why,
// when no browser can be found. A test that needs a real skill graph
// picture calls dottest.Use (package internal/dottest), which builds
// mnemobank-dot into the test's temporary directory and sets MNEMOBANK_DOT
// for that test; tests about when the viewer draws use a stand-in script. TestPagesOnPostgreSQL and the PostgreSQL
// end-to-end test need MNEMOBANK_PG_DSN. BenchmarkPages measures each page at
// 10,000 documents and 40,000 memories.
package ui
