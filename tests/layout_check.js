// Test-only (tests/test_report.py): measures every <text> of every report figure (svg.plot) as
// the browser lays it out and writes what it finds into the page as JSON in a pre element (id layout-check):
// texts that overlap another text of the same figure, and texts reaching outside their figure.
// Each text is its bounding box in its own coordinates mapped to the screen (rotated labels stay
// rotated rectangles, compared by the separating-axis test), shrunk by half a pixel a side so
// that boxes which merely touch do not count.
(function () {
  var EPS = 0.5, problems = [], nTexts = 0, figures = document.querySelectorAll("svg.plot");
  function corners(t) {
    var b = t.getBBox(), m = t.getScreenCTM();
    var pts = [[b.x + EPS, b.y + EPS], [b.x + b.width - EPS, b.y + EPS],
               [b.x + b.width - EPS, b.y + b.height - EPS], [b.x + EPS, b.y + b.height - EPS]];
    return pts.map(function (p) { return [m.a * p[0] + m.c * p[1] + m.e, m.b * p[0] + m.d * p[1] + m.f]; });
  }
  function separated(p, q) {
    var polys = [p, q];
    for (var s = 0; s < 2; s++) {
      for (var i = 0; i < 4; i++) {
        var a = polys[s][i], b = polys[s][(i + 1) % 4], nx = b[1] - a[1], ny = a[0] - b[0];
        var pmin = Infinity, pmax = -Infinity, qmin = Infinity, qmax = -Infinity;
        p.forEach(function (v) { var d = v[0] * nx + v[1] * ny; pmin = Math.min(pmin, d); pmax = Math.max(pmax, d); });
        q.forEach(function (v) { var d = v[0] * nx + v[1] * ny; qmin = Math.min(qmin, d); qmax = Math.max(qmax, d); });
        if (pmax <= qmin || qmax <= pmin) return true;
      }
    }
    return false;
  }
  figures.forEach(function (svg, i) {
    var fig = svg.closest("figure"), name = (fig && fig.getAttribute("aria-label")) || ("figure " + i);
    var box = svg.getBoundingClientRect();
    var texts = Array.prototype.filter.call(svg.querySelectorAll("text"), function (t) { return t.textContent.trim(); });
    var quads = texts.map(corners);
    nTexts += texts.length;
    quads.forEach(function (q, k) {
      var out = q.some(function (v) {
        return v[0] < box.left - EPS || v[0] > box.right + EPS || v[1] < box.top - EPS || v[1] > box.bottom + EPS;
      });
      if (out) problems.push({figure: i, name: name, kind: "outside its figure", text: texts[k].textContent});
      for (var j = k + 1; j < quads.length; j++) {
        if (!separated(q, quads[j])) {
          problems.push({figure: i, name: name, kind: "overlap", text: texts[k].textContent, other: texts[j].textContent});
        }
      }
    });
  });
  var pre = document.createElement("pre");
  pre.id = "layout-check";
  pre.textContent = JSON.stringify({figures: figures.length, texts: nTexts, problems: problems});
  document.body.appendChild(pre);
})();
