#!/usr/bin/env bash
# t_loop_cortex_m3.sh: the whole loop on the bundled Cortex-M3 firmware, as the Quick start runs
# it (examples/qemu-cortex-m3/loop.sh, which itself fails when `ramplace check` fails or the
# relinked firmware's output differs), plus independent assertions on what it produced:
# the budget was smaller than the hot set, every planned function sits in RAM per
# arm-none-eabi-nm, the fragment uses the archive:member and file-qualified patterns of the
# map, the plan (veneers shared between callers) is proven optimal, and the relinked firmware
# spends most sampled time in RAM.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc, qemu-system-arm, python3.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop-checks.sh"

if RAMPLACE="$RAMPLACE" BUDGET=1K ITERATIONS=800 "$RAMPLACE_SRC/examples/qemu-cortex-m3/loop.sh" "$work/loop" >"$work/loop.log" 2>&1; then
	pass "loop.sh: record, place, relink, check, identical output"
else
	cat "$work/loop.log"
	fail "loop.sh failed"
	finish
fi
loop=$work/loop
plan=$loop/ram/ramtext.ld.plan

# the hot set (functions holding 99 % of the samples) is larger than the 1 KiB budget
hot_bytes=$(hot_set_bytes arm-none-eabi-nm "$loop/profile.db" "$loop/flash/fw.elf")
if [ "$hot_bytes" -gt 1024 ]; then pass "hot set is $hot_bytes bytes, more than the 1024-byte budget"; else fail "hot set only $hot_bytes bytes"; fi


# every function named in the plan is at a RAM address in the relinked ELF
nplanned=0
bad=0
while read -r kind name file; do
	[ "$kind" = func ] || continue
	nplanned=$((nplanned + 1))
	addr=$(addr_of arm-none-eabi-nm "$loop/ram/fw.elf" "$name" "$file")
	case "$addr" in 2000*) ;; *) bad=$((bad + 1)); echo "  $name ($file) at '$addr'" ;; esac
done <"$plan"
if [ "$nplanned" -ge 5 ] && [ "$bad" -eq 0 ]; then pass "$nplanned planned functions all at 0x2000xxxx"; else fail "$bad of $nplanned planned functions not in RAM"; fi

# and they were in flash before
first=$(awk '$1 == "func" { print $2; exit }' "$plan")
case "$(arm-none-eabi-nm "$loop/flash/fw.elf" | awk -v n="$first" '$3 == n { print $1; exit }')" in
	2000*) fail "$first was already in RAM in the flash build" ;;
	*) pass "$first moved from flash to RAM" ;;
esac

# patterns name the object file, so a same-named static elsewhere does not move
if grep -Eq '^\s+\*/?[a-z0-9_]+\.o\(\.text\.[A-Za-z0-9_.]+\)$' "$loop/ram/ramtext.ld"; then pass "file-qualified patterns"; else fail "no file-qualified pattern in ramtext.ld"; fi

# measured after relinking: most samples now fall in code running from RAM
share=$(grep '^after: ' "$work/loop.log" | grep -Eo 'placement in .*: [0-9.]+% of samples in code running from RAM' | grep -Eo '[0-9.]+%' | tr -d %)
if python3 -c "import sys; sys.exit(0 if float('$share') >= 50 else 1)"; then pass "relinked firmware: $share % of samples in RAM"; else fail "only $share % of samples in RAM after relinking"; fi

# the profile survives the relink: placing again from the same profile.db on the relinked ELF
# (new build-id, every address moved) chooses the same functions, with no warning
"$RAMPLACE" --budget 1K --map "$loop/ram/fw.map" -o "$work/again.ld" "$loop/profile.db" "$loop/ram/fw.elf" >"$work/again.out" 2>"$work/again.err"
if [ "$(grep '^unit ' "$plan" | cut -d' ' -f2-3)" = "$(grep '^unit ' "$work/again.ld.plan" | cut -d' ' -f2-3)" ] &&
	grep -q "100.0% of the profiled samples still map" "$work/again.err" && ! grep -q warning "$work/again.err"; then
	pass "same plan from the profile on the relinked ELF"
else
	fail "the plan changed after the relink"; cat "$work/again.err"
fi
# a function renamed since the profile was taken is named in a warning, and the rest still maps
cp "$loop/profile.db" "$work/renamed.db"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); c.execute("UPDATE samples SET function = ? WHERE function = ?", ("vm_run_v1", "vm_run")); c.commit()' "$work/renamed.db"
"$RAMPLACE" --budget 1K --map "$loop/ram/fw.map" -o "$work/renamed.ld" "$work/renamed.db" "$loop/ram/fw.elf" >/dev/null 2>"$work/renamed.err"
if grep -q "warning: 1 profiled function(s) with [0-9]* samples are not in .*: vm_run_v1 ([0-9]*)$" "$work/renamed.err" && grep -q "^unit compare_records" "$work/renamed.ld.plan"; then
	pass "renamed function named in a warning"
else
	fail "no warning for the renamed function"; cat "$work/renamed.err"
fi


# exact accounting: what the plan claimed (code + veneers) is what the linker put in .ramtext,
# within the 4-byte unit alignment
acc=$(grep -E '^accounting: \.ramtext planned [0-9]+ bytes' "$work/loop.log" | head -1)
diff=$(sed -nE 's/.*difference [+-]?([0-9]+)$/\1/p' <<<"$acc")
if [ -n "$diff" ] && [ "$diff" -le 4 ]; then pass "exact accounting: ${acc#accounting: }"; else fail "accounting off: '$acc'"; fi
# one region with shared veneers: the knapsack's answer is proven optimal by the ILP it starts
grep -q '^solver: knapsack (expanding core), then ILP (GLPK) for the veneers, optimal$' "$work/loop.log" &&
	pass "plan with veneers proven optimal" || { grep '^solver' "$work/loop.log"; fail "no proven-optimal solver line"; }
grep -Eq '^reset path: [0-9]+ functions? run before the copy, 0 in RAM$' "$work/loop.log" &&
	pass "check: nothing on the reset path runs from RAM" || fail "no clean reset-path line from check"
grep -E 'moved|samples in RAM|check:|placement in|^gain:' "$work/loop.log" | sed 's/^/  /'
finish
