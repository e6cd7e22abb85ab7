#!/usr/bin/env bash
# t_boot_path_c.sh: the reset path when the copy of .ramtext is done BY a memcpy call, deeper
# than the reset handler's own code (tests/data/bootpath-c, built by its build.sh). On RISC-V
# (sifive_e) a naked _start tail-jumps to C start_c; on Cortex-M3 (mps2-an385) an assembly
# Reset_Handler calls SystemInit and tail-jumps to C _cstart. The C startup's copy loops are
# compiled at -O2 into memcpy/memset calls; the workload is tests/data/bootpath/main.c's. With
# a profile that makes memcpy the hottest function, `ramplace place` must keep memcpy (and the
# startup functions) in flash and say where the copy is, while memset (clearing .bss after the
# copy) may move; the relinked firmware prints what the flash-only one printed; `ramplace
# check` passes on it. A third firmware (cm3-table) copies through a CMSIS-style table of
# {load, start, end} entries: no instruction names .ramtext's bounds, the table's words do, and
# the copy is the loop over it (until issue 24 this case was not located and everything before
# main stayed in flash; pico-sdk's crt0 copies the same way). A relink that moves memcpy anyway
# (--allow-boot-path) does brick the firmware in QEMU, and its plan without the boot-path line
# that option writes must make `check` exit 1 naming the chain from the reset handler down to
# memcpy.
# Before the reset path followed calls and tail jumps, place moved memcpy ("where it copies
# .ramtext was not found") and check passed the bricked firmware ("0 in RAM").
# Needs: $RAMPLACE, $RAMPLACE_SRC; riscv64-unknown-elf-gcc + picolibc, qemu-system-riscv32,
# arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
build=$RAMPLACE_SRC/tests/data/bootpath-c/build.sh

run() { # ARCH ELF OUT -> the firmware's exit status (124: killed after 10 s)
	local qemu=(qemu-system-arm -M mps2-an385)
	[ "$1" = riscv ] && qemu=(qemu-system-riscv32 -M sifive_e -bios none)
	# semihosting output goes to stderr unless given a chardev: stdio makes it stdout
	timeout 10 "${qemu[@]}" -nographic -monitor none -serial none -chardev stdio,id=semi \
		-semihosting-config enable=on,target=native,chardev=semi -kernel "$2" </dev/null >"$3" 2>/dev/null
}

