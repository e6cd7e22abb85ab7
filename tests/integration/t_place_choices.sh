#!/usr/bin/env bash
# t_place_choices.sh: what place leaves in flash on purpose, said in its output. On the bundled
# Cortex-M3 firmware with exact counts and its map: units below --min-share (0.01 % by default)
# are not packed into left-over room (each would add a copy at boot and veneers back to flash),
# the plan says how many, and --min-share 0 packs them; no plan exceeds its budget. A firmware
# compiled without -ffunction-sections (a conformance cell) gets a note per object naming the flag.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
make -s -C "$ex" BUILD="$work/fw" ITERATIONS=40 >/dev/null
run_fw "$work/fw/fw.elf" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >/dev/null
"$RAMPLACE" import --quiet "$work/p.db" "$work/fw/fw.elf" "$work/counts.txt"

place() { "$RAMPLACE" place --budget 8K --map "$work/fw/fw.map" -o "$work/$1.ld" "${@:2}" "$work/p.db" "$work/fw/fw.elf"; }
place default >"$work/default.out"
place all --min-share 0 >"$work/all.out"
check "the default says what --min-share kept" grep -q '^kept in flash: [0-9]* function(s) with .* each below --min-share 0.01%' "$work/default.out"
# every unit of the default plan holds at least 0.01 % of the samples; --min-share 0 moves more units
total=$(awk '$1 == "samples" { print $2 }' "$work/default.ld.plan")
small=$(awk -v t="$total" '$1 == "unit" && $6 * 10000 < t { n++ } END { print n + 0 }' "$work/default.ld.plan")
small_all=$(awk -v t="$total" '$1 == "unit" && $6 * 10000 < t { n++ } END { print n + 0 }' "$work/all.ld.plan")
if [ "$total" -gt 0 ] && [ "$small" -eq 0 ] && [ "$small_all" -gt 0 ]; then
	pass "no unit below 0.01 % in the default plan (--min-share 0 moves $small_all of them; $total samples)"
else
	fail "units below 0.01 %: $small in the default plan, $small_all with --min-share 0 ($total samples)"
fi
n_default=$(grep -c '^unit ' "$work/default.ld.plan")
n_all=$(grep -c '^unit ' "$work/all.ld.plan")
check "--min-share 0 packs the cold units too ($n_all units against $n_default)" [ "$n_all" -gt "$n_default" ]
for p in default all; do
	used=$(sed -nE 's/^moved .*: ([0-9]+) of ([0-9]+) bytes.*/\1 \2/p' "$work/$p.out")
	check "$p plan within its budget ($used)" [ "${used% *}" -le "${used#* }" ]
done

# without -ffunction-sections: one note per object, naming the flag
CONFORMANCE_KEEP=$work/keep "$RAMPLACE_SRC/tests/conformance/run-cell.sh" try m3 newlib c objs -O2 cvol-vector bfd yes pass >"$work/nofs.log" 2>&1 || true
check "an object without -ffunction-sections is named with the flag to add" \
	grep -q 'note: obj/crc.o was compiled without -ffunction-sections: its [0-9]* functions .* add -ffunction-sections' "$work/keep/try/place.out"
finish
