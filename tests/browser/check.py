"""Loads report pages in headless Chromium and checks what a reader would see.

    python3 tests/browser/check.py CHROMIUM REPORT_DIR...

For each REPORT_DIR (a directory holding index.html and its SVGs):

- index.html loads without a script error or a resource that fails to load, every
  image is drawn (loaded, with a size), and nothing is wider than the page;
- no table cell cuts its text;
- every SVG, inlined into one page, keeps every text inside its own canvas (a title wider
  than the chart, a tick label cut at the edge), writes no label in exponent form (3e-17),
  and draws no legend box over a point of its data lines or markers.

Chromium runs each page with a checking script injected and prints the page after it
ran (--dump-dom); the script writes its findings into the page. Exits 1 on any finding,
naming the page, the file and the text.
"""

import html
import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

RESULT = re.compile(r'<pre id="sitesim-check">(.*?)</pre>', re.S)

# Collects errors from the start: script errors, and resources (images) that fail.
CATCH = """<script>
window.sitesimErrors = [];
window.addEventListener('error', function (e) {
  var t = e.target;
  window.sitesimErrors.push(t && t !== window && (t.src || t.href)
    ? 'failed to load ' + (t.src || t.href) : 'script error: ' + e.message);
}, true);
</script>"""

# After loading: images drawn, nothing wider than the page, texts inside their SVG.
CHECK = """<script>
window.addEventListener('load', function () {
  var found = window.sitesimErrors.slice();
  document.querySelectorAll('img').forEach(function (img) {
    if (!img.complete || img.naturalWidth === 0) found.push('image not drawn: ' + img.src);
  });
  var width = document.documentElement.clientWidth;
  if (document.documentElement.scrollWidth > width + 1)
    found.push('the page is ' + document.documentElement.scrollWidth + ' px wide in a ' + width + ' px window');
  document.querySelectorAll('table').forEach(function (t, i) {
    var inScroll = t.parentElement.classList.contains('scroll');
    if (!inScroll && t.getBoundingClientRect().right > document.body.getBoundingClientRect().right + 1)
      found.push('table ' + (i + 1) + ' runs past the page column');
  });
  // Text cut inside a table's cell (a fixed width, an ellipsis).
  document.querySelectorAll('td, th').forEach(function (c) {
    if (c.scrollWidth > c.clientWidth + 1)
      found.push('a table cell is cut: "' + c.textContent.trim().slice(0, 60) + '"');
  });
  document.querySelectorAll('div.svg').forEach(function (div) {
    var svg = div.querySelector('svg');
    var s = svg.getBoundingClientRect();
    // A tick label in exponent form (3e-17 for 0, 2e8 for 200,000,000).
    svg.querySelectorAll('text').forEach(function (t) {
      if (/^[-\u2212]?[0-9.]+e[-+\u2212]?[0-9]+$/i.test(t.textContent.trim()))
        found.push(div.dataset.file + ': a label in exponent form, "' + t.textContent.trim() + '"');
    });
    // A legend box drawn over the data: a data line's point or a marker inside the
    // legend's white box (plotters draws it after the data, its own swatches after it).
    var all = Array.prototype.slice.call(svg.querySelectorAll('*'));
    all.forEach(function (box, at) {
      if (box.tagName !== 'rect' || box.getAttribute('fill') !== '#FFFFFF' ||
          box.getAttribute('stroke') !== 'none' || box.getAttribute('opacity') !== '0.85') return;
      var x0 = +box.getAttribute('x'), y0 = +box.getAttribute('y');
      var x1 = x0 + (+box.getAttribute('width')), y1 = y0 + (+box.getAttribute('height'));
      var inside = function (x, y) { return x > x0 + 1 && x < x1 - 1 && y > y0 + 1 && y < y1 - 1; };
      var covered = 0;
      all.slice(0, at).forEach(function (e) {
        var stroke = (e.getAttribute('stroke') || '').toUpperCase();
        if (e.tagName === 'polyline' && stroke !== '#000000' && stroke !== '#FFFFFF') {
          (e.getAttribute('points') || '').trim().split(/\s+/).forEach(function (p) {
            var xy = p.split(',');
            if (xy.length === 2 && inside(+xy[0], +xy[1])) covered++;
          });
        } else if (e.tagName === 'circle' && inside(+e.getAttribute('cx'), +e.getAttribute('cy'))) {
          covered++;
        }
      });
      if (covered > 0)
        found.push(div.dataset.file + ': the legend covers ' + covered + ' point(s) of the data');
    });
    svg.querySelectorAll('text').forEach(function (t) {
      if (!t.textContent.trim()) return;
      // The text's box on the page, its rotation included, against the canvas's.
      var b = t.getBoundingClientRect();
      if (b.left < s.left - 1 || b.top < s.top - 1 || b.right > s.right + 1 || b.bottom > s.bottom + 1)
        found.push(div.dataset.file + ': text "' + t.textContent.trim() + '" runs outside the ' +
                   Math.round(s.width) + ' x ' + Math.round(s.height) + ' canvas (from ' +
                   Math.round(b.left - s.left) + ', ' + Math.round(b.top - s.top) + ' to ' +
                   Math.round(b.right - s.left) + ', ' + Math.round(b.bottom - s.top) + ')');
    });
  });
  var pre = document.createElement('pre');
  pre.id = 'sitesim-check';
  pre.textContent = JSON.stringify(found);
  document.body.appendChild(pre);
});
</script>"""


