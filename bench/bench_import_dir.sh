#!/usr/bin/env bash
# bench_import_dir.sh: seconds to import a profile directory of N small "offset count" files
# (default 3,000) into a new profile.db, and the fdatasync calls it makes (strace, when
# installed). Baseline: before issue 13 each file was its own transaction (42.4 s and 2,004
# fdatasyncs for 500 files on the development machine); now the directory is one transaction.
# Use: bench/bench_import_dir.sh [RAMPLACE] [N]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ramplace=${1:-$src/build/ramplace}
n=${2:-3000}
arm=$src/tests/data/elf/arm-m3.elf
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir "$work/d"
python3 - "$work/d" "$n" <<'PY'
import sys
for i in range(1, int(sys.argv[2]) + 1):
    with open("%s/fw-cec5b034-%d.prof" % (sys.argv[1], i), "w") as f:
        f.write("image /bin/fw\n1078 %d\n107c 100\n1000 300\n" % i)
PY
start=$(date +%s.%N)
"$ramplace" import -q "$work/p.db" "$arm" "$work/d"
end=$(date +%s.%N)
runs=$(python3 -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from runs").fetchone()[0])' "$work/p.db")
printf 'import of %d files: %.3f s (%d runs stored)\n' "$n" "$(echo "$end - $start" | bc -l)" "$runs"
if command -v strace >/dev/null; then
	rm -f "$work/p.db"
	syncs=$(strace -f -c -e trace=fdatasync,fsync "$ramplace" import -q "$work/p.db" "$arm" "$work/d" 2>&1 >/dev/null |
		awk '$NF == "total" { print $4 }')
	echo "fdatasync+fsync calls: ${syncs:-0}"
fi
