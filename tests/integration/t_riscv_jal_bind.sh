#!/usr/bin/env bash
# t_riscv_jal_bind.sh: a RISC-V jump of fixed reach ties its two ends (issue 22 item 4). In
# tests/data/rv-jal, hand-written push() ends in `j push_tail` (R_RISCV_JAL, +-1 MiB) into
# another section, as MicroPython's nlr_push does; push_tail is the hot one. Linked with
# relaxation (GNU ld's default) for QEMU sifive_e, profiled with a PC list, placed at 1 KiB with
# the map: push and push_tail must move together (the map's objects' relocations say they are
# bound), the relink must link, `check` must pass and the output must not change. Before, the
# plan moved push_tail alone and the relink failed with "relocation truncated to fit". Without
# the map (issue 37 item 4) the final image's `j push_tail` binds them too, with a note that
# --map would tell a fixed jump from a shortened tail call.
# Needs: $RAMPLACE, $RAMPLACE_SRC; riscv64-unknown-elf-gcc, qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
src=$RAMPLACE_SRC/tests/data/rv-jal
cfg=$RAMPLACE_SRC/tests/data/bootpath-cfg
cc=(riscv64-unknown-elf-gcc -march=rv32imac_zicsr_zifencei -mabi=ilp32 -mcmodel=medany)
build() { # DIR FRAGMENT
	mkdir -p "$1"
	cp "$2" "$1/ramtext.ld"
	(cd "$1" && "${cc[@]}" -Os -g -ffunction-sections -ffreestanding -c "$src/main.c" -o main.o &&
		"${cc[@]}" -c "$src/push.S" -o push.o && "${cc[@]}" -c "$cfg/start-rv32.S" -o start.o &&
		"${cc[@]}" -nostdlib -nostartfiles -T "$cfg/rv32.ld" -L. -Wl,-Map=fw.map -Wl,--build-id=sha1 \
			start.o main.o push.o -o fw.elf) >"$1.log" 2>&1
}
run() { # ELF OUT
	timeout 30 qemu-system-riscv32 -M sifive_e -bios none -nographic -monitor none -serial none -chardev stdio,id=semi \
		-semihosting-config enable=on,target=native,chardev=semi -kernel "$1" </dev/null >"$2" 2>/dev/null
}
cd "$work"
echo '/* empty */' >empty.ld
build "$work/flash" empty.ld || { cat "$work/flash.log"; fail "the flash-only build"; finish; }
run "$work/flash/fw.elf" flash.out
check "the flash-only firmware prints its checksum" grep -Eq '^[0-9a-f]{8}$' flash.out
tail_addr=$(riscv64-unknown-elf-nm "$work/flash/fw.elf" | awk '$3 == "push_tail" { print $1 }')
for i in $(seq 100); do echo "0x$tail_addr"; done >pcs.txt
"$RAMPLACE" import --quiet --format pclist p.db "$work/flash/fw.elf" pcs.txt
mkdir -p plan
"$RAMPLACE" place --budget 1K --map "$work/flash/fw.map" -o plan/ramtext.ld p.db "$work/flash/fw.elf" >place.out 2>&1 || { cat place.out; fail "place"; finish; }
moved=$(awk '$1 == "func" { printf "%s ", $2 }' plan/ramtext.ld.plan)
case "$moved" in
*push_tail*) ;;
*) cat place.out; fail "push_tail (the hot one) not moved: '$moved'" ;;
esac
check "push moves with push_tail, bound by its 'j push_tail' ($moved)" grep -q '^func push ' plan/ramtext.ld.plan
if build "$work/ram" plan/ramtext.ld; then
	pass "the relink links"
else
	grep -m2 'truncated\|error' "$work/ram.log"; fail "the relink does not link"; finish
fi
check "check passes" "$RAMPLACE" check --quiet --plan plan/ramtext.ld.plan "$work/ram/fw.elf"
run "$work/ram/fw.elf" ram.out
check "the relinked firmware prints the same ($(cat flash.out))" cmp -s flash.out ram.out

mkdir -p nomap
"$RAMPLACE" place --budget 1K -o nomap/ramtext.ld p.db "$work/flash/fw.elf" >nomap.out 2>&1 || { cat nomap.out; fail "place without the map"; finish; }
check "without the map push moves with push_tail too ($(awk '$1 == "func" { printf "%s ", $2 }' nomap/ramtext.ld.plan))" \
	grep -q '^func push ' nomap/ramtext.ld.plan
check "and place says why, and what --map would tell" grep -q 'jump(s) into another function .* tie their two ends' nomap.out
if build "$work/ram-nomap" nomap/ramtext.ld; then
	pass "the relink without the map links"
	check "check passes" "$RAMPLACE" check --quiet --plan nomap/ramtext.ld.plan "$work/ram-nomap/fw.elf"
	run "$work/ram-nomap/fw.elf" nomap-run.out
	check "and prints the same" cmp -s flash.out nomap-run.out
else
	grep -m2 'truncated\|error' "$work/ram-nomap.log"; fail "the relink without the map does not link"
fi
finish
