#!/usr/bin/env bash
# t_riscv_relax_startup.sh: a relaxed RISC-V link whose startup code calls under `.option
# norelax` is still planned as relaxed. The bundled sifive_e example's _start sets gp with
# relaxation off, as most RISC-V startup files do, so its `call main` stays auipc+jalr although
# main is within jal's reach. place took those two calls for a link made with --no-relax, so it
# stopped reserving for the compressed calls (c.jal, 2 bytes) between moved functions that no
# longer reach each other in RAM; at 4 KiB qsort's eight c.jal to swapfunc became jal and the
# relinked .ramtext came out 12 to 16 bytes above the plan, failing `check`. Exact counts from
# the plugin, placed at 4 KiB with the map: the plan must cover what ld links (check passes) and
# the output must not change. Then the same at 1 KiB for calls that no relaxation compresses
# (jal t0, -msave-restore's millicode).
# Needs: $RAMPLACE, $RAMPLACE_SRC, $RAMPLACE_BUILD; riscv64-unknown-elf-gcc + picolibc,
# qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
: "${RAMPLACE_BUILD:?set RAMPLACE_BUILD to the build directory}"
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
ex=$RAMPLACE_SRC/examples/sifive-e-riscv
build() { # DIR [FRAGMENT]
	if [ -n "${2:-}" ]; then
		make -s -C "$ex" BUILD="$1" RAMTEXT_LD="$2" ITERATIONS=2 >"$1.log" 2>&1
	else
		make -s -C "$ex" BUILD="$1" ITERATIONS=2 >"$1.log" 2>&1
	fi
}
run() { # ELF OUT [PLUGIN-OPTIONS]
	timeout 120 qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
		-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi \
		-kernel "$1" ${3:+-plugin "$3"} </dev/null >"$2" 2>/dev/null
}
relink() { # PLANDIR WHAT: relinks with PLANDIR/ramtext.ld; check passes, the output is the same
	if ! build "$work/$1.ram" "$work/$1/ramtext.ld"; then
		grep -m2 -i 'error\|overflow' "$work/$1.ram.log"; fail "$2: the relink does not link"
		return 0
	fi
	if "$RAMPLACE" check --plan "$1/ramtext.ld.plan" "$work/$1.ram/fw.elf" >"$1.check" 2>&1; then
		pass "$2: check passes: $(grep -m1 '^accounting' "$1.check")"
	else
		cat "$1.check"; fail "$2: check fails"
	fi
	run "$work/$1.ram/fw.elf" "$1.out"
	check "$2: the relinked firmware prints the same" cmp -s flash.out "$1.out"
}
cd "$work"
build "$work/flash" || { tail -5 "$work/flash.log"; fail "the flash-only build"; finish; }
run "$work/flash/fw.elf" flash.out "$plugin,out=$work/counts.txt,mode=insn"
check "the flash-only firmware ran to its report" grep -q '^result:  ok$' flash.out

# the premise: _start's calls stay auipc+jalr (norelax) while the compiled code's are relaxed
riscv64-unknown-elf-objdump -d --no-show-raw-insn "$work/flash/fw.elf" >flash.dis
check "_start calls main with auipc+jalr (.option norelax)" grep -Eq 'jalr.*<main>' flash.dis
check "compiled calls were relaxed to c.jal/jal (qsort calls swapfunc)" grep -Eq '\sjal\s+[0-9a-f]+ <swapfunc>' flash.dis

"$RAMPLACE" import --quiet p.db "$work/flash/fw.elf" "$work/counts.txt"
mkdir -p plan
"$RAMPLACE" place --budget 4K --map "$work/flash/fw.map" -o plan/ramtext.ld p.db "$work/flash/fw.elf" >place.out 2>&1 ||
	{ cat place.out; fail "place"; finish; }
check "qsort and swapfunc both move (the calls that grow)" \
	bash -c "grep -q '^func qsort ' plan/ramtext.ld.plan && grep -q '^func swapfunc ' plan/ramtext.ld.plan"
relink plan "at 4 KiB"

# picolibc's -Os code calls -msave-restore's millicode with `jal t0, __riscv_save_0`: no c.jal
# links t0, so in a small region these calls stay 4 bytes where an ra call becomes 2. A profile
# on those callers and the millicode, placed at 1 KiB: before, the plan took 2 bytes off each
# and came out 22 bytes short of the link.
check "picolibc calls the millicode with jal t0" grep -Eq 'jal\s+t0,\s*[0-9a-f]+ <__riscv_save_0>' flash.dis
for f in __riscv_save_0 __riscv_restore_0 sys_semihost_putc sys_semihost_read sys_semihost_open sys_semihost_getc \
	sys_semihost_flen sys_semihost_feature sys_semihost_close puts __ultoa_invert div10 skip_to_arg sys_semihost; do
	a=$(riscv64-unknown-elf-nm "$work/flash/fw.elf" | awk -v f="$f" '$3 == f { print $1; exit }')
	[ -n "$a" ] || { fail "no $f in the firmware"; continue; }
	for i in $(seq 20); do echo "0x$a"; done
done >save.pcs
"$RAMPLACE" import --quiet --format pclist save.db "$work/flash/fw.elf" save.pcs
mkdir -p plan2
"$RAMPLACE" place --budget 1K --map "$work/flash/fw.map" -o plan2/ramtext.ld save.db "$work/flash/fw.elf" >place2.out 2>&1 ||
	{ cat place2.out; fail "place (millicode)"; finish; }
moved=$(grep -c '^func sys_semihost_\|^func __riscv_save_0 ' plan2/ramtext.ld.plan || true)
check "the millicode and at least 5 of its callers move ($moved)" test "$moved" -ge 6
relink plan2 "millicode"
finish
