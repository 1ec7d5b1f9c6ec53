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

  // A result row's whole body, opened under the row: <a class="expand" data-body="URL">
  // fetches the row once, then shows and hides it. Without this file the link opens
  // the message's page.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest("a.expand[data-body]");
    if (!a || !window.htmx || ev.ctrlKey || ev.metaKey || ev.shiftKey) return;
    ev.preventDefault();
    var row = a.closest("tr"), next = row.nextElementSibling;
    if (next && next.classList.contains("body-full")) {
      next.hidden = !next.hidden;
      a.setAttribute("aria-expanded", String(!next.hidden));
      return;
    }
    a.setAttribute("aria-expanded", "true");
    htmx.ajax("GET", a.dataset.body, { target: row, swap: "afterend" });
  });

  // Relative ages: <time datetime="ISO" data-age>, in the page's language (its lang).
  var agoUnits = {
    en: [" s ago", " min ago", " h ago", " d ago"],
    zh: [" 秒前", " 分钟前", " 小时前", " 天前"]
  };
  function ages() {
    var now = Date.now();
    document.querySelectorAll("time[data-age]").forEach(function (t) {
      var s = Math.round((now - Date.parse(t.getAttribute("datetime"))) / 1000);
      if (isNaN(s)) return;
      var u = agoUnits[(document.documentElement.lang || "en").slice(0, 2)] || agoUnits.en;
      var txt = s < 60 ? s + u[0] : s < 3600 ? Math.round(s / 60) + u[1] :
        s < 86400 ? Math.round(s / 3600) + u[2] : Math.round(s / 86400) + u[3];
      if (t.textContent !== txt) t.textContent = txt;
    });
  }
  setInterval(ages, 1000);
  document.addEventListener("DOMContentLoaded", ages);
  document.addEventListener("htmx:afterSettle", ages);
  // A live frame's new <time data-age> reads as an age at once, not a second later.
  document.addEventListener("htmx:wsAfterMessage", ages);
  // A live tail keeps its newest 500 rows: an hour at 50 rows a second would hold
  // 180 000 rows and make the page crawl.
  document.addEventListener("htmx:wsAfterMessage", function () {
    var rows = document.getElementById("tail-rows");
    while (rows && rows.rows.length > 500) rows.deleteRow(-1);
  });

  // A live tail's socket that reconnects (the console restarted, the network dropped)
  // carries on as the page was: paused stays paused, and the count of rows not drawn goes
  // on from the one shown. Every connect reads them from the page, the first one too.
  if (window.htmx && htmx.createWebSocket) {
    var openSocket = htmx.createWebSocket;
    htmx.createWebSocket = function (url) {
      if (/\/ws\/topics\/[^?]+\/tail(\?|$)/.test(url)) {
        var controls = document.getElementById("tail-controls");
        var skipped = document.getElementById("tail-skipped");
        var u = new URL(url, location.href);
        u.searchParams.set("paused", controls && controls.hasAttribute("data-paused") ? "1" : "0");
        u.searchParams.set("skipped", (skipped && skipped.dataset.count) || "0");
        url = u.toString();
      }
      return openSocket(url);
    };
  }

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
      // The pages of a cluster other than the default live under its prefix (/c/NAME).
      if (to) { window.location.href = (document.body.dataset.base || "") + to; ev.preventDefault(); }
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