def run(chromium, page):
    """The findings of the checking script on `page`."""
    out = subprocess.run(
        [chromium, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
         "--allow-file-access-from-files", "--window-size=1280,900",
         "--virtual-time-budget=20000", "--dump-dom", page.as_uri()],
        capture_output=True, text=True, timeout=180,
    )
    m = RESULT.search(out.stdout)
    if m is None:
        return [f"the checking script did not finish (chromium exit {out.returncode}): "
                f"{out.stderr.strip()[-2000:]}"]
    return json.loads(html.unescape(m.group(1)))


def check_dir(chromium, dir, scratch):
    findings = []
    index = dir / "index.html"
    if not index.is_file():
        return [f"{index}: no page"]
    text = index.read_text(encoding="utf-8")
    text = text.replace("<head>", "<head>" + CATCH, 1).replace("</body>", CHECK + "</body>", 1)
    page = dir / ".sitesim-check.html"
    page.write_text(text, encoding="utf-8")
    try:
        findings += [f"{index}: {f}" for f in run(chromium, page)]
    finally:
        page.unlink()
    svgs = sorted(dir.glob("*.svg"))
    if svgs:
        body = "".join(
            f'<div class="svg" data-file="{svg.name}">'
            + re.sub(r"^<\?xml[^>]*>", "", svg.read_text(encoding="utf-8").lstrip())
            + "</div>"
            for svg in svgs
        )
        page = scratch / f"{abs(hash(str(dir)))}-svgs.html"
        page.write_text(f"<!DOCTYPE html><html><head><meta charset='utf-8'>{CATCH}</head>"
                        f"<body>{body}{CHECK}</body></html>", encoding="utf-8")
        findings += [f"{dir}/{f}" for f in run(chromium, page)]
    return findings


def main():
    chromium, dirs = sys.argv[1], [Path(d).resolve() for d in sys.argv[2:]]
    findings = []
    with tempfile.TemporaryDirectory() as scratch:
        for dir in dirs:
            found = check_dir(chromium, dir, Path(scratch))
            print(f"{dir}: {len(list(dir.glob('*.svg')))} SVGs, "
                  f"{'ok' if not found else str(len(found)) + ' finding(s)'}")
            findings += found
    for f in findings:
        print("  " + f)
    sys.exit(1 if findings else 0)


if __name__ == "__main__":
    main()
