#!/usr/bin/env python3
# check_page.py: reads the DOM headless Chromium dumped of a `ramplace report --html` page and
# checks what a person would look at, against figures other tools print (t_report_html.sh):
#   check_page.py DOM CURVE_TXT PLAN SIZE_A TOP_NAMES [PLACE_OUT RUNS_TXT RESERVES]
# DOM: chromium --dump-dom output; CURVE_TXT: `ramplace report --budget-curve`; PLAN: the plan
# `ramplace place` wrote with the same options; SIZE_A: `arm-none-eabi-size -A fw.elf`;
# TOP_NAMES: the profile's top function names, one per line (from `ramplace report`).
# PLACE_OUT: what `ramplace place` printed with the same options ("kept in flash:" lines, the
# "stability:" line); RUNS_TXT: `ramplace report --runs`; RESERVES: "stack|heap SYMBOL BYTES"
# per size symbol the ELF defines (from nm): each must be drawn in the RAM region.
# Prints one "ok:"/"FAIL:" line per check; exit 1 on any failure.
import re
import sys
from html.parser import HTMLParser


class Page(HTMLParser):
    def __init__(self):
        super().__init__()
        self.points, self.mark, self.plan_point, self.svg = [], None, None, None
        self.regions, self.rows, self.rest = [], [], None
        self.in_hot = self.in_tbody = False
        self.cell, self.row = None, None
        self.knee = None
        self.facts, self.fact = {}, None

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        cls = a.get("class", "").split()
        if tag == "svg" and a.get("id") == "curve-svg":
            self.svg = a
        elif tag == "circle" and "data-budget" in a and a.get("id") != "plan-point":
            self.points.append((int(a["data-budget"]), int(a["data-value"])))
        elif tag == "circle" and a.get("id") == "plan-point":
            self.plan_point = (int(a["data-budget"]), int(a["data-value"]))
        elif tag == "line" and a.get("id") == "budget-mark":
            self.mark = int(a["data-budget"])
        elif tag == "p" and a.get("id") == "knee":
            self.knee = int(a["data-budget"])
        elif tag == "div" and "region" in cls:
            self.regions.append({"name": a["data-region"], "length": int(a["data-length"]),
                                 "used": int(a["data-used"]), "segs": []})
        elif tag == "div" and "seg" in cls and self.regions:
            self.regions[-1]["segs"].append((cls, a["data-name"], int(a["data-bytes"]), int(a["data-addr"], 16)))
        elif tag == "table" and a.get("id") == "hot":
            self.in_hot = True
        elif tag == "tbody" and self.in_hot:
            self.in_tbody = True
        elif tag == "tr" and self.in_tbody:
            self.row = []
        elif tag == "td" and self.row is not None:
            self.cell = ""
        elif tag == "td" and a.get("id", "").startswith("run-"):
            self.fact = a["id"]
            self.facts[self.fact] = ""
        elif tag == "tr" and a.get("id") == "rest":
            self.rest = (int(a["data-functions"]), int(a["data-samples"]))

    def handle_endtag(self, tag):
        if tag == "td":
            self.fact = None
        if tag == "td" and self.cell is not None:
            self.row.append(self.cell)
            self.cell = None
        elif tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None
        elif tag == "tbody" and self.in_tbody:
            self.in_tbody = self.in_hot = False

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data
        if self.fact:
            self.facts[self.fact] += data


failed = 0


def check(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what)
    failed += not ok


def main():
    dom, curve_txt, plan, size_a, top = sys.argv[1:6]
    page = Page()
    page.feed(open(dom, encoding="utf-8").read())
    text = open(curve_txt).read()
    npts = int(re.search(r"budget curve: (\d+) point", text).group(1))
    rows = [tuple(int(x) for x in m.groups()) for m in re.finditer(r"^\s+(\d+)\s+(\d+)\s+[\d.]+%", text, re.M)]
    check(len(page.points) == npts == len(rows), f"the curve has {npts} points ({len(page.points)} drawn)")
    check(page.points == rows, "each drawn point is the text curve's (budget, samples)")
    check(all(b[1] >= a[1] for a, b in zip(page.points, page.points[1:])), "the curve never falls")
    pl = dict(line.split(" ", 1) for line in open(plan).read().splitlines() if " " in line)
    budget = int(pl["budget"])
    check(page.mark == budget, f"the marked budget is the plan's ({page.mark} vs {budget})")
    moved = int(pl["samples"].split()[1])
    check(page.plan_point == (budget, moved) if moved else page.plan_point[0] == budget,
          f"the plan's point is at its budget with its samples ({page.plan_point} vs {budget}, {moved})")
    check(budget in [p[0] for p in page.points], "the plan's budget is a point of the curve")
    check(page.knee in [p[0] for p in page.points], "the knee is a point of the curve")
    sizes = {}
    for line in open(size_a).read().splitlines()[2:]:
        f = line.split()
        if len(f) == 3 and f[1].isdigit():
            sizes[f[0]] = (int(f[1]), int(f[2]))
    check(len(page.regions) >= 2, f"{len(page.regions)} memory regions drawn")
    seen = {}
    for r in page.regions:
        secs = [s for s in r["segs"] if "sec" in s[0]]
        ok = all(name in sizes and sizes[name][0] == b for _, name, b, _ in secs)
        check(ok, f"region {r['name']}: every section's bytes are the ELF's ({len(secs)} sections)")
        check(sum(s[2] for s in secs) == r["used"], f"region {r['name']}: the sections add up to its use")
        if r["length"]:
            total = sum(s[2] for s in r["segs"])
            check(total == r["length"], f"region {r['name']}: sections, plan and free add up to its length")
        for cls, name, b, addr in secs:
            if "load" not in cls:
                seen[name] = seen.get(name, 0) + 1
    alloc = {n for n, (s, a) in sizes.items() if s and not n.startswith((".ARM.attributes", ".comment", ".debug"))}
    check(all(seen.get(n) == 1 for n in alloc), "every allocated section of the ELF is drawn once: " +
          ", ".join(sorted(n for n in alloc if seen.get(n) != 1)))
    names = [l.strip() for l in open(top) if l.strip()]
    got = [r[0] for r in page.rows[:len(names)]]
    check(sorted(got) == sorted(names), f"the table's top {len(names)} rows are the profile's top functions")
    samples = [int(r[3]) for r in page.rows]
    check(samples == sorted(samples, reverse=True), "the table lists the hottest first")
    ram = [r[0] for r in page.rows if r[7] == pl["output-section"]]
    units = [l.split()[1] for l in open(plan) if l.startswith("unit ")]
    check(set(units) <= set(ram) | set(r[0] for r in page.rows[2000:]), "the plan's units show as moving to " + pl["output-section"])
    if len(sys.argv) > 8:
        check_run_reasons(page, pl, *sys.argv[6:9])
    sys.exit(1 if failed else 0)


