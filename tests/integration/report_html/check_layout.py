#!/usr/bin/env python3
"""check_layout.py DOM WIDTH: reads what measure.js wrote into a page rendered by Chromium at
WIDTH pixels and checks what a person reading it would notice: the page never scrolls sideways,
every label of the budget curve lies inside the curve's box (none clipped at an edge), the
curve's y labels are short readable numbers ("2 G", "5.22 G", "75 %"), not raw 10-digit counts, and
the headline shows no ".0" on a whole number. Prints one ok/FAIL line a check; exit 1 on any
failure."""
import html
import json
import re
import sys

page = open(sys.argv[1]).read()
width = sys.argv[2]
m = re.search(r'<pre id="layout">(.*?)</pre>', page, re.S)
if not m:
    print("FAIL: measure.js wrote no layout (did the page render?)")
    sys.exit(1)
lay = json.loads(html.unescape(m.group(1)))
failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what + " (at %s px)" % width)
    failed += 0 if ok else 1


check(lay["scrollWidth"] <= lay["clientWidth"],
      "the page does not scroll sideways: scroll width %d, client width %d%s" % (
          lay["scrollWidth"], lay["clientWidth"], "; wider: " + ", ".join(lay["wide"]) if lay["wide"] else ""))
curve = [s for s in lay["svgs"] if s["id"] == "curve-svg"]
check(len(curve) == 1, "one budget curve")
if curve:
    c = curve[0]
    outside = [t for t in c["texts"] if t["left"] < -0.5 or t["right"] > c["width"] + 0.5 or
               t["top"] < -0.5 or t["bottom"] > c["height"] + 0.5]
    check(not outside, "every curve label inside the curve's %.0fx%.0f box%s" %
          (c["width"], c["height"], "; outside: " + ", ".join(
              "%r at %.1f..%.1f" % (t["text"], t["left"], t["right"]) for t in outside) if outside else ""))
    ylabels = [t["text"] for t in c["texts"] if t["cls"] == "ylabel"]
    readable = re.compile(r"^\d{1,3}(\.\d{1,2})?( [kMGT]| %)?$")
    check(3 <= len(ylabels) <= 7 and all(readable.match(y) for y in ylabels),
          "the y labels are readable numbers: %s" % ", ".join(ylabels))
knee = lay.get("knee") or ""
check(bool(knee) and not re.search(r"\d\.0 cycles", knee) and not re.search(r"\d{7,}", knee),
      "the headline reads right: %r" % knee)
sys.exit(1 if failed else 0)
