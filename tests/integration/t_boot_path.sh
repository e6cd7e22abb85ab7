#!/usr/bin/env bash
# t_boot_path.sh: the reset path on a firmware whose reset handler copies .data and .ramtext
# with memcpy and clears .bss with memset (tests/data/bootpath), while memcpy is also the
# hottest function of the workload. `ramplace place` must keep memcpy (and memset) in flash
# and say why, and still move the hot code called after the copy; the relinked firmware runs.
# Forcing memcpy into RAM (--allow-boot-path) indeed bricks the firmware in QEMU: the plan
# records the option (boot-path allowed) and `check` honours it, listing memcpy as allowed (issue
# 37 item 1: a user who knows better should not have to repeat it); the same plan without that
# line (as a hand-edited fragment would be) must be caught by `check` (exit 1, the reset-path
# line), and `check --allow-boot-path` lists it and passes.
# Needs: $RAMPLACE, $RAMPLACE_SRC; arm-none-eabi-gcc, qemu-system-arm.
. "$(dirname "$0")/lib.sh"
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'

src=$RAMPLACE_SRC/tests/data/bootpath
build() { # DIR FRAGMENT
	mkdir -p "$1"
	cp "$2" "$1/ramtext.ld"
	echo '/* empty */' >"$1/ramdata.ld"   # the example's script also INCLUDEs the .ramdata fragment
	echo '/* empty */' >"$1/flashtext.ld" # and the flash order
	for c in startup main; do   # objects with stable names: the fragment's patterns name them
		arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O2 -g -ffunction-sections -fdata-sections \
			-c "$src/$c.c" -o "$1/$c.o"
	done
	arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -g --specs=nano.specs --specs=rdimon.specs -nostartfiles \
		-Wl,--gc-sections -T "$RAMPLACE_SRC/examples/qemu-cortex-m3/mps2-an385.ld" -L"$1" \
		-Wl,-Map="$1/fw.map" -Wl,--build-id=sha1 "$1/startup.o" "$1/main.o" -o "$1/fw.elf"
}
run() { # ELF -> exit status of the firmware (124: killed after 10 s)
	qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none \
		-semihosting-config enable=on,target=native -kernel "$1" >/dev/null 2>&1 &
	qemu_pid=$!
	local status=0
	wait_pid "$qemu_pid" 10 || status=$?
	qemu_pid=""
	return $status
}
addr() { arm-none-eabi-nm "$1" | awk -v n="$2" '$3 == n { print $1; exit }'; }

cd "$work"   # ld finds INCLUDEd files in the current directory first
echo '/* empty */' >"$work/empty.ld"
build "$work/flash" "$work/empty.ld"
# a profile where memcpy is hottest, then mix, then main
printf '%x 900\n%x 300\n%x 50\n' $((0x$(addr "$work/flash/fw.elf" memcpy) + 2)) \
	$((0x$(addr "$work/flash/fw.elf" mix) + 4)) $((0x$(addr "$work/flash/fw.elf" main) + 4)) >"$work/pcs.txt"
"$RAMPLACE" import --quiet "$work/profile.db" "$work/flash/fw.elf" "$work/pcs.txt"

"$RAMPLACE" place --budget 1K --map "$work/flash/fw.map" -o "$work/good.ld" "$work/profile.db" \
	"$work/flash/fw.elf" >"$work/place.out"
if grep -q '^kept in flash: memcpy: called by the reset handler before the code is copied' "$work/place.out"; then
	pass "memcpy kept in flash, with the reason"
else
	cat "$work/place.out"; fail "no 'kept in flash: memcpy' line"
fi
if grep -q '^func memcpy ' "$work/good.ld.plan"; then fail "memcpy in the plan"; else pass "memcpy not in the plan"; fi
if grep -q '^func mix ' "$work/good.ld.plan" && grep -q '^func main ' "$work/good.ld.plan"; then
	pass "mix and main (called after the copy) moved"
else
	fail "mix or main not moved"
fi
grep -q '^reset path: Reset_Handler (found by the vector table (.vectors)) copies the code' "$work/place.out" &&
	pass "report names the reset handler and the copy" || fail "no reset path line in the report"

build "$work/good" "$work/good.ld"
if "$RAMPLACE" check --plan "$work/good.ld.plan" "$work/good/fw.elf" >"$work/check-good.out"; then
	pass "check passes on the safe plan"
else
	cat "$work/check-good.out"; fail "check fails on the safe plan"
fi
grep -Eq '^reset path: [0-9]+ functions run before the copy, 0 in RAM$' "$work/check-good.out" &&
	pass "check looked at the reset path" || fail "no reset path summary"
if run "$work/good/fw.elf"; then pass "safe placement runs"; else fail "safe placement does not run"; fi

"$RAMPLACE" place --budget 1K --allow-boot-path --map "$work/flash/fw.map" -o "$work/bad.ld" \
	"$work/profile.db" "$work/flash/fw.elf" >/dev/null
build "$work/bad" "$work/bad.ld"
check "the plan records --allow-boot-path" grep -q '^boot-path allowed$' "$work/bad.ld.plan"
status=0
"$RAMPLACE" check --plan "$work/bad.ld.plan" "$work/bad/fw.elf" >"$work/check-plan.out" 2>&1 || status=$?
if [ "$status" -eq 0 ] && grep -q "^allowed: reset path: 'memcpy' runs before Reset_Handler copies the code" "$work/check-plan.out" &&
   grep -q '^reset path: .* (allowed: the plan was made with --allow-boot-path)$' "$work/check-plan.out"; then
	pass "check honours the plan's boot-path line: memcpy listed as allowed, exit 0"
else
	cat "$work/check-plan.out"; fail "check of a plan made with --allow-boot-path (status $status)"
fi
grep -v '^boot-path allowed$' "$work/bad.ld.plan" >"$work/bad-unvouched.plan"
status=0
"$RAMPLACE" check --plan "$work/bad-unvouched.plan" "$work/bad/fw.elf" >"$work/check-bad.out" 2>&1 || status=$?
if [ "$status" -eq 1 ] && grep -q "^reset path: 'memcpy' runs before Reset_Handler copies the code" "$work/check-bad.out"; then
	pass "without that line check flags memcpy in RAM on the reset path (exit 1)"
else
	cat "$work/check-bad.out"; fail "check did not flag the reset path (status $status)"
fi
# a user who knows better says so to check with place's option: listed, not failed
status=0
"$RAMPLACE" check --allow-boot-path --plan "$work/bad-unvouched.plan" "$work/bad/fw.elf" >"$work/check-allowed.out" 2>&1 || status=$?
if [ "$status" -eq 0 ] && grep -q "^allowed: reset path: 'memcpy' runs before Reset_Handler copies the code" "$work/check-allowed.out" &&
   grep -q '^reset path: .* (allowed by --allow-boot-path)$' "$work/check-allowed.out"; then
	pass "check --allow-boot-path lists the reset-path functions in RAM and passes"
else
	cat "$work/check-allowed.out"; fail "check --allow-boot-path (status $status)"
fi
status=0
run "$work/bad/fw.elf" || status=$?
if [ "$status" -ne 0 ]; then pass "the unsafe placement really bricks the firmware (status $status)"; else fail "unsafe placement ran"; fi

finish
