#!/usr/bin/env bash
# t_veneer_m0.sh: Cortex-M0+ plans hold their veneers (tests/data/veneers-m0, built by its
# build.sh, run on QEMU's microbit, a Cortex-M0; the startup is tests/data/bootpath-c's). 24 hot
# functions each call their own cold helper, which stays in flash, so every moved function
# costs a RAM->flash veneer, and on ARMv6-M GNU ld writes 16-byte ones (push {r0}; ldr r0,
# [pc, #8]; mov ip, r0; pop {r0}; bx ip; nop; .word), not ARMv7-M's 8-byte ldr.w pc. With a
# 1 KiB budget, `ramplace place` must reserve 16 bytes per veneer (from the ELF's
# .ARM.attributes: Tag_CPU_arch v6S-M), the relinked .ramtext must stay within the budget,
# `ramplace check` must pass with exact accounting, and the relinked firmware prints what the
# flash-only one printed. A plan that reserves 8 bytes per veneer (the old fixed size, forced
# with --veneer-size 8) overflows, and check says why. Before the veneer size came from the
# architecture, place planned 960 bytes for 24 veneers and ld linked 1152 (check: over the
# budget by 128). hot0 calls its helper under two names (an alias): ld writes a veneer per name,
# and so must the plan (the map's relocations name them); counted per address, the relink came
# out 16 bytes over the budget (issue 37: pico-sdk's __wrap___aeabi_uidiv and _uidivmod).
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc, qemu-system-arm (machine microbit).
. "$(dirname "$0")/lib.sh"
build=$RAMPLACE_SRC/tests/data/veneers-m0/build.sh

run() { # ELF OUT -> the firmware's exit status (124: killed after 10 s)
	timeout 10 qemu-system-arm -M microbit -nographic -monitor none -serial none -chardev stdio,id=semi \
		-semihosting-config enable=on,target=native,chardev=semi -kernel "$1" </dev/null >"$2" 2>/dev/null
}
plan_key() { awk -v k="$2" '$1 == k { print $2; exit }' "$1"; }
ramtext_size() { arm-none-eabi-size -A "$1" | awk '$1 == ".ramtext" { print $2 }'; }

cd "$work"
echo '/* empty */' >empty.ld
"$build" flash empty.ld
arm-none-eabi-readelf -A flash/fw.elf | grep -q 'Tag_CPU_arch: v6S-M' && pass "the fixture is ARMv6-M (v6S-M)" ||
	fail "the fixture is not ARMv6-M"
status=0
run flash/fw.elf flash.out || status=$?
if [ "$status" -eq 0 ] && grep -q '^sink: ' flash.out; then pass "flash-only firmware runs on microbit"; else
	fail "flash-only firmware: status $status, output '$(cat flash.out)'"; fi

# hot0 hottest, then down to hot23; no cold helper sampled
for i in $(seq 0 23); do
	printf '0x%x %d\n' $((0x$(nm_addr flash/fw.elf "hot$i"))) $((1000 - 10 * i))
done >pcs.txt
"$RAMPLACE" import --quiet profile.db flash/fw.elf pcs.txt
"$RAMPLACE" place --budget 1K --map flash/fw.map -o good.ld profile.db flash/fw.elf >place.out
nveneers=$(plan_key good.ld.plan veneers)
reserve=$(plan_key good.ld.plan veneer-reserve)
used=$(plan_key good.ld.plan used)
if [ "${nveneers:-0}" -ge 10 ] && [ "$reserve" -eq $((nveneers * 16)) ]; then
	pass "plan: $nveneers veneers reserved at 16 bytes each ($reserve bytes)"
else
	cat place.out; fail "plan: veneers '$nveneers', reserve '$reserve' (16 bytes each expected)"
fi

"$build" good good.ld
size=$(ramtext_size good/fw.elf)
if [ "$size" -le 1024 ]; then pass ".ramtext linked to $size bytes, within the 1024-byte budget (planned $((used + reserve)))"; else
	fail ".ramtext linked to $size bytes, over the 1024-byte budget"; fi
if "$RAMPLACE" check --plan good.ld.plan good/fw.elf >check-good.out 2>&1; then pass "check passes"; else
	cat check-good.out; fail "check fails"; fi
diff=$(sed -n 's/^accounting: .*difference \([-+][0-9]*\)$/\1/p' check-good.out)
if [ -n "$diff" ] && [ "${diff#[-+]}" -le 4 ]; then pass "exact accounting: planned $((used + reserve)), linked $size ($diff)"; else
	fail "accounting: difference '$diff'"; fi
grep -q "planned $used + $nveneers veneers)" check-good.out && pass "check counts the $nveneers veneers ld wrote" ||
	{ cat check-good.out; fail "check's veneer count differs from the plan's $nveneers"; }
status=0
run good/fw.elf good.out || status=$?
if [ "$status" -eq 0 ] && cmp -s flash.out good.out; then pass "relinked firmware prints the same ($(cat good.out))"; else
	fail "relinked firmware: status $status, output '$(cat good.out)'"; fi

# the old fixed 8-byte veneers: the plan overflows, and check says that the veneers are why
"$RAMPLACE" place --budget 1K --veneer-size 8 --map flash/fw.map -o small.ld profile.db flash/fw.elf >/dev/null
"$build" small small.ld
status=0
"$RAMPLACE" check --plan small.ld.plan small/fw.elf >check-small.out 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -q "over the budget of 1024" check-small.out &&
   grep -q "ld wrote [0-9]* veneer(s) of 16 bytes, the plan reserved 8 bytes each" check-small.out; then
	pass "8-byte veneers: .ramtext $(ramtext_size small/fw.elf) bytes, check exits 1 naming the veneer size"
else
	cat check-small.out; fail "8-byte plan: check status $status"
fi

finish