// ---- Shared by the pages below: list swaps, the live indicator, uPlot charts --------------
var rmqc = (function () {
  "use strict";
  return {
    // A bad list filter answers 422 with the list section explaining it: swap it in
    // like a 200.
    swapListErrors: function (id) {
      document.addEventListener("htmx:beforeSwap", function (ev) {
        var t = ev.detail.target;
        if (t && t.id === id && ev.detail.xhr.status === 422) {
          ev.detail.shouldSwap = true;
          ev.detail.isError = false;
        }
      });
    },
    // Say whether a live page is live: the websocket is open, or it dropped and the
    // htmx extension is reconnecting.
    liveIndicator: function (live) {
      // Looked up each time: a refusal frame replaces the indicator with the console's
      // sentence (data-final), which no later state overwrites.
      function el() { return document.getElementById("live-indicator"); }
      function state(cls, text) {
        var ind = el();
        if (!ind || ind.dataset.final) return;
        ind.className = cls;
        ind.textContent = text;
      }
      // The page may give the words in its language: data-connecting, data-live,
      // data-again, data-lost (with %s for the time).
      var first = el();
      var say = (first && first.dataset) || {};
      state("live-connecting", say.connecting || "connecting…");
      var wasOpen = false;
      live.addEventListener("htmx:wsOpen", function () {
        state("live-on", wasOpen ? say.again || "live again" : say.live || "live");
        wasOpen = true;
      });
      live.addEventListener("htmx:wsClose", function () {
        var at = new Date().toISOString().substring(11, 19);
        state("live-off", say.lost ? say.lost.replace("%s", at) : "connection lost at " + at + " UTC, reconnecting…");
      });
    },
    // Axis labels in the page's text colour and a faint grid, so a chart reads in dark
    // mode too (uPlot draws on a canvas, which CSS does not reach).
    axis: function (box, a) {
      var faint = "rgba(128,128,128,0.25)";
      a.stroke = getComputedStyle(box).color || "gray";
      a.grid = { stroke: faint, width: 1 };
      a.ticks = { stroke: faint, width: 1 };
      return a;
    },
    // The theme's colours live in app.css; the canvas takes them from there.
    themeColor: function (name) {
      return getComputedStyle(document.documentElement).getPropertyValue(name).trim() || "gray";
    },
    chartWidth: function (box) { return Math.max(300, (box.clientWidth || 600) - 10); },
    // Times as everywhere else in the console: UTC, "2026-12-01 08:58:04 UTC" in the
    // legend, the time of day on the axis (with the date once the chart spans days),
    // never the browser's locale ("12/6/26 4:27am").
    utcTime: function (s) {
      return s == null ? "—" : new Date(s * 1000).toISOString().substring(0, 19).replace("T", " ") + " UTC";
    },
    // An x axis of UTC times; box keeps what the axis says (data-x-ticks), for tests.
    utcTicks: function (box) {
      return function (u, splits) {
        var days = u.scales.x.max - u.scales.x.min > 86400;
        var out = splits.map(function (s) {
          var iso = new Date(s * 1000).toISOString();
          return days ? iso.substring(0, 10) + " " + iso.substring(11, 16) : iso.substring(11, 19);
        });
        box.setAttribute("data-x-ticks", out.join("|"));
        return out;
      };
    },
    // Until a minute of samples exists, show the last minute. The range comes from the
    // data itself: for a single point uPlot proposes a span of a thousand days.
    lastMinuteAtLeast: function (u, min, max) {
      var xs = u.data[0];
      if (!xs || !xs.length) return [min, max];
      var lo = xs[0], hi = xs[xs.length - 1];
      return hi - lo < 60 ? [hi - 60, hi] : [lo, hi];
    },
  };
})();

// ---- Messages (/messages, /messages/{id}) ----------------------------------------------
(function () {
  "use strict";

  function pad(n, w) { n = String(n); while (n.length < (w || 2)) n = "0" + n; return n; }
  // The form's times are UTC, as its labels say.
  function utc(d) {
    return d.getUTCFullYear() + "-" + pad(d.getUTCMonth() + 1) + "-" + pad(d.getUTCDate()) + " " +
      pad(d.getUTCHours()) + ":" + pad(d.getUTCMinutes()) + ":" + pad(d.getUTCSeconds());
  }

  // Quick ranges end now, not when the page was rendered: fill the fields and search.
  document.addEventListener("click", function (ev) {
    var a = ev.target.closest("a[data-quick-range]");
    if (!a) return;
    var form = a.closest("form");
    var begin = form && form.querySelector("input[name=begin]");
    var end = form && form.querySelector("input[name=end]");
    if (!begin || !end) return;
    ev.preventDefault();
    var now = new Date(Math.ceil(Date.now() / 1000) * 1000);
    end.value = utc(now);
    begin.value = utc(new Date(now.getTime() - parseInt(a.dataset.quickRange, 10) * 60000));
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });

  // A search answers 422 for bad input and 502/504 when brokers fail; both bodies are
  // the result section with the explanation (or, for the next rows of a long result, a
  // row with it), so htmx swaps them in like a 200.
  document.addEventListener("htmx:beforeSwap", function (ev) {
    var t = ev.detail.target;
    if (t && (t.id === "messages-result" || t.matches("tr.more-rows")) && ev.detail.xhr.status >= 400) {
      ev.detail.shouldSwap = true;
      ev.detail.isError = false;
    }
  });
})();

