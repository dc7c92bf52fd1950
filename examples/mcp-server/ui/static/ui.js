// The live feed: server-sent events from the viewer, prepended to the
// list #feed of every page. Every text goes through textContent; a link is
// kept only when it points into the viewer.
"use strict";
(function () {
  var feed = document.getElementById("feed");
  if (!feed || !window.EventSource) { return; }
  var status = document.getElementById("feed-status");
  var url = feed.getAttribute("data-events");
  if (!url || url.charAt(0) !== "/") { return; }
  var maxEntries = 100;
  var source = new EventSource(url);
  source.addEventListener("open", function () {
    if (status) { status.textContent = "Listening for changes."; }
  });
  source.addEventListener("error", function () {
    if (status) { status.textContent = "Not connected; retrying."; }
  });
  source.addEventListener("change", function (msg) {
    var e;
    try { e = JSON.parse(msg.data); } catch (err) { return; }
    var li = document.createElement("li");
    li.className = "feed-entry " + String(e.kind || "");
    var when = document.createElement("time");
    when.textContent = e.time ? new Date(e.time).toLocaleTimeString() : "";
    li.appendChild(when);
    li.appendChild(document.createTextNode(" " + String(e.kind || "") + " "));
    if (e.kind === "more") {
      li.appendChild(document.createTextNode(String(e.more) + " more documents"));
    } else {
      var target = document.createElement(typeof e.url === "string" && e.url.indexOf("/ui/") === 0 ? "a" : "span");
      if (target.tagName === "A") { target.setAttribute("href", e.url); }
      target.textContent = String(e.path || "");
      li.appendChild(target);
      li.appendChild(document.createTextNode(" (" + String(e.bank || "") + ", v" + String(e.version || "") + ")"));
    }
    feed.insertBefore(li, feed.firstChild);
    while (feed.children.length > maxEntries) { feed.removeChild(feed.lastChild); }
  });
})();
