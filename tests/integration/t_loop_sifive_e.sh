#!/usr/bin/env bash
# t_loop_sifive_e.sh: the whole loop on the bundled RISC-V firmware (QEMU sifive_e, code in XIP
# flash, .ramtext in the 16 KiB DTIM; a 512-byte budget), as examples/sifive-e-riscv/loop.sh runs it (which itself
# fails when `ramplace check` fails or the relinked firmware's output differs), plus independent
# assertions on what it produced: the hot set was larger than the budget, every planned function
# sits in the DTIM per riscv64-unknown-elf-nm and was in flash before, the relinked firmware
# spends most sampled time in RAM, the boot code calls no memcpy/memset, the reset path's
# callees were kept in flash, and the firmware's exit status reaches QEMU's.
# Needs: $RAMPLACE, $RAMPLACE_SRC; riscv64-unknown-elf-gcc + picolibc, qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/loop-checks.sh"
NM=riscv64-unknown-elf-nm

if RAMPLACE="$RAMPLACE" BUDGET=512 ITERATIONS=800 "$RAMPLACE_SRC/examples/sifive-e-riscv/loop.sh" "$work/loop" >"$work/loop.log" 2>&1; then
	pass "loop.sh: record, place, relink, check, identical output"
else
	cat "$work/loop.log"
	fail "loop.sh failed"
	finish
fi
loop=$work/loop
plan=$loop/ram/ramtext.ld.plan

grep -q '^result:  ok$' "$loop/flash.out" && [ "$(wc -l <"$loop/flash.out")" -ge 6 ] &&
	pass "the firmware printed its report over semihosting" || fail "no report in flash.out"
grep -q 'boot code calls no memcpy/memset' "$work/loop.log" && pass "check-startup" || fail "check-startup did not pass"

# the hot set (functions holding 99 % of the samples) is larger than the 512-byte budget
hot_bytes=$(hot_set_bytes riscv64-unknown-elf-nm "$loop/profile.db" "$loop/flash/fw.elf")
if [ "$hot_bytes" -gt 512 ]; then pass "hot set is $hot_bytes bytes, more than the 512-byte budget"; else fail "hot set only $hot_bytes bytes"; fi


# every function named in the plan is in the DTIM (0x8000xxxx) now and was in XIP flash before
nplanned=0
bad=0
while read -r kind name file; do
	[ "$kind" = func ] || continue
	nplanned=$((nplanned + 1))
	now=$(addr_of riscv64-unknown-elf-nm "$loop/ram/fw.elf" "$name" "$file")
	before=$(addr_of riscv64-unknown-elf-nm "$loop/flash/fw.elf" "$name" "$file")
	case "$now:$before" in 8000*:204*) ;; *) bad=$((bad + 1)); echo "  $name ($file) at '$now', before '$before'" ;; esac
done <"$plan"
if [ "$nplanned" -ge 5 ] && [ "$bad" -eq 0 ]; then pass "$nplanned planned functions moved from 0x204xxxxx to 0x8000xxxx"; else fail "$bad of $nplanned planned functions not moved"; fi

# the reset path: _start is the entry; it copies .ramtext before calling main, so main may move
if grep -q '^reset path: _start (found by the ELF entry point) copies the code at 0x' "$work/loop.log" &&
   grep -Eq '^reset path: called after the copy, free to move: .*\bmain\b' "$work/loop.log"; then
	pass "reset path: _start's copy found, main called after it"
else fail "reset path analysis did not find _start's copy"; fi

# .ramtext is in the DTIM, loaded from flash, and the data after it fits the 16 KiB
read -r vma lma < <(riscv64-unknown-elf-objdump -h "$loop/ram/fw.elf" | awk '$2 == ".ramtext" { print $4, $5 }')
case "$vma:$lma" in 80000000:204*) pass ".ramtext runs at 0x$vma, loaded from 0x$lma" ;; *) fail ".ramtext at $vma/$lma" ;; esac

# measured after relinking: most samples now fall in code running from RAM
share=$(grep '^after: ' "$work/loop.log" | grep -Eo 'placement in .*: [0-9.]+% of samples in code running from RAM' | grep -Eo '[0-9.]+%' | tr -d %)
if python3 -c "import sys; sys.exit(0 if float('$share') >= 50 else 1)"; then pass "relinked firmware: $share % of samples in RAM"; else fail "only $share % of samples in RAM after relinking"; fi

# the firmware's exit status is QEMU's: a firmware whose main returns 3 makes QEMU exit with 3
cat >"$work/exit3.c" <<'C'
#include <stdio.h>
int main(void) { printf("exiting with 3\n"); return 3; }
C
rv="riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 --specs=picolibc.specs"
$rv -O2 -c "$RAMPLACE_SRC/examples/sifive-e-riscv/startup.c" -o "$work/startup.o"
echo '/* empty */' >"$work/ramtext.ld"
echo '/* empty */' >"$work/ramdata.ld"   # the example's script also INCLUDEs the .ramdata fragment
echo '/* empty */' >"$work/flashtext.ld"  # and the flash order
$rv --oslib=semihost -nostartfiles -T "$RAMPLACE_SRC/examples/sifive-e-riscv/sifive-e.ld" \
	-L"$work" "$work/exit3.c" "$work/startup.o" -o "$work/exit3.elf"
set +e
(cd "$work" && timeout 30 qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
	-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi \
	-kernel exit3.elf </dev/null >exit3.out 2>&1)
status=$?
set -e
if [ "$status" -eq 3 ] && grep -q 'exiting with 3' "$work/exit3.out"; then pass "exit status 3 reaches QEMU"; else fail "QEMU exit status $status: $(cat "$work/exit3.out")"; fi


# exact accounting: what the plan claimed (code + veneers) is what the linker put in .ramtext,
# within the 4-byte unit alignment
acc=$(grep -E '^accounting: \.ramtext planned [0-9]+ bytes' "$work/loop.log" | head -1)
diff=$(sed -nE 's/.*difference [+-]?([0-9]+)$/\1/p' <<<"$acc")
if [ -n "$diff" ] && [ "$diff" -le 4 ]; then pass "exact accounting: ${acc#accounting: }"; else fail "accounting off: '$acc'"; fi
grep -Eq '^reset path: [0-9]+ functions? run before the copy, 0 in RAM$' "$work/loop.log" &&
	pass "check: nothing on the reset path runs from RAM" || fail "no clean reset-path line from check"
grep -E 'moved|samples in RAM|check:|placement in|^gain:' "$work/loop.log" | sed 's/^/  /'
finish
