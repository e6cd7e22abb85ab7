#!/usr/bin/env python3
# layering.py: the library's layering as the build really has it (ramplace/lib/README.md).
#   layering.py SRC BUILD [--graph]
# Reads the symbols every library and CLI object defines and uses (nm on the objects CMake built
# for ramplace_core and ramplace) and the #include lines of the library's sources and headers, and checks:
#   1. no two library or CLI files call into each other, directly or round a longer circle;
#   2. no circle in the include graph;
#   3. each stage uses only the stages below it (STAGE_USES): image and profile are inputs to
#      solve, ldgen and verify take the plan, ldgen needs nothing else, util/error nothing at all.
# Prints one line per check and "N passed, N failed"; exit 1 on any failure. --graph also prints
# the file-level call graph and the stage of every header.
import os
import re
import subprocess
import sys

# what each stage may use besides itself (a folder of ramplace/lib each, ldgen/ and cli/)
STAGE_USES = {
    "root": set(),
    "image": {"root"},
    "profile": {"root", "image"},
    "collect": {"root", "image", "profile"},
    # the flash timing models and the weights in cycles they give a profile
    "flash": {"root", "image", "profile"},
    # the plan and ramplace.yaml formats (the config names flash models per range)
    "plan": {"root", "flash"},
    "solve": {"root", "image", "profile", "plan", "flash"},
    # the link model: where the linker puts each section and stub, and a layout's price
    "layout": {"root", "image", "flash"},
    "verify": {"root", "image", "plan"},
    "ldgen": {"root", "plan"},
    # the reports a person reads (HTML, the budget curve): above everything they show
    "present": {"root", "image", "profile", "flash", "solve", "plan", "verify"},
    # one placement from files to a result, and its fragments written: above solve and ldgen
    # and its report (the HTML page, through present)
    "pipeline": {"root", "image", "profile", "flash", "solve", "layout", "plan", "ldgen", "present"},
    "cli": {"root", "image", "profile", "collect", "flash", "solve", "layout", "plan", "verify", "ldgen", "present",
            "pipeline"},
}


def stage_of_source(rel):
    """Stage of a source path relative to the source root (None: not library or CLI code)."""
    if rel.startswith("ramplace/cli/"):
        return "cli"
    if rel.startswith("ldgen/"):
        return "ldgen"
    m = re.match(r"ramplace/lib/(?:([a-z]+)/)?[^/]+\.[ch]$", rel)
    if not m:
        return None
    return m.group(1) or "root"


def library_sources(src):
    out = []
    for top in ("ramplace/lib", "ldgen", "ramplace/cli"):
        for d, _, files in os.walk(os.path.join(src, top)):
            for f in files:
                if f.endswith((".c", ".h")):
                    out.append(os.path.relpath(os.path.join(d, f), src))
    return sorted(out)


def objects(build, src, sources):
    """source path -> object file CMake built for it."""
    out = {}
    for rel in sources:
        if rel.endswith(".c"):
            target = "ramplace.dir" if rel.startswith("ramplace/cli/") else "ramplace_core.dir"
            obj = os.path.join(build, "CMakeFiles", target, rel + ".o")
            if not os.path.exists(obj):
                sys.exit(f"layering: {obj}: not built (build ramplace first)")
            out[rel] = obj
    return out


def nm(obj, *flags):
    res = subprocess.run(["nm", *flags, obj], capture_output=True, text=True, check=True)
    return [line.split()[-1] for line in res.stdout.splitlines() if line.strip()]


def call_graph(objs):
    defined = {}
    for rel, obj in objs.items():
        for sym in nm(obj, "--defined-only", "-g"):
            defined[sym] = rel
    edges = {rel: set() for rel in objs}
    for rel, obj in objs.items():
        for sym in nm(obj, "-u"):
            to = defined.get(sym)
            if to and to != rel:
                edges[rel].add(to)
    return edges