// ---- Consumer groups (/groups, /groups/{group}) -----------------------------------------
(function () {
  "use strict";

  rmqc.swapListErrors("groups-list");

  function init() {
    var live = document.getElementById("group-live");
    if (!live) return;

    rmqc.liveIndicator(live);

    // Total lag over time: uPlot, fed with the stored history in #lag-chart-stored,
    // the live series in #lag-chart-data and one point per poll in #lag-point, merged
    // by time into one series (see combine).
    var box = document.getElementById("lag-chart");
    var plot = null;
    var stored = [[], []], liveData = [[], []], data = [[], []];
    var maxPoints = 600;
    function parseSeries(id) {
      var el = document.getElementById(id);
      if (!el) return null;
      try {
        var s = JSON.parse(el.getAttribute("data-series") || "{}");
        return [s.t || [], s.v || []];
      } catch (e) { return null; }
    }
    // median spacing of a series' readings, at least min seconds: how often it reads.
    function step(xs, min) {
      var d = [];
      for (var i = 1; i < xs.length; i++) if (xs[i] > xs[i - 1]) d.push(xs[i] - xs[i - 1]);
      if (!d.length) return min;
      d.sort(function (a, b) { return a - b; });
      return Math.max(min, d[Math.floor(d.length / 2)]);
    }
    // Stored samples and live points are readings of one figure: drawn as one series
    // by time, so the minutes nobody watched show the collector's samples, not a blank.
    // The live series' gaps (NaN where nobody watched) are left out; a line breaks only
    // where neither source read for three of its steps (the stored series carries its
    // own breaks, and unknown lag, as null).
    function combine() {
      var pts = [], i;
      for (i = 0; i < stored[0].length; i++) pts.push({ t: stored[0][i], v: stored[1][i], s: 0 });
      for (i = 0; i < liveData[0].length; i++) {
        var v = liveData[1][i];
        if (v != null && !isNaN(v)) pts.push({ t: liveData[0][i], v: v, s: 1 });
      }
      pts.sort(function (a, b) { return a.t - b.t || a.s - b.s; });
      var steps = [step(stored[0], 60), step(liveData[0], 1)];
      var t = [], val = [], src = [];
      pts.forEach(function (p) {
        var n = t.length;
        // The same moment read by both (the collector and a live poll): the live reading
        // wins. Readings of one source are never merged, however close.
        if (n && (p.t === t[n - 1] || (p.s !== src[n - 1] && p.t - t[n - 1] < 0.5))) {
          if (p.s === 1) { val[n - 1] = p.v; src[n - 1] = 1; }
          return;
        }
        if (n && val[n - 1] != null && p.v != null && p.t - t[n - 1] > 3 * Math.max(steps[src[n - 1]], steps[p.s])) {
          t.push(t[n - 1] + 1); val.push(null); src.push(p.s);
        }
        t.push(p.t); val.push(p.v); src.push(p.s);
      });
      data = [t, val];
    }
    function readSeries() {
      var l = parseSeries("lag-chart-data");
      if (l) liveData = l; // else keep what is drawn
      combine();
    }
    stored = parseSeries("lag-chart-stored") || stored;
    function axis(a) { return rmqc.axis(box, a); }
    var themeColor = rmqc.themeColor;
    function width() { return rmqc.chartWidth(box); }
    var xTicks = rmqc.utcTicks(box);
    // The legend shows the newest sample until the pointer picks another one.
    function shown(u, sidx, idx) {
      var xs = u.data[sidx];
      if (idx == null) idx = xs && xs.length ? xs.length - 1 : null;
      return idx == null ? null : idx;
    }
    function legendTime(u, v, sidx, idx) {
      var i = shown(u, 0, idx);
      return rmqc.utcTime(i == null ? null : u.data[0][i]);
    }
    function legendLag(u, v, sidx, idx) {
      var i = shown(u, sidx, idx), x = i == null ? null : u.data[sidx][i];
      return x == null || isNaN(x) ? box.getAttribute("data-unknown") || "unknown" : Math.round(x).toLocaleString("en-US");
    }
    // Lag starts at 0, so a few messages of noise do not look like a cliff; only a
    // spread of a thousand messages or more, far above 0, zooms in on it.
    function yRange(u, min, max) {
      if (min == null || max == null || isNaN(min) || isNaN(max)) return [0, 10];
      var spread = max - min, lo = 0;
      if (spread >= 1000 && min - spread / 10 > spread) lo = Math.floor(min - spread / 10);
      return [lo, Math.max(10, Math.ceil(max + (max - lo) / 10))];
    }
    function draw() {
      if (!box || !window.uPlot) return;
      box.setAttribute("data-points", String(data[0].length)); // what is drawn, for tests
      box.rmqcData = data; // the series drawn, for tests
      if (!plot) {
        plot = new window.uPlot({
          width: width(), height: 200,
          scales: { x: { time: true, range: rmqc.lastMinuteAtLeast }, y: { range: yRange } },
          series: [{ label: box.getAttribute("data-label-time") || "Time", value: legendTime },
            { label: box.getAttribute("data-label-lag") || "Total lag", stroke: themeColor("--rmqc-warn"), width: 2, spanGaps: false, value: legendLag }],
          axes: [axis({ values: xTicks }), axis({ size: 70 })],
        }, data, box);
        window.addEventListener("resize", function () { plot.setSize({ width: width(), height: 200 }); });
      } else {
        plot.setData(data);
      }
      box.setAttribute("data-x-span", String(Math.round(plot.scales.x.max - plot.scales.x.min))); // seconds shown, for tests
      box.setAttribute("data-y-min", String(plot.scales.y.min)); // where the lag axis starts, for tests
      if (plot.cursor.idx == null) plot.setLegend({ idx: null }); // the newest sample, until the pointer picks one
    }
    function addPoint(el) {
      try {
        var p = JSON.parse(el.getAttribute("data-point"));
        liveData[0].push(p.t);
        liveData[1].push(p.v);
        if (liveData[0].length > maxPoints) { liveData[0].shift(); liveData[1].shift(); }
      } catch (e) { return; }
      combine();
      draw();
    }
    readSeries();
    draw();

    // Frames replace elements by id; react to the ones that carry chart data, and keep
    // the timeline from growing without end on a page left open for days.
    new MutationObserver(function (records) {
      records.forEach(function (r) {
        r.addedNodes.forEach(function (n) {
          if (n.nodeType !== 1) return;
          if (n.id === "lag-chart-data") { readSeries(); draw(); }
          if (n.id === "lag-point") addPoint(n);
        });
      });
      var tl = document.getElementById("timeline");
      if (tl) {
        var items = tl.querySelectorAll("li.event");
        for (var i = 200; i < items.length; i++) items[i].remove();
      }
    }).observe(live, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

// ---- Topics (/topics) and brokers (/brokers/{name}) -------------------------------------
(function () {
  "use strict";

  rmqc.swapListErrors("topics-list");

  // The broker page's throughput: each frame replaces #tps-data with the series the
  // server keeps ({"t": [s], "put": [...], "get": [...]}; -1 where the broker did not
  // answer); uPlot draws it.
  function init() {
    var live = document.getElementById("broker-live");
    if (!live) return;
    rmqc.liveIndicator(live);
    var box = document.getElementById("tps-chart");
    var plot = null;
    var color = rmqc.themeColor;
    function width() { return rmqc.chartWidth(box); }
    function axis(a) { return rmqc.axis(box, a); }
    // The legend shows the newest sample until the pointer picks another one.
    function at(u, sidx, idx) {
      var xs = u.data[sidx];
      return idx == null ? (xs && xs.length ? xs[xs.length - 1] : null) : xs[idx];
    }
    function rate(u, v, sidx, idx) { v = at(u, sidx, idx); return v == null || v < 0 ? "unknown" : v.toFixed(2) + " /s"; }
    function time(u, v, sidx, idx) { return rmqc.utcTime(at(u, 0, idx)); }
    function draw() {
      var el = document.getElementById("tps-data");
      if (!el || !window.uPlot) return;
      var s;
      try { s = JSON.parse(el.getAttribute("data-series") || "null"); } catch (e) { return; }
      if (!s || !s.t) return;
      // null where nothing was measured: the line breaks there.
      var clean = function (xs) { return xs.map(function (v) { return v == null || v < 0 ? null : v; }); };
      var data = [s.t, clean(s.put), clean(s.get)];
      box.setAttribute("data-points", String(s.put.filter(function (v) { return v != null && v >= 0; }).length)); // what is drawn, for tests
      box.setAttribute("data-gaps", String(s.put.filter(function (v) { return v == null; }).length)); // where the line breaks, for tests
      if (!plot) {
        plot = new window.uPlot({
          width: width(), height: 200,
          scales: { x: { time: true, range: rmqc.lastMinuteAtLeast }, y: { range: function (u, min, max) { return [0, Math.max(10, Math.ceil((max || 0) * 1.1))]; } } },
          series: [{ label: "Time (UTC)", value: time },
            { label: "Put TPS", stroke: color("--rmqc-warn"), width: 2, spanGaps: false, value: rate },
            { label: "Get TPS", stroke: color("--pico-primary"), width: 2, spanGaps: false, value: rate }],
          axes: [axis({ values: rmqc.utcTicks(box) }), axis({ size: 60 })],
        }, data, box);
        window.addEventListener("resize", function () { plot.setSize({ width: width(), height: 200 }); });
      } else {
        plot.setData(data);
      }
      if (plot.cursor.idx == null) plot.setLegend({ idx: null }); // the newest sample, until the pointer picks one
    }
    new MutationObserver(function (records) {
      records.forEach(function (r) {
        r.addedNodes.forEach(function (n) {
          if (n.nodeType === 1 && n.id === "tps-data") draw();
        });
      });
    }).observe(live, { childList: true, subtree: true });
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();

// ---- A topic's live tail (/topics/{topic}/tail) ------------------------------------------
(function () {
  "use strict";
  // Say whether the tail is live, and when its socket dropped and came back.
  function init() {
    var live = document.getElementById("tail-live");
    if (live) rmqc.liveIndicator(live);
  }
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", init);
  else init();
})();
