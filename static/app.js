// rmqconsole: small progressive enhancements. Every page works without this file.
(function () {
  "use strict";

  // Copy buttons: <button class="copy" data-copy="VALUE">.
  document.addEventListener("click", function (ev) {
    var b = ev.target.closest("button.copy[data-copy]");
    if (!b) return;
    ev.preventDefault();
    navigator.clipboard && navigator.clipboard.writeText(b.dataset.copy).then(function () {
      var old = b.textContent;
      b.textContent = "copied";
      setTimeout(function () { b.textContent = old; }, 1200);
    });
  });

  // Relative ages: <time datetime="ISO" data-age>.
  function ages() {
    var now = Date.now();
    document.querySelectorAll("time[data-age]").forEach(function (t) {
      var s = Math.round((now - Date.parse(t.getAttribute("datetime"))) / 1000);
      if (isNaN(s)) return;
      var txt = s < 60 ? s + " s ago" : s < 3600 ? Math.round(s / 60) + " min ago" :
        s < 86400 ? Math.round(s / 3600) + " h ago" : Math.round(s / 86400) + " d ago";
      t.textContent = txt;
    });
  }
  setInterval(ages, 1000);
  document.addEventListener("DOMContentLoaded", ages);
  document.addEventListener("htmx:afterSettle", ages);

  // Keyboard: / search, 1 2 3 message tabs, g m / g g / g a navigation, ? help.
  var pendingG = false;
  document.addEventListener("keydown", function (ev) {
    var tag = (ev.target.tagName || "").toLowerCase();
    if (tag === "input" || tag === "textarea" || tag === "select" || ev.target.isContentEditable) {
      if (ev.key === "Escape") ev.target.blur();
      return;
    }
    if (ev.ctrlKey || ev.metaKey || ev.altKey) return;
    if (pendingG) {
      pendingG = false;
      var to = { m: "/messages", g: "/groups", a: "/audit", h: "/" }[ev.key];
      if (to) { window.location.href = to; ev.preventDefault(); }
      return;
    }
    switch (ev.key) {
      case "g": pendingG = true; setTimeout(function () { pendingG = false; }, 1500); break;
      case "/": {
        var s = document.querySelector("[data-search]");
        if (s) { s.focus(); ev.preventDefault(); }
        break;
      }
      case "1": case "2": case "3": {
        var tab = document.querySelector('[data-tab-key="' + ev.key + '"]');
        if (tab) { tab.click(); ev.preventDefault(); }
        break;
      }
      case "?": {
        var d = document.getElementById("shortcuts");
        if (d && d.showModal) { d.open ? d.close() : d.showModal(); ev.preventDefault(); }
        break;
      }
    }
  });
  document.addEventListener("click", function (ev) {
    if (ev.target.closest("[data-close-dialog]")) {
      var d = ev.target.closest("dialog");
      if (d) d.close();
    }
  });
})();
