#!/usr/bin/env python3
"""optimum.py COUNTS NM_S PLAN BUDGET: how good a plan is, judged without ramplace's own model.

The value of moving a function to RAM is the flash stall cycles the QEMU plugin counted for it
(COUNTS, a ramplace-qemu file: each instruction's stall cycles, and each data read's, a read
inside a function's code being a load from its literal pool, which moves with it). The exact
optimum is a 0/1 knapsack over every function of `nm -S` (NM_S: "addr size type name" lines) at
its own size, ignoring veneers, copy costs and the reset path: an upper bound on what any plan
can reach in BUDGET bytes. Prints "share PCT value OPT" for the functions PLAN (a ramplace plan)
moves. Sizes are counted in 2-byte units (Thumb code)."""
import sys

counts_path, nm_path, plan_path, budget = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
funcs = []   # (addr, size, name)
for line in open(nm_path):
    parts = line.split()
    if len(parts) == 4 and parts[2] in "tTwW" and int(parts[1], 16) > 0:
        funcs.append((int(parts[0], 16) & ~1, int(parts[1], 16), parts[3]))
funcs.sort()
starts = [f[0] for f in funcs]

import bisect
def owner(addr):
    i = bisect.bisect_right(starts, addr) - 1
    if i >= 0 and addr < funcs[i][0] + funcs[i][1]:
        return funcs[i][2]
    return None

stall = {}
for line in open(counts_path):
    if line.startswith("#"):
        continue
    p = line.split()
    if p[0] == "d" and len(p) == 4:          # d addr reads stall
        addr, cycles = int(p[1], 16), int(p[3])
    elif p[0] != "e" and len(p) >= 4 and all(c in "0123456789abcdef" for c in p[0]):
        addr, cycles = int(p[0], 16), int(p[3])   # addr count bytes stall
    else:
        continue
    name = owner(addr & ~1)
    if name and cycles:
        stall[name] = stall.get(name, 0) + cycles

items = [(name, (size + 1) // 2) for _, size, name in funcs if stall.get(name, 0) > 0]
cap = budget // 2
best = [0] * (cap + 1)
for name, w in items:
    v = stall[name]
    for c in range(cap, w - 1, -1):
        if best[c - w] + v > best[c]:
            best[c] = best[c - w] + v
moved = [l.split()[1] for l in open(plan_path) if l.startswith("func ")]
value = sum(stall.get(n, 0) for n in moved)
opt = best[cap]
print("share %.2f value %d optimum %d" % (100.0 * value / opt if opt else 100.0, value, opt))
