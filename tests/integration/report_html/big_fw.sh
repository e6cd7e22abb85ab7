#!/usr/bin/env bash
# big_fw.sh: a synthetic Cortex-M3 firmware of N functions and its profile, for the HTML page at
# scale (t_report_html.sh tests what the page holds, bench/bench_report_html.sh how fast it is
# made). Assembled, not compiled (gcc takes minutes over 50,000 functions): sizes vary with i,
# and the samples fall off like a real profile's (a few hot functions, a long cold tail).
# Writes big.elf, big.map and big.db in the current directory.
# Use: big_fw.sh RAMPLACE N
set -euo pipefail
ramplace=$1 n=$2
python3 - "$n" <<'PY'
import sys
n = int(sys.argv[1])
with open("big.s", "w") as f:
    f.write(".syntax unified\n.thumb\n")
    for i in range(n):
        f.write(f'.section .text.f{i},"ax",%progbits\n.global f{i}\n.type f{i},%function\n.thumb_func\nf{i}:\n')
        f.write("\tnop\n" * (1 + (i * 7919) % 23) + "\tbx lr\n" + f".size f{i}, .-f{i}\n")
with open("big.pcs.idx", "w") as f:
    for i in range(n):
        f.write(f"{i} {max(1, 4000 // (i + 1) + (i * 31) % 5)}\n")
PY
arm-none-eabi-as -mcpu=cortex-m3 -o big.o big.s
arm-none-eabi-ld -e f0 -Ttext=0 -Map=big.map -o big.elf big.o
arm-none-eabi-nm big.elf | awk 'NR == FNR { k[$1] = $2; next } $3 ~ /^f[0-9]+$/ { n = substr($3, 2);
	for (i = 0; i < k[n]; i++) print "0x" $1 }' big.pcs.idx - >big.pcs
"$ramplace" import --quiet --format pclist big.db big.elf big.pcs
