// Fills the kernel tables from the page's JSON and makes them sortable and
// filterable. Names are untrusted: they only ever reach the page through
// textContent, never as markup.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("data").textContent);

  // fixed is Go's strconv 'f' formatting: correctly rounded, and on an
  // exact tie to even (toFixed rounds ties up), so the page shows what the
  // text report prints.
  function fixed(x, d) {
    var s = x.toFixed(d);
    var exact = Math.abs(x).toFixed(100);
    var dot = exact.indexOf(".");
    if (/^50*$/.test(exact.slice(dot + 1 + d)) && Number(exact.charAt(dot + d)) % 2 === 0) {
      s = (x < 0 ? "-" : "") + exact.slice(0, d > 0 ? dot + 1 + d : dot); // round down to the even digit
    }
    return s;
  }
  // ns mirrors internal/units.NS.
  function ns(v) {
    var a = Math.abs(v);
    if (a >= 1e9) return fixed(v / 1e9, 3) + " s";
    if (a >= 1e6) return fixed(v / 1e6, 3) + " ms";
    if (a >= 1e3) return fixed(v / 1e3, 3) + " \u00b5s";
    if (v === Math.trunc(v)) return String(v) + " ns";
    return fixed(v, 1) + " ns";
  }
  // show mirrors render.Duration, DurationF and Share.
  function show(v, fmt, unit) {
    if (v === null || v === undefined) return "-";
    if (typeof v === "string") return v;
    var u = unit || "units";
    switch (fmt) {
      case "share": return fixed(100 * v, 1) + "%";
      case "dur": return unit === "ns" ? ns(v) : String(v) + " " + u;
      case "mean": return unit === "ns" ? ns(v) : fixed(v, 1) + " " + u;
    }
    return String(v);
  }
  window.tallyShow = show; // for the browser tests

  function setup(section) {
    var idx = Number(section.getAttribute("data-program"));
    var td = data.programs[idx];
    var box = section.querySelector(".tablebox");
    if (!td || !box) return;
    var table = box.querySelector("table.kernels");
    var filter = box.querySelector(".filter");
    var status = box.querySelector(".status");
    var more = box.querySelector(".more");
    var state = { key: -1, dir: 0, all: false, rows: td.rows.slice() };
    var full = td.full || {}; // shown short name → whole name

    var tr = document.createElement("tr");
    td.columns.forEach(function (col, i) {
      var th = document.createElement("th");
      th.setAttribute("data-key", col.key);
      var num = col.fmt !== "text";
      if (num) th.className = "n";
      var b = document.createElement("button");
      b.type = "button";
      b.textContent = col.title;
      b.addEventListener("click", function () { sortBy(i); });
      th.appendChild(b);
      tr.appendChild(th);
    });
    table.tHead.appendChild(tr);

    function sortBy(i) {
      var num = td.columns[i].fmt !== "text";
      // Numbers start descending (largest first), text ascending.
      state.dir = state.key === i ? -state.dir : (num ? -1 : 1);
      state.key = i;
      var dir = state.dir;
      state.rows = td.rows.slice().sort(function (a, b) {
        var x = a[i], y = b[i];
        if (num) { // unavailable and unknown last
          if (typeof x !== "number") x = null;
          if (typeof y !== "number") y = null;
        }
        if (x === y) return 0;
        if (x === null || x === undefined) return 1;
        if (y === null || y === undefined) return -1;
        if (num) return dir * (x - y);
        return dir * (x < y ? -1 : 1);
      });
      var ths = table.tHead.rows[0].cells;
      for (var j = 0; j < ths.length; j++) ths[j].removeAttribute("aria-sort");
      ths[i].setAttribute("aria-sort", dir > 0 ? "ascending" : "descending");
      draw();
    }

    function draw() {
      var q = filter.value.toLowerCase();
      // The filter matches the shown name and, when shown short, the whole one.
      var rows = q ? state.rows.filter(function (r) {
        return (String(r[0]) + "\n" + (full[r[0]] || "")).toLowerCase().indexOf(q) >= 0;
      }) : state.rows;
      var shown = state.all ? rows : rows.slice(0, data.rows);
      var body = document.createElement("tbody");
      shown.forEach(function (r) {
        var tr = document.createElement("tr");
        r.forEach(function (c, i) {
          var cell = document.createElement("td");
          var col = td.columns[i];
          cell.className = col.fmt === "text" ? col.key : "n";
          cell.textContent = show(c, col.fmt, td.unit);
          if (col.key === "name" && full[c]) cell.title = full[c];
          tr.appendChild(cell);
        });
        body.appendChild(tr);
      });
      table.replaceChild(body, table.tBodies[0]);
      status.textContent = "showing " + shown.length + " of " + rows.length + " kernels" +
        (rows.length < td.rows.length ? " matching (" + td.rows.length + " in all)" : "");
      more.hidden = shown.length === rows.length;
      more.textContent = "show all " + rows.length;
    }

    filter.addEventListener("input", draw);
    more.addEventListener("click", function () { state.all = true; draw(); });
    draw();
  }

  // Tables inside a closed section (an input of a page of many) are drawn
  // when it is first opened: a page of 64 ranks opens fast.
  function lazy(section) {
    var d = section.closest("details.lazy");
    if (!d || d.open) { setup(section); return; }
    d.addEventListener("toggle", function once() {
      d.removeEventListener("toggle", once);
      setup(section);
    });
  }
  var sections = document.querySelectorAll("section.program");
  for (var i = 0; i < sections.length; i++) lazy(sections[i]);

  // Timeline: name the kernel under the pointer.
  var tip = document.getElementById("tip");
  document.addEventListener("mousemove", function (e) {
    var k = e.target.getAttribute && e.target.getAttribute("data-k");
    if (k === null || k === undefined || !tip) { if (tip) tip.hidden = true; return; }
    tip.textContent = data.kernels[Number(k)];
    tip.style.left = (e.clientX + 12) + "px";
    tip.style.top = (e.clientY + 12) + "px";
    tip.hidden = false;
  });
})();
