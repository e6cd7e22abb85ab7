#!/usr/bin/env bash
# t_stale_renames.sh: a profile of one build placed on the next, in which three of the hottest
# functions were renamed (issue 14 item 6: the rename guesses look candidates up in indexes of
# clone parents and sizes, not in a pass over the image per vanished function). Build A is the
# synthetic firmware of bench/gen_scale_fw.py (2,000 functions, a real link with a map) with its
# profile; build B is the same sources with two functions renamed (same code: found by their code
# in A, which is still on disk) and one renamed to a clone of itself (NAME.constprop.1: found as
# a clone relative). place must name each as "now NEW?" and still place from the profile.
. "$(dirname "$0")/lib.sh"
cd "$work"

build() { # DIR: assemble and link the sources in DIR (fw.elf, fw.map)
	(cd "$1" && : > ramtext.ld && for s in start.s mod*.s; do arm-none-eabi-as -mcpu=cortex-m3 -mthumb -o "${s%.s}.o" "$s"; done &&
		arm-none-eabi-gcc -nostdlib -mcpu=cortex-m3 -mthumb -T fw.ld -L. -Wl,--build-id -Wl,-Map=fw.map \
			-o fw.elf start.o mod*.o)
}

mkdir A
python3 "$RAMPLACE_SRC/bench/gen_scale_fw.py" gen 2000 A
build A
python3 "$RAMPLACE_SRC/bench/gen_scale_fw.py" prof 2000 A
"$RAMPLACE" import -q A/profile.db A/fw.elf A/profile.prof

# the three hottest global functions (mN_fnK: no clone suffix, no file)
mapfile -t hot < <("$RAMPLACE" report --limit 40 A/profile.db | awk '$NF ~ /^m[0-9]+_fn[0-9]+$/ { print $NF }' | head -3)
check "three hot global functions in the profile" test "${#hot[@]}" -eq 3

mkdir B
cp A/*.s A/fw.ld B/
sed -i -E "s/\b${hot[0]}\b/${hot[0]}_v2/g; s/\b${hot[1]}\b/${hot[1]}_v2/g; s/\b${hot[2]}\b/${hot[2]}.constprop.1/g" B/*.s
build B
check "build B lacks the old names" test -z "$(arm-none-eabi-nm B/fw.elf | awk -v a="${hot[0]}" -v b="${hot[1]}" '$3 == a || $3 == b')"

if "$RAMPLACE" place --budget 16K --map B/fw.map -o B/ramtext.ld A/profile.db B/fw.elf >out 2>err; then
	pass "place exits 0"
else
	fail "place exits 0: $(cat err)"
fi
check "renamed by code: ${hot[0]} now ${hot[0]}_v2" grep -q "${hot[0]} ([0-9]*) now ${hot[0]}_v2?" err
check "renamed by code: ${hot[1]} now ${hot[1]}_v2" grep -q "${hot[1]} ([0-9]*) now ${hot[1]}_v2?" err
check "clone relative: ${hot[2]} now ${hot[2]}.constprop.1" grep -q "${hot[2]} ([0-9]*) now ${hot[2]}.constprop.1?" err
check "three functions vanished, no more" grep -q "warning: 3 profiled function(s)" err
check "the plan moves functions" grep -q "^moved [1-9][0-9]* of" out
finish
