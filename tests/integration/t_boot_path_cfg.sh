#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# t_boot_path_cfg.sh: the reset path read by control flow, not address order (issue 22). The
# fixture (tests/data/bootpath-cfg, built by its build.sh) copies .ramtext with a volatile loop
# and then calls main, after calling early_init() before the copy. Built three ways (the loop in
# the C reset handler, in a callee, or an assembly reset handler laid out as GCC lays -Os code:
# the loop's exit test and the call to main before the loop body), at -O0, -O2 and -Os, for
# Cortex-M3 and RV32 (medlow and medany code models, linked with relaxation), it is profiled
# with a PC list on hot(), main() and warm(), placed at 1 KiB with its map, relinked, checked
# and run. Every cell must move hot and main (called after the copy), keep warm in flash
# (early_init runs it before the copy) with the reason, pass `check`, and print what the
# flash-only build prints. Before the reset path was read by dominance, 12 of the 27 cells kept
# main and hot in flash ("called before that") and failed `check` on an empty plan.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc, riscv64-unknown-elf-gcc, qemu-system-arm,
# qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
build=$RAMPLACE_SRC/tests/data/bootpath-cfg/build.sh
cd "$work"   # ld finds INCLUDEd files in the current directory first: there is none here
echo '/* empty */' >empty.ld

run() { # ARCH ELF OUT: the firmware's semihosting output in OUT, its exit status returned
	local qemu=(qemu-system-arm -M mps2-an385)
	[ "$1" = cm3 ] || qemu=(qemu-system-riscv32 -M sifive_e -bios none)
	timeout 30 "${qemu[@]}" -nographic -monitor none -serial none -chardev stdio,id=semi \
		-semihosting-config enable=on,target=native,chardev=semi -kernel "$2" </dev/null >"$3" 2>/dev/null
}

for arch in cm3 rv32-medlow rv32-medany; do
	nm=arm-none-eabi-nm
	[ "$arch" = cm3 ] || nm=riscv64-unknown-elf-nm
	for opt in O0 O2 Os; do
		for layout in inline callee asm; do
			cell=$arch-$opt-$layout
			d=$work/$cell
			if ! "$build" "$arch" "$opt" "$layout" "$d/flash" empty.ld >"$d.log" 2>&1; then
				cat "$d.log"; fail "$cell: the flash-only build"; continue
			fi
			status=0
			run "$arch" "$d/flash/fw.elf" "$d/flash.out" || status=$?
			if [ "$status" -ne 0 ] || ! grep -Eq '^[0-9a-f]{8}$' "$d/flash.out"; then
				fail "$cell: the flash-only firmware (status $status: $(head -c 80 "$d/flash.out"))"; continue
			fi
			addr() { "$nm" "$d/flash/fw.elf" | awk -v n="$1" '$3 == n { print "0x" $1; exit }'; }
			{ for i in $(seq 80); do addr hot; done; for i in $(seq 10); do addr main; addr warm; done; } >"$d/pcs.txt"
			"$RAMPLACE" import --quiet --format pclist "$d/p.db" "$d/flash/fw.elf" "$d/pcs.txt"
			mkdir -p "$d/plan"
			"$RAMPLACE" place --budget 1K --map "$d/flash/fw.map" -o "$d/plan/ramtext.ld" "$d/p.db" \
				"$d/flash/fw.elf" >"$d/place.out" 2>&1 || { cat "$d/place.out"; fail "$cell: place"; continue; }
			moved=$(awk '$1 == "func" { printf "%s ", $2 }' "$d/plan/ramtext.ld.plan")
			if [ "$moved" != "hot main " ] && [ "$moved" != "main hot " ]; then
				cat "$d/place.out"; fail "$cell: moved '$moved', not hot and main"; continue
			fi
			if ! grep -q '^kept in flash: warm: reached from a call the reset handler makes before the code is copied' "$d/place.out"; then
				cat "$d/place.out"; fail "$cell: warm (run before the copy) not kept with its reason"; continue
			fi
			if ! "$build" "$arch" "$opt" "$layout" "$d/ram" "$d/plan/ramtext.ld" >"$d.log" 2>&1; then
				cat "$d.log"; fail "$cell: the relink"; continue
			fi
			if ! "$RAMPLACE" check --plan "$d/plan/ramtext.ld.plan" "$d/ram/fw.elf" >"$d/check.out" 2>&1; then
				cat "$d/check.out"; fail "$cell: check"; continue
			fi
			status=0
			run "$arch" "$d/ram/fw.elf" "$d/ram.out" || status=$?
			if [ "$status" -eq 0 ] && cmp -s "$d/flash.out" "$d/ram.out"; then
				pass "$cell: hot and main move, warm stays, check passes, output identical"
			else
				fail "$cell: the relinked firmware: status $status, '$(head -c 80 "$d/ram.out")' vs '$(cat "$d/flash.out")'"
			fi
		done
	done
done
finish