cd "$work"   # ld finds INCLUDEd files in the current directory first: there is none here
echo '/* empty */' >empty.ld
for arch in riscv cm3 cm3-table; do
	nm=arm-none-eabi-nm reset=Reset_Handler cstart=_cstart
	[ "$arch" = riscv ] && nm=riscv64-unknown-elf-nm reset=_start cstart=start_c
	# what place says and check names: where the copy is, or (a copy table) that it was not found
	found=" copies the code at 0x[0-9a-f]* in $cstart ($reset -> $cstart)"
	before="runs before $cstart copies the code (at 0x[0-9a-f]*)"
	memset_moves=1
	addr() { "$nm" "$1" | awk -v n="$2" '$3 == n { print $1; exit }'; }
	d=$work/$arch
	mkdir -p "$d"
	"$build" "$arch" "$d/flash" empty.ld
	# the case under test: the C startup really calls memcpy and memset (no inline loops)
	if "${nm%nm}objdump" -d "$d/flash/fw.elf" | sed -n "/<$cstart>:/,/^\$/p" | grep -q '<memcpy>' ; then
		pass "$arch: $cstart copies with memcpy calls"
	else
		fail "$arch: $cstart has no memcpy call (the compiler kept the loops)"
	fi
	status=0
	run "$arch" "$d/flash/fw.elf" "$d/flash.out" || status=$?
	if [ "$status" -eq 0 ] && grep -q '^sink: ' "$d/flash.out"; then
		pass "$arch: flash-only firmware runs"
	else
		fail "$arch: flash-only firmware: status $status, output '$(cat "$d/flash.out")'"
	fi

	# memcpy hottest, then memset, mix, main
	for f in memcpy:900 memset:600 mix:300 main:50; do
		printf '0x%x %d\n' $((0x$(addr "$d/flash/fw.elf" "${f%:*}"))) "${f#*:}"   # the entry: an instruction start
	done >"$d/pcs.txt"
	"$RAMPLACE" import --quiet "$d/profile.db" "$d/flash/fw.elf" "$d/pcs.txt"
	"$RAMPLACE" place --budget 1K --map "$d/flash/fw.map" -o "$d/good.ld" "$d/profile.db" \
		"$d/flash/fw.elf" >"$d/place.out"
	if grep -q '^func memcpy ' "$d/good.ld.plan"; then
		cat "$d/place.out"; fail "$arch: memcpy in the plan"
	else
		pass "$arch: memcpy stays in flash"
	fi
	grep -q '^kept in flash: memcpy: ' "$d/place.out" && pass "$arch: place says why memcpy stays" ||
		fail "$arch: no 'kept in flash: memcpy' line"
	grep -q "^reset path: $reset (found by [^)]*)*)$found" "$d/place.out" && pass "$arch: place says: $found" ||
		{ cat "$d/place.out"; fail "$arch: no reset path line '$found'"; }
	moved=0
	grep -q '^func memset ' "$d/good.ld.plan" && moved=1
	[ "$moved" = "$memset_moves" ] && pass "$arch: memset (clears .bss) moved: $moved" ||
		{ cat "$d/place.out"; fail "$arch: memset moved: $moved, expected $memset_moves"; }
	grep -q '^func mix ' "$d/good.ld.plan" && pass "$arch: mix (called from main) moved" ||
		fail "$arch: mix not moved"

	"$build" "$arch" "$d/good" "$d/good.ld"
	if "$RAMPLACE" check --plan "$d/good.ld.plan" "$d/good/fw.elf" >"$d/check-good.out" 2>&1; then
		pass "$arch: check passes on the safe relink"
	else
		cat "$d/check-good.out"; fail "$arch: check fails on the safe relink"
	fi
	status=0
	run "$arch" "$d/good/fw.elf" "$d/good.out" || status=$?
	if [ "$status" -eq 0 ] && cmp -s "$d/flash.out" "$d/good.out"; then
		pass "$arch: relinked firmware prints the same ($(cat "$d/good.out"))"
	else
		fail "$arch: relinked firmware: status $status, output '$(cat "$d/good.out")'"
	fi

	# the bad relink: memcpy moved to RAM anyway; check names the way to it, QEMU never gets to main
	"$RAMPLACE" place --budget 1K --allow-boot-path --map "$d/flash/fw.map" -o "$d/bad.ld" \
		"$d/profile.db" "$d/flash/fw.elf" >/dev/null
	"$build" "$arch" "$d/bad" "$d/bad.ld"
	case $(addr "$d/bad/fw.elf" memcpy) in
	80*|20*) pass "$arch: --allow-boot-path put memcpy in RAM" ;;
	*) fail "$arch: memcpy not in RAM in the bad relink" ;;
	esac
	# the plan says it was made with --allow-boot-path, which check honours; without that line (a
	# plan that did not vouch for it) check must fail it
	grep -v '^boot-path allowed$' "$d/bad.ld.plan" >"$d/bad-unvouched.plan"
	status=0
	"$RAMPLACE" check --plan "$d/bad-unvouched.plan" "$d/bad/fw.elf" >"$d/check-bad.out" 2>&1 || status=$?
	line="^reset path: 'memcpy' $before but sits in RAM at 0x[0-9a-f]*: .*$reset -> $cstart -> memcpy\$"
	if [ "$status" -eq 1 ] && grep -q "$line" "$d/check-bad.out"; then
		pass "$arch: check exits 1 naming $reset -> $cstart -> memcpy"
	else
		cat "$d/check-bad.out"; fail "$arch: check did not name the chain (status $status)"
	fi
	status=0
	run "$arch" "$d/bad/fw.elf" "$d/bad.out" || status=$?
	[ "$status" -ne 0 ] || ! cmp -s "$d/flash.out" "$d/bad.out" &&
		pass "$arch: the bad relink really bricks the firmware (status $status)" || fail "$arch: the bad relink ran"
done

finish
