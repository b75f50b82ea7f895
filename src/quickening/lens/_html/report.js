"use strict";
(function () {
  var data = JSON.parse(document.getElementById("lens-data").textContent);
  var sites = data.sites;
  var byId = {};
  sites.forEach(function (s, i) { s.idx = i; byId[s.id] = s; });
  var VERDICTS = ["specialized", "polymorphic", "missing", "fell-back", "unspecialized", "instrumented", "cold"];
  var STATE_COLOUR = { specialized: "#cdeccf", generic: "#f6c9c9", adaptive: "#f8e7b0", instrumented: "#bfe9ef" };

  function el(tag, attrs, text) {
    var e = document.createElement(tag);
    if (attrs) Object.keys(attrs).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined && text !== null) e.textContent = text;
    return e;
  }
  // a sentence with `code` spans, as DOM nodes (text only, never HTML)
  function sentence(parent, text) {
    text.split("`").forEach(function (part, i) {
      if (i % 2) parent.appendChild(el("code", null, part));
      else parent.appendChild(document.createTextNode(part));
    });
    return parent;
  }
  function base(p) { var i = p.lastIndexOf("/"); return i < 0 ? p : p.slice(i + 1); }
  function short(c) { var i = c.lastIndexOf("."); return i < 0 ? c : c.slice(i + 1); }
  function fmt(n) { return n === null || n === undefined ? "" : Number(n).toLocaleString("en-US"); }

  // ---- header -------------------------------------------------------------
  var head = document.getElementById("head");
  head.appendChild(el("h1", null, "quickening watch — " + (data.run.argv || []).join(" ")));
  var counts = {};
  sites.forEach(function (s) { counts[s.verdict] = (counts[s.verdict] || 0) + 1; });
  head.appendChild(el("div", { "class": "meta" },
    "CPython " + data.python.version + " · " + data.run.samples + " samples every " +
    data.run.interval_ms + " ms over " + data.run.duration_s.toFixed(3) + " s · " +
    data.run.code_objects + " code objects · " + sites.length + " sites executed · exit status " +
    data.run.exit_status));
  data.observers.forEach(function (o) {
    head.appendChild(el("div", { "class": "warn" }, "warning: the program turned on " + o.kind +
      (o.detail ? " (" + o.detail + ")" : "") + " at " + o.t.toFixed(3) +
      " s; the sites it watched may show de-specialized or instrumented forms"));
  });
  if (!data.python.supported) {
    head.appendChild(el("div", { "class": "warn" }, "the lens knows CPython 3.11–3.15; this is " + data.python.version));
  }

  // ---- findings -----------------------------------------------------------
  var fsec = document.getElementById("findings");
  fsec.appendChild(el("h2", null, "What to look at"));
  var legend = el("div", { "class": "legend" });
  VERDICTS.forEach(function (v) {
    var sp = el("span"); var i = el("i", { "class": "v-" + v, style: "background:var(--" +
      { specialized: "spec", polymorphic: "poly", missing: "miss", "fell-back": "fell", unspecialized: "unspec", instrumented: "instr", cold: "cold" }[v] + ")" });
    sp.appendChild(i); sp.appendChild(document.createTextNode(v + " (" + (counts[v] || 0) + ")"));
    legend.appendChild(sp);
  });
  fsec.appendChild(legend);
  if (data.findings.length === 0) {
    fsec.appendChild(el("p", null, "Nothing stands out: every hot site specialized and stayed on one target."));
  } else {
    var ol = el("ol", { "class": "findings" });
    data.findings.forEach(function (f) {
      var s = byId[f.site];
      var li = el("li", { "data-site": s.idx });
      li.appendChild(el("span", { "class": "kind v-" + s.verdict }, f.kind));
      sentence(li, f.sentence);
      li.addEventListener("click", function () { select(s.idx, true); });
      ol.appendChild(li);
    });
    fsec.appendChild(ol);
  }

  // an executor list (loop or entry): one line each, the last one's trace
  // beside the source, its exit stubs
  function traceView(box, execs) {
    execs.forEach(function (e) {
      var fate = e.gone_s === null ? ("still there at exit, " + (e.valid ? "valid" : "invalid"))
        : ("gone at " + e.gone_s.toFixed(3) + " s: no longer valid (invalidated or thrown away)");
      box.appendChild(el("p", { "class": "exec-meta" + (e.gone_s === null ? "" : " gone") },
        "executor #" + e.index + " made at " + e.appeared_s.toFixed(3) + " s: " + e.trace_length +
        " micro-ops, " + e.guards + " guards, " + e.exits + " exit stubs" +
        (e.jit_code_bytes ? ", " + e.jit_code_bytes + " bytes of machine code" : "") + "; " + fate));
    });
    var last = execs[execs.length - 1];
    var table = el("table", { "class": "trace" });
    var hdr = el("tr");
    hdr.appendChild(el("th", null, "line"));
    hdr.appendChild(el("th", null, "source"));
    hdr.appendChild(el("th", null, "micro-ops (executor #" + last.index + ", in trace order)"));
    table.appendChild(hdr);
    last.by_line.forEach(function (g) {
      var tr = el("tr", { "class": "uop-group" });
      tr.appendChild(el("td", { "class": "ln" }, g.line === null ? "" : String(g.line)));
      tr.appendChild(el("td", { "class": "src" }, g.source));
      var td = el("td", { "class": "uops" });
      g.uops.forEach(function (u) {
        var guard = /^_(GUARD|CHECK|DEOPT_IF|EXIT_IF|ITER_CHECK)/.test(u[0]);
        td.appendChild(el("code", { "class": "uop" + (guard ? " guard" : ""),
                                    title: "oparg " + u[1] + ", target " + u[2] }, u[0]));
        td.appendChild(document.createTextNode(" "));
      });
      tr.appendChild(td);
      table.appendChild(tr);
    });
    box.appendChild(table);
    if (last.exit_stubs && last.exit_stubs.length) {
      box.appendChild(el("p", { "class": "exits" }, "exit stubs: " + last.exit_stubs.map(function (x) {
        return x[0] + (x[2] ? " (line " + x[2] + ")" : "");
      }).join(", ")));
    }
  }

  // ---- tier 2, per loop: each executor's trace beside the loop's source ----
  (function () {
    var sec = document.getElementById("tier2");
    var t2 = data.tier2 || {};
    var loops = t2.loops || [];
    sec.appendChild(el("h2", null, "Tier 2, per loop"));
    if (t2.why_not) {
      sec.appendChild(el("p", { "class": "t2-why" }, "Not running: " + t2.why_not));
      return;
    }
    var made = loops.filter(function (l) { return l.executors.length; }).length;
    sec.appendChild(el("p", { "class": "meta" }, loops.length + " loop(s) ran; " + made +
      " got a tier-2 executor (the ENTER_EXECUTOR byte at the back edge; dis does not show it)"));
    loops.forEach(function (l) {
      var box = el("div", { "class": "loop" + (l.executors.length ? " has-exec" : " no-exec"),
                            "data-loop": l.id });
      var where = base(l.file) + ":" + l.line + (l.function !== "<module>" ? " in " + l.function + "()" : "");
      box.appendChild(el("h3", null, where));
      if (!l.executors.length) {
        var txt = "no executor (" + l.form + ")";
        if (l.counter !== null && l.threshold) {
          var done = Math.max(0, l.threshold - l.counter);
          txt += ": back-edge counter " + done + " of " + l.threshold + " toward a trace";
          var bar = el("div", { "class": "t2-progress" });
          var fill = el("span", { style: "width:" + (100 * done / l.threshold).toFixed(1) + "%" });
          bar.appendChild(fill);
          box.appendChild(el("p", null, txt));
          box.appendChild(bar);
        } else {
          box.appendChild(el("p", null, txt));
        }
        sec.appendChild(box);
        return;
      }
      traceView(box, l.executors);
      sec.appendChild(box);
    });
    var entries = t2.entries || [];
    if (!entries.length) return;
    sec.appendChild(el("h2", null, "Tier 2, traces that start elsewhere than a back edge"));
    sec.appendChild(el("p", { "class": "meta" }, entries.length + " instruction(s) a trace " +
      "starts at: the target of a side exit whose guard kept failing, or (3.15) a hot " +
      "function's RESUME; the instruction under ENTER_EXECUTOR keeps its tier-1 form inside the executor"));
    entries.forEach(function (x) {
      var box = el("div", { "class": "loop entry has-exec", "data-entry": x.id });
      var where = base(x.file) + ":" + x.line + (x.function !== "<module>" ? " in " + x.function + "()" : "");
      box.appendChild(el("h3", null, where + " — " + x.instruction + " (" +
        (x.starts_at === "function entry" ? "a function's entry" : "a side exit's target") +
        ", tier-1 form " + (x.form || "unknown") + ")"));
      traceView(box, x.executors);
      sec.appendChild(box);
    });
  })();

  // ---- sources with marked sites -----------------------------------------
  var files = document.getElementById("files");
  var perFile = {};
  sites.forEach(function (s) { (perFile[s.file] = perFile[s.file] || []).push(s); });
  Object.keys(perFile).sort().forEach(function (fn) {
    files.appendChild(el("h2", null, fn));
    var lines = data.files[fn];
    var list = perFile[fn];
    var pre = el("pre", { "class": "src" });
    var byLine = {};
    list.forEach(function (s) { if (s.line) (byLine[s.line] = byLine[s.line] || []).push(s); });
    if (!lines) {
      files.appendChild(el("p", { "class": "missing" }, "source not available; sites listed by line"));
      lines = [];
      Object.keys(byLine).forEach(function (l) { lines[l - 1] = lines[l - 1] || ""; });
    }
    for (var ln = 1; ln <= lines.length; ln++) {
      var text = lines[ln - 1] || "";
      var here = byLine[ln] || [];
      var row = el("span", { "class": "line" + (here.length ? " has" : ""), id: "L-" + fn + "-" + ln });
      row.appendChild(el("span", { "class": "ln" }, String(ln)));
      renderLine(row, text, here);
      here.slice().sort(function (a, b) { return (a.col || 0) - (b.col || 0); }).forEach(function (s) {
        var b = el("span", { "class": "badge v-" + s.verdict, "data-site": s.idx }, s.form);
        hookSite(b, s);
        row.appendChild(b);
      });
      pre.appendChild(row);
      pre.appendChild(document.createTextNode("\n"));
    }
    files.appendChild(pre);
  });

  function renderLine(row, text, here) {
    // innermost (shortest) site covering each character gets the mark
    var owner = new Array(text.length);
    here.forEach(function (s) {
      if (s.col === null || s.col === undefined) return;
      var end = (s.end_line === s.line && s.end_col !== null) ? s.end_col : text.length;
      for (var c = s.col; c < Math.min(end, text.length); c++) {
        var o = owner[c];
        if (o === undefined || spanLen(s, text) < spanLen(o, text)) owner[c] = s;
      }
    });
    var i = 0;
    while (i < text.length) {
      var o = owner[i], j = i;
      while (j < text.length && owner[j] === o) j++;
      var chunk = text.slice(i, j);
      if (o === undefined) row.appendChild(document.createTextNode(chunk));
      else {
        var sp = el("span", { "class": "site v-" + o.verdict, "data-site": o.idx }, chunk);
        hookSite(sp, o);
        row.appendChild(sp);
      }
      i = j;
    }
  }
  function spanLen(s, text) {
    var end = (s.end_line === s.line && s.end_col !== null) ? s.end_col : text.length;
    return end - s.col;
  }

  // ---- hover and click ----------------------------------------------------
  var tip = document.getElementById("tip");
  function summary(s) {
    var t = s.family + " → " + s.form + " (" + s.verdict + ")";
    if (s.source) t = s.source + "\n" + t;
    if (s.classes.length) t += "\nclasses: " + s.classes.map(short).join(", ");
    if (s.retargets) t += "\nre-targeted " + fmt(s.retargets) + " times";
    if (s.fallbacks) t += "\nfell back " + s.fallbacks + " times";
    if (s.misses.at_least) t += "\nguard misses ≥ " + fmt(s.misses.at_least);
    t += "\ncounter " + s.counter.value + (s.counter.backoff === null ? "" : ", backoff " + s.counter.backoff);
    return t;
  }
  function hookSite(node, s) {
    node.addEventListener("mouseenter", function (ev) {
      tip.textContent = summary(s);
      tip.style.display = "block";
      moveTip(ev);
    });
    node.addEventListener("mousemove", moveTip);
    node.addEventListener("mouseleave", function () { tip.style.display = "none"; });
    node.addEventListener("click", function (ev) { ev.stopPropagation(); select(s.idx, false); });
  }
  function moveTip(ev) {
    tip.style.left = Math.min(ev.clientX + 12, window.innerWidth - 430) + "px";
    tip.style.top = (ev.clientY + 14) + "px";
  }

  function select(idx, scroll) {
    var s = sites[idx];
    document.querySelectorAll(".sel").forEach(function (n) { n.classList.remove("sel"); });
    document.querySelectorAll('[data-site="' + idx + '"]').forEach(function (n) {
      if (n.tagName !== "LI") n.classList.add("sel");
    });
    if (scroll) {
      var target = document.querySelector('.badge[data-site="' + idx + '"]');
      if (target) target.scrollIntoView({ block: "center" });
    }
    showDetails(s);
  }

  function showDetails(s) {
    var d = document.getElementById("details");
    d.innerHTML = "";
    d.appendChild(el("h3", null, (s.source || s.argrepr || s.family)));
    d.appendChild(el("div", { "class": "hint" }, s.function + "() · " + base(s.file) + ":" + s.line +
      (s.col !== null ? ":" + s.col : "") + " · offset " + s.offset));
    data.findings.forEach(function (f) {
      if (f.site === s.id || (f.also || []).indexOf(s.id) >= 0)
        d.appendChild(sentence(el("div", { "class": "sentence" }), f.sentence));
    });
    var t = el("table", { "class": "facts" });
    function row(k, v) { var tr = el("tr"); tr.appendChild(el("td", null, k)); tr.appendChild(el("td", null, v)); t.appendChild(tr); }
    row("family", s.family);
    row("form at exit", s.form);
    row("verdict", s.verdict);
    row("counter at exit", "raw " + s.counter.raw + " = value " + s.counter.value +
      (s.counter.backoff === null ? " (3.11 miss budget)" : ", backoff " + s.counter.backoff));
    row("classes seen", s.classes.length ? s.classes.join(", ") : "—");
    row("specializations", fmt(s.specializations));
    row("re-targetings", fmt(s.retargets));
    row("fall-backs", fmt(s.fallbacks));
    if (s.failed_attempts) row("failed attempts", String(s.failed_attempts));
    row("guard misses", s.misses.at_least ? "≥ " + fmt(s.misses.at_least) +
      (s.misses.per_second ? " (~" + fmt(Math.round(s.misses.per_second)) + "/s while specialized)" : "") +
      (s.misses.exact ? "" : " — lower bound: a re-specialization fell between samples") : "none seen");
    if (s.first_specialized_s !== null) row("first specialized", s.first_specialized_s.toFixed(4) + " s");
    d.appendChild(t);
    d.appendChild(el("div", { "class": "hint" }, "History (counter value over time; band = form; ticks = re-targeting)"));
    d.appendChild(historySvg(s));
    if (s.history_thinned) d.appendChild(el("div", { "class": "hint" }, "history thinned from " + s.history_thinned + " observations"));
    var ul = el("ul", { "class": "events" });
    s.events.forEach(function (e) {
      ul.appendChild(el("li", null, e[0].toFixed(4) + " s · " + e[1] + " · " + e[2] +
        (e[3] ? " → " + short(e[3]) : "") + (e[4] ? " (" + e[4] + ")" : "")));
    });
    if (!s.events.length) ul.appendChild(el("li", null, "no specialization events observed"));
    d.appendChild(ul);
  }

  var NS = "http://www.w3.org/2000/svg";
  function sv(tag, attrs, text) {
    var e = document.createElementNS(NS, tag);
    Object.keys(attrs || {}).forEach(function (k) { e.setAttribute(k, attrs[k]); });
    if (text !== undefined) e.textContent = text;
    return e;
  }
  function historySvg(s) {
    var W = 400, H = 150, L = 30, R = 8, T = 10, B = 22;
    var svg = sv("svg", { "class": "history", width: W, height: H, viewBox: "0 0 " + W + " " + H });
    var h = s.history;
    var t0 = 0, t1 = Math.max(data.run.duration_s, h.length ? h[h.length - 1][0] : 0, 1e-6);
    var vmax = 1;
    h.forEach(function (o) { if (o[3] > vmax) vmax = o[3]; });
    vmax = Math.max(vmax, s.counter.backoff === null ? 53 : 52);
    function X(t) { return L + (W - L - R) * (t - t0) / (t1 - t0); }
    function Y(v) { return T + (H - T - B) * (1 - Math.min(v, vmax) / vmax); }
    for (var i = 0; i < h.length; i++) {
      var a = h[i], bt = i + 1 < h.length ? h[i + 1][0] : t1;
      svg.appendChild(sv("rect", { x: X(a[0]), y: T, width: Math.max(1, X(bt) - X(a[0])), height: H - T - B,
        fill: STATE_COLOUR[a[2]] || "#eee" }));
    }
    var d = "";
    for (i = 0; i < h.length; i++) {
      var o = h[i], nt = i + 1 < h.length ? h[i + 1][0] : t1;
      d += (i ? "L" : "M") + X(o[0]).toFixed(1) + "," + Y(o[3]).toFixed(1) + "L" + X(nt).toFixed(1) + "," + Y(o[3]).toFixed(1);
    }
    if (d) svg.appendChild(sv("path", { d: d, fill: "none", stroke: "#223", "stroke-width": 1.2, "class": "counter" }));
    h.forEach(function (o) {   // each observation as a dot, so a lone sample still shows
      svg.appendChild(sv("circle", { cx: X(o[0]), cy: Y(o[3]), r: h.length < 40 ? 2.5 : 1.2, fill: "#223" }));
    });
    if (h.length < 3) svg.appendChild(sv("text", { x: L + 6, y: H - B - 6 },
      h.length + (h.length === 1 ? " sample" : " samples") + " of this site: lower --interval or run longer"));
    var palette = ["#1f77b4", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf", "#bcbd22", "#ff7f0e"];
    s.events.forEach(function (e) {
      if (e[1] === "re-targeted" || e[1] === "re-specialized" || e[1] === "specialized" || e[1] === "fell back") {
        var ci = e[3] ? s.classes.indexOf(e[3]) : -1;
        var col = e[1] === "fell back" ? "#b03fb0" : (ci >= 0 ? palette[ci % palette.length] : "#333");
        var tick = sv("line", { x1: X(e[0]), x2: X(e[0]), y1: H - B, y2: H - B + 6, stroke: col, "stroke-width": 2, "class": "tick" });
        tick.appendChild(sv("title", {}, e[1] + (e[3] ? " → " + short(e[3]) : "") + " at " + e[0].toFixed(4) + " s"));
        svg.appendChild(tick);
      }
    });
    svg.appendChild(sv("line", { x1: L, x2: W - R, y1: H - B, y2: H - B, stroke: "#888" }));
    svg.appendChild(sv("line", { x1: L, x2: L, y1: T, y2: H - B, stroke: "#888" }));
    svg.appendChild(sv("text", { x: 2, y: T + 8 }, String(vmax)));
    svg.appendChild(sv("text", { x: 2, y: H - B }, "0"));
    svg.appendChild(sv("text", { x: L, y: H - 4 }, "0 s"));
    svg.appendChild(sv("text", { x: W - R - 40, y: H - 4 }, t1.toFixed(3) + " s"));
    s.classes.slice(0, 6).forEach(function (c, k) {
      svg.appendChild(sv("text", { x: L + 4 + 62 * k, y: T + 10, fill: palette[k % palette.length], style: "fill:" + palette[k % palette.length] }, short(c)));
    });
    return svg;
  }

  // open the top finding (or the first site) so the page starts useful
  if (data.findings.length) select(byId[data.findings[0].site].idx, false);
  else if (sites.length) select(0, false);
  window.__lensReady = true;
})();
