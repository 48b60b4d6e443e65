/**
 * The live pages' script (decisions §13), served as /assets/live.js: a page that works without it. It listens to
 * /live (Server-Sent Events, the browser's EventSource reconnecting with Last-Event-ID by itself); when something
 * happens where the page looks (its thread, or any thread on home), it asks for the page again (`data-live-url`)
 * and puts in the new regions (`data-live-region`), keeping what the person is typing and where their focus is (an
 * open reply form is in the page's address, so it comes back open); the header's count follows the notifications.
 * A screen reader hears that the page changed.
 */
export const LIVE_SCRIPT = String.raw`"use strict";
(function () {
  var main = document.getElementById("main");
  if (!main || !window.EventSource || !window.fetch || !window.DOMParser) return;
  var follows = main.getAttribute("data-live-follows");
  var url = main.getAttribute("data-live-url") || location.pathname + location.search;
  var status = document.getElementById("live-status");
  var source = new EventSource("/live?since=" + encodeURIComponent(main.getAttribute("data-live-since") || ""));
  var busy = false, again = false;

  function swap(old, fresh) {
    var active = document.activeElement;
    var focused = active && active.id && old.contains(active) ? active.id : null;
    var typed = [];
    old.querySelectorAll("textarea, input[type=text], input[type=search]").forEach(function (f) { if (f.id && f.value) typed.push([f.id, f.value]); });
    old.replaceWith(fresh);
    typed.forEach(function (t) { var f = document.getElementById(t[0]); if (f) f.value = t[1]; });
    if (focused) { var f = document.getElementById(focused); if (f) f.focus(); }
  }

  function refresh() {
    if (busy) { again = true; return; }
    busy = true;
    fetch(url, { credentials: "same-origin", headers: { accept: "text/html", "x-convene-live": "1" } }).then(function (res) {
      return res.ok ? res.text() : null;
    }).then(function (html) {
      if (html === null) return;
      var doc = new DOMParser().parseFromString(html, "text/html");
      var changed = false;
      document.querySelectorAll("[data-live-region]").forEach(function (old) {
        var fresh = doc.getElementById(old.id);
        if (fresh && fresh.innerHTML !== old.innerHTML) { swap(old, document.importNode(fresh, true)); changed = true; }
      });
      if (changed && status) status.textContent = status.getAttribute("data-updated");
    }).catch(function () {}).then(function () {
      busy = false;
      if (again) { again = false; refresh(); }
    });
  }

  function concerns(event) {
    if (!follows) return false;
    if (follows === "all") return true;
    try { return String(JSON.parse(event.data).topic_id) === follows; } catch (e) { return false; }
  }

  source.addEventListener("thread", function (e) { if (concerns(e)) refresh(); });
  source.addEventListener("reaction", function (e) { if (concerns(e)) refresh(); });
  source.addEventListener("notification", function (e) {
    var link = document.getElementById("notifications-link");
    var unseen = 0;
    try { unseen = Number(JSON.parse(e.data).unseen); } catch (err) { return; }
    if (!link || !(unseen >= 0)) return;
    var count = link.querySelector(".count");
    if (count) count.remove();
    if (unseen === 0) return;
    count = document.createElement("span");
    count.className = "count";
    count.textContent = String(unseen);
    var hidden = document.createElement("span");
    hidden.className = "visually-hidden";
    hidden.textContent = " " + link.getAttribute("data-unseen-label");
    count.appendChild(hidden);
    link.appendChild(document.createTextNode(" "));
    link.appendChild(count);
  });
  // the page was away longer than the server keeps events: it is made again
  source.addEventListener("reset", function () { location.reload(); });
})();
`