def check_run_reasons(page, pl, place_out, runs_txt, reserves):
    """The run's facts are `report --runs`'s and `place`'s; heap and stack declared only by
    symbols are drawn in RAM; every function kept in flash gives place's reason."""
    out = open(place_out).read()
    runs = [l.split(None, 6) for l in open(runs_txt).read().splitlines()[1:] if l.strip()]
    methods = ", ".join(dict.fromkeys(r[3] for r in runs))
    check(page.facts.get("run-method") == methods, f"the run's method is report --runs' ({page.facts.get('run-method')!r} vs {methods!r})")
    rates = ", ".join(dict.fromkeys(f"{r[4]} Hz" if r[4] != "0" else "none (counted)" for r in runs))
    check(page.facts.get("run-rate") == rates, f"the run's rate is report --runs' ({page.facts.get('run-rate')!r} vs {rates!r})")
    total = sum(int(r[5]) for r in runs)
    check(page.facts.get("run-samples") == str(total), f"the run's samples add up to report --runs' ({page.facts.get('run-samples')} vs {total})")
    slow = ", ".join(dict.fromkeys((m.group(1) + " %") if (m := re.search(r"slowdown ([\d.]+) %", r[6] if len(r) > 6 else "")) else "-" for r in runs))
    check(page.facts.get("run-slowdown") == slow, f"the slowdown is the runs' notes' ({page.facts.get('run-slowdown')!r} vs {slow!r})")
    build = pl.get("build-id", "").split()[0] if pl.get("build-id") else None
    check(page.facts.get("run-build-id") and all(page.facts["run-build-id"].startswith(r[1]) for r in runs) and
          (build is None or page.facts["run-build-id"] == build), f"the build-id is the runs' ({page.facts.get('run-build-id')})")
    check(re.fullmatch(r"\d+\.\d+\.\d+\S*", page.facts.get("run-version", "")) is not None, "the tool's version is given")
    stab = re.search(r"^stability: (.*)$", out, re.M)
    check(stab and page.facts.get("run-stability") == stab.group(1), "the stability verdict is place's: " + (stab.group(1) if stab else "none printed"))
    ram = [r for r in page.regions if any("bss" in s[0] for s in r["segs"])]
    for line in open(reserves).read().splitlines():
        what, sym, nbytes = line.split()
        hit = [s for r in ram for s in r["segs"] if "reserve" in s[0] and what in s[0] and s[1] == f"{what} ({sym})"]
        check(len(hit) == 1 and hit[0][2] == int(nbytes), f"the {what} reserved by {sym} ({nbytes} bytes) is drawn in RAM")
    rows = {r[0]: r for r in page.rows}
    kept = re.findall(r"^kept in flash: ([^ :]+): (.*)$", out, re.M)
    shown = [(n, w) for n, w in kept if n in rows]
    check(shown and all(rows[n][-1] == w for n, w in shown), f"each 'kept in flash: NAME: WHY' of place is the row's reason ({len(shown)} of {len(kept)} sampled)")
    # place counts units (a function with its clones, or the functions of one input section):
    # the rows are functions, so their samples are what adds up to place's share
    m = re.search(r"^kept in flash: (\d+) function\(s\) with ([\d.]+)% of the samples, each below --min-share", out, re.M)
    below = [r for r in page.rows if r[-1].startswith("below --min-share")]
    share = 100.0 * sum(int(r[3]) for r in below) / int(pl["samples"].split()[0])
    check(m and len(below) >= int(m.group(1)) and f"{share:.3f}" == m.group(2),
          f"the rows below --min-share hold place's share of the samples ({len(below)} rows, {share:.3f} %)")
    flash = [r for r in page.rows if r[-2] == "flash" and int(r[3]) > 0]
    check(flash and all(r[-1] for r in flash), f"every sampled function left in flash says why ({len(flash)} rows)")


if __name__ == "__main__":
    main()
