#!/usr/bin/env bash
# t_check_by_memory.sh: `check` verifies a plan by memory, not by output-section name (issue 24
# item 1). SDKs put the code they copy to RAM in sections of their own naming (pico-sdk's .data,
# which collects *(.time_critical*); Zephyr's .ram_text_reloc; ESP-IDF's .iram0.text), so a
# planned function is placed when it runs from RAM and is loaded from flash, whatever section
# holds it. On the bundled Cortex-M3 firmware:
#   - a plan made for --output-section .time_critical, linked so that its functions land in
#     .ramtext (another name, as an SDK's script would give them): check passes, says where they
#     are, and checks their bytes against the budget; with a budget below those bytes it fails;
#   - the same plan on the flash-only build fails for every function;
#   - a planned function whose input section no rule of the script names (an orphan, here
#     renamed .ramfunc.vm_run in its object) lands in flash: check names the orphan as the cause.
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?}"
ex=$RAMPLACE_SRC/examples/qemu-cortex-m3
cd "$work"
make_fw "$ex" "$work/flash" ITERATIONS=20
run_fw "$work/flash/fw.elf" -plugin "$RAMPLACE_BUILD/libramplace-qemu.so,out=$work/counts.txt" >flash.out
"$RAMPLACE" import --quiet p.db flash/fw.elf counts.txt

# the SDK's way: the plan names .time_critical; the link puts its functions in .ramtext
mkdir -p tc rt
"$RAMPLACE" place --quiet --budget 1K --map flash/fw.map --output-section .time_critical -o tc/ramtext.ld p.db flash/fw.elf
"$RAMPLACE" place --quiet --budget 1K --map flash/fw.map -o rt/ramtext.ld p.db flash/fw.elf
if ! cmp -s <(grep '^func ' tc/ramtext.ld.plan) <(grep '^func ' rt/ramtext.ld.plan); then
	fail "the two plans move different functions"; finish
fi
make_fw "$ex" "$work/ram" ITERATIONS=20 RAMTEXT_LD="$work/rt/ramtext.ld"
n=$(grep -c '^func ' tc/ramtext.ld.plan)
if "$RAMPLACE" check --plan tc/ramtext.ld.plan ram/fw.elf >tc.check 2>&1; then
	pass "check passes a plan for .time_critical whose $n functions run from RAM in .ramtext"
else
	fail "check by memory:"; cat tc.check
fi
check "it says where they are and checks their bytes" \
	grep -Eq "^check: $n functions in RAM: 0 in .time_critical, $n in .ramtext \(run from RAM, loaded from flash\); [0-9]+ bytes of 1024" tc.check
sed 's/^budget 1024$/budget 512/' tc/ramtext.ld.plan >tc/small.plan
if ! "$RAMPLACE" check --plan tc/small.plan ram/fw.elf >small.check 2>&1 &&
   grep -q 'the planned functions in RAM take [0-9]* bytes with [0-9]* veneer(s) (in .time_critical and .ramtext), over the budget of 512' small.check; then
	pass "by memory, the budget still holds: a 512-byte budget fails ($(grep -o 'take [0-9]* bytes' small.check))"
else
	fail "a budget below the planned bytes passed:"; cat small.check
fi
if ! "$RAMPLACE" check --plan tc/ramtext.ld.plan flash/fw.elf >flash.check 2>&1 &&
   [ "$(grep -c 'in flash, not in .time_critical' flash.check)" -eq "$n" ] &&
   grep -q "'.time_critical' is not in the relinked ELF" flash.check; then
	pass "on the flash-only build every planned function fails"
else
	fail "the flash-only build:"; head -5 flash.check
fi
run_fw ram/fw.elf >ram.out
check "the relinked firmware prints the same" cmp -s flash.out ram.out

# an orphan: vm_run's input section renamed so that no rule places it; ld puts it in flash
grep -q '^func vm_run ' rt/ramtext.ld.plan || { fail "vm_run is not in the plan"; finish; }
make_fw "$ex" "$work/orphan" ITERATIONS=20 RAMTEXT_LD="$work/rt/ramtext.ld"
arm-none-eabi-objcopy --rename-section .text.vm_run=.ramfunc.vm_run orphan/interp.o
make_fw "$ex" "$work/orphan" ITERATIONS=20 RAMTEXT_LD="$work/rt/ramtext.ld"
"$RAMPLACE" check --plan rt/ramtext.ld.plan orphan/fw.elf >orphan.check 2>&1 || true
check "a function left in flash by an orphan section is named with its cause" \
	grep -Eq "^'vm_run' is at 0x[0-9a-f]+ in flash, not in .ramtext: its section '.ramfunc.vm_run' is an orphan \(no rule of the linker script names it" orphan.check
finish
