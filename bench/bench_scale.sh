#!/usr/bin/env bash
# bench_scale.sh: how `ramplace place` scales with the firmware (issue 14, item 6; issue 40,
# item 3). For each N it generates synthetic Cortex-M3 firmware of N functions
# (bench/gen_scale_fw.py: assembly as GCC writes it with -ffunction-sections, statics of the same
# name in many files, clones, a linker script with a RAM region, a real link with -Wl,-Map) in two
# shapes: "many" objects of 200 functions each, and "one" object holding every function (as a
# one-step, unity or LTO build makes it: the map's slowest reading path, since every input
# section of the object is numbered against that one object's headers). It imports a
# heavy-tailed "offset count" profile of half the functions and times
#   ramplace place --budget 96K [--map fw.map] profile.db fw.elf
# with and without the map, against the baseline `arm-none-eabi-nm -S fw.elf` (reading the same
# ELF's symbols), best of REPEAT runs each, nm and place taking turns so that a change in the
# machine's load falls on both. Prints the ratio place/nm of the wall-clock seconds and of the
# CPU seconds (user + system: steadier on a loaded machine), and place's own stage times
# (--timings).
# Goal: ratio within 2x at N = 50,000 and 200,000, in both shapes, with and without the map.
# Use: bench/bench_scale.sh [RAMPLACE] [N...]   (default N: 1000 12000 50000 200000)
# REPEAT (default 3), SHAPES (default "many one") and KEEP=DIR (keep the generated firmware
# there) from the environment.
set -euo pipefail
src=$(cd "$(dirname "$0")/.." && pwd)
ramplace=${1:-$src/build/ramplace}
shift || true
sizes=${*:-1000 12000 50000 200000}
repeat=${REPEAT:-3}
shapes=${SHAPES:-many one}
work=${KEEP:-$(mktemp -d)}
[ -n "${KEEP:-}" ] || trap 'rm -rf "$work"' EXIT
for tool in arm-none-eabi-as arm-none-eabi-gcc arm-none-eabi-nm python3; do
	command -v "$tool" >/dev/null || { echo "bench_scale.sh: $tool is needed (scripts/install-deps.sh)" >&2; exit 1; }
done

# "wall cpu" seconds of one run of "$@" (output discarded), from bash's own time keyword
one_run() {
	local TIMEFORMAT='%R %U %S' t
	t=$( { time "$@" >/dev/null 2>"$work/err"; } 2>&1 ) ||
		{ echo "bench_scale.sh: failed: $*" >&2; cat "$work/err" >&2; exit 1; }
	echo "$t" | awk '{ printf "%.3f %.3f\n", $1, $2 + $3 }'
}

# the smaller of two numbers
min() { echo "$1 $2" | awk '{ print ($1 < $2 ? $1 : $2) }'; }

# the firmware of $1 functions in $2, in shape $3 (many, one): sources, objects, fw.elf, fw.map,
# profile.db
build_fw() {
	local n=$1 dir=$2 single=0
	[ "$3" = one ] && single=1
	mkdir -p "$dir"
	SINGLE_OBJECT=$single python3 "$src/bench/gen_scale_fw.py" gen "$n" "$dir"
	(cd "$dir" && ls mod*.s start.s | sed 's/\.s$//' |
		xargs -P 2 -I{} arm-none-eabi-as -mcpu=cortex-m3 -mthumb -o {}.o {}.s)
	(cd "$dir" && arm-none-eabi-gcc -nostdlib -mcpu=cortex-m3 -mthumb -T fw.ld -L. -Wl,--build-id \
		-Wl,-Map=fw.map -o fw.elf start.o mod*.o)
	python3 "$src/bench/gen_scale_fw.py" prof "$n" "$dir"
	rm -f "$dir/profile.db"
	"$ramplace" import -q "$dir/profile.db" "$dir/fw.elf" "$dir/profile.prof"
}

printf '%8s %7s %4s %9s %9s %8s %8s   %s\n' functions objects map "nm -S s" "place s" ratio "cpu" \
	"place stages (s), from --timings"
worst=0
for n in $sizes; do
	for shape in $shapes; do
		dir=$work/n$n-$shape
		build_fw "$n" "$dir" "$shape" >/dev/null
		for map in yes no; do
			place=("$ramplace" place -q --budget 96K -o "$dir/out.ld" "$dir/profile.db" "$dir/fw.elf")
			[ "$map" = yes ] && place+=(--map "$dir/fw.map")
			nm_wall=1e9 nm_cpu=1e9 pl_wall=1e9 pl_cpu=1e9
			for _ in $(seq "$repeat"); do
				read -r w c < <(one_run arm-none-eabi-nm -S "$dir/fw.elf")
				nm_wall=$(min "$nm_wall" "$w") nm_cpu=$(min "$nm_cpu" "$c")
				read -r w c < <(one_run "${place[@]}")
				pl_wall=$(min "$pl_wall" "$w") pl_cpu=$(min "$pl_cpu" "$c")
			done
			stages=$("${place[@]}" --timings 2>&1 >/dev/null | sed -n 's/^ramplace: timings: //p' || true)
			ratio=$(echo "$pl_wall / $nm_wall" | bc -l)
			[ "$n" -ge 50000 ] && worst=$(awk -v a="$worst" -v b="$ratio" 'BEGIN { print (b > a ? b : a) }')
			printf '%8d %7s %4s %9.3f %9.3f %7.1fx %7.1fx   %s\n' "$n" "$shape" "$map" "$nm_wall" "$pl_wall" "$ratio" \
				"$(awk "BEGIN { print $pl_cpu / ($nm_cpu > 0.001 ? $nm_cpu : 0.001) }")" "$stages"
		done
	done
done
printf 'bench_scale: worst wall-clock ratio to nm -S at 50,000 functions and more: %.2fx (goal: 2x)\n' "$worst"
