#!/usr/bin/env bash
# bench_report_html.sh: how fast `report --html` writes, and Chromium renders, the page of a
# synthetic firmware of N functions (default 50,000; t_report_html.sh tests what the page holds).
# The firmware and its profile: tests/integration/report_html/big_fw.sh. Times, best of REPEAT
# (3) runs each, taking turns:
#   write:  ramplace report --elf big.elf --map big.map --budget 4K --html big.html big.db
#           against the baseline `arm-none-eabi-nm -S big.elf` (reading the same ELF's symbols)
#   render: headless Chromium's --dump-dom of the page against the same of an empty page
# and prints each ratio. Goal (the bound t_report_html.sh held until it moved here): written
# within 10 s and rendered within 20 s at 50,000 functions on a quiet machine.
# Use: bench/bench_report_html.sh [RAMPLACE] [N]
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ramplace=${1:-$src/build/ramplace}
n=${2:-50000}
repeat=${REPEAT:-3}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
for tool in arm-none-eabi-as arm-none-eabi-ld arm-none-eabi-nm chromium python3; do
	command -v "$tool" >/dev/null || { echo "bench_report_html.sh: $tool is needed (scripts/install-deps.sh)" >&2; exit 1; }
done
cd "$work"
"$src/tests/integration/report_html/big_fw.sh" "$ramplace" "$n"
echo '<!doctype html><title>empty</title>' >empty.html

# wall seconds of one run of "$@" (output discarded)
one_run() {
	local TIMEFORMAT='%R' t
	t=$( { time "$@" >/dev/null 2>"$work/err"; } 2>&1 ) ||
		{ echo "bench_report_html.sh: failed: $*" >&2; cat "$work/err" >&2; exit 1; }
	echo "$t"
}
min() { echo "$1 $2" | awk '{ print ($1 < $2 ? $1 : $2) }'; }
render() { timeout 120 chromium --headless --no-sandbox --disable-gpu --user-data-dir="$work/chrome" --no-first-run \
	--disable-extensions --dump-dom "file://$work/$1"; }

best_write=999999 best_nm=999999 best_render=999999 best_empty=999999
for _ in $(seq "$repeat"); do
	best_nm=$(min "$best_nm" "$(one_run arm-none-eabi-nm -S big.elf)")
	best_write=$(min "$best_write" "$(one_run "$ramplace" report --elf big.elf --map big.map --budget 4K --html big.html big.db)")
	best_empty=$(min "$best_empty" "$(one_run render empty.html)")
	best_render=$(min "$best_render" "$(one_run render big.html)")
done
awk -v n="$n" -v w="$best_write" -v b="$best_nm" -v r="$best_render" -v e="$best_empty" -v size="$(stat -c %s big.html)" 'BEGIN {
	printf "%d functions, page of %d bytes:\n", n, size
	printf "  write  %.2f s, nm -S %.2f s: %.1fx (goal: within 10 s)\n", w, b, (b > 0 ? w / b : 0)
	printf "  render %.2f s, an empty page %.2f s: %.1fx (goal: within 20 s)\n", r, e, (e > 0 ? r / e : 0)
}'
