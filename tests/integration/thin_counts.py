#!/usr/bin/env python3
"""thin_counts.py: a profile thinned out on purpose. Reads exact counts written by the QEMU
plugin (libramplace-qemu.so, "addr count bytes" lines after '#' headers) and writes a pclist
("addr count") of K samples drawn from them with replacement (a multinomial draw, as a sampler
that picks instructions at random would take), with a fixed seed so runs repeat.
    thin_counts.py COUNTS K SEED > thin.pclist
"""
import bisect
import random
import sys


def main():
    path, k, seed = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    addrs, cum, total = [], [], 0
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            fields = line.split()
            total += int(fields[1])
            addrs.append(fields[0])
            cum.append(total)
    rng = random.Random(seed)
    drawn = {}
    for _ in range(k):
        i = bisect.bisect_right(cum, rng.randrange(total))
        drawn[addrs[i]] = drawn.get(addrs[i], 0) + 1
    for a in sorted(drawn, key=lambda x: int(x, 16)):
        print("%s %d" % (a, drawn[a]))


if __name__ == "__main__":
    main()