def include_graph(src, sources):
    """file -> files it includes, among the library's own headers."""
    inc_dirs = [os.path.join(src, "ramplace", "include"), os.path.join(src, "ldgen", "include"),
                os.path.join(src, "ramplace", "cli")]
    headers = {}
    for d in inc_dirs:
        for d2, _, files in os.walk(d):
            for f in files:
                if f.endswith(".h"):
                    p = os.path.join(d2, f)
                    headers[os.path.relpath(p, d)] = os.path.relpath(p, src)
    nodes = set(sources) | set(headers.values())
    edges = {n: set() for n in nodes}
    for n in nodes:
        with open(os.path.join(src, n), encoding="utf-8", errors="replace") as fh:
            for line in fh:
                m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                if not m:
                    continue
                name = m.group(1)
                local = os.path.normpath(os.path.join(os.path.dirname(n), name))
                if local in nodes:
                    edges[n].add(local)
                elif name in headers:
                    edges[n].add(headers[name])
    return edges


def cycles(edges):
    """Strongly connected components with more than one node (Tarjan, iterative)."""
    index, low, on, stack, out = {}, {}, set(), [], []
    counter = [0]
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            nxt = next(it, None)
            if nxt is not None:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter[0]
                    counter[0] += 1
                    stack.append(nxt)
                    on.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                elif nxt in on:
                    low[v] = min(low[v], index[nxt])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


def header_stage(src, header, calls_defined_in):
    """A header's stage: that of the source defining the functions it declares, else of the
    source of the same name."""
    with open(os.path.join(src, header), encoding="utf-8", errors="replace") as fh:
        text = fh.read()
    votes = {}
    for name in re.findall(r"\b(rp_\w+)\s*\(", text):
        rel = calls_defined_in.get(name)
        if rel:
            st = stage_of_source(rel)
            votes[st] = votes.get(st, 0) + 1
    if votes:
        return max(sorted(votes), key=lambda s: votes[s])
    base = os.path.basename(header)[:-2] + ".c"
    for rel in calls_defined_in.values():
        if os.path.basename(rel) == base:
            return stage_of_source(rel)
    return stage_of_source(header)


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: layering.py SRC BUILD [--graph]")
    src, build = sys.argv[1], sys.argv[2]
    show = "--graph" in sys.argv[3:]
    sources = library_sources(src)
    objs = objects(build, src, sources)
    calls = call_graph(objs)
    defined = {}
    for rel, obj in objs.items():
        for sym in nm(obj, "--defined-only", "-g"):
            defined[sym] = rel
    incs = include_graph(src, sources)
    stage = {rel: stage_of_source(rel) for rel in sources}
    for node in incs:
        if node not in stage or stage[node] is None or node.startswith("ramplace/include/"):
            stage[node] = header_stage(src, node, defined) if node.endswith(".h") else stage.get(node)
    passed = failed = 0

    def report(ok, what, detail=()):
        nonlocal passed, failed
        if ok:
            passed += 1
            print(f"ok: {what}")
        else:
            failed += 1
            print(f"FAIL: {what}")
            for line in detail:
                print(f"  {line}")

    call_cycles = cycles(calls)
    report(not call_cycles, f"no circle of calls among the {len(objs)} library and CLI files",
           [" <-> ".join(c) for c in call_cycles])
    inc_cycles = cycles(incs)
    report(not inc_cycles, f"no circle in the include graph ({len(incs)} files)",
           [" <-> ".join(c) for c in inc_cycles])
    upward = []
    for a, tos in sorted(calls.items()):
        for b in sorted(tos):
            if stage[b] != stage[a] and stage[b] not in STAGE_USES[stage[a]]:
                upward.append(f"{a} ({stage[a]}) calls into {b} ({stage[b]})")
    for a, tos in sorted(incs.items()):
        for b in sorted(tos):
            sa, sb = stage.get(a), stage.get(b)
            if sa and sb and sa != sb and sb not in STAGE_USES.get(sa, set()):
                upward.append(f"{a} ({sa}) includes {b} ({sb})")
    report(not upward, "every stage uses only the stages below it", upward)
    if show:
        for a, tos in sorted(calls.items()):
            print(f"calls: {a} [{stage[a]}] -> {', '.join(sorted(tos)) or '-'}")
        for h in sorted(n for n in incs if n.endswith(".h")):
            print(f"header: {h} [{stage.get(h)}]")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
