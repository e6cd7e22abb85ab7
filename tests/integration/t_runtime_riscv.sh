#!/usr/bin/env bash
# t_runtime_riscv.sh: the RISC-V port of the target-side sampling runtime (CLINT machine timer,
# trap entry, semihosting) on QEMU's sifive_e under -icount shift=0, with the small firmware in
# tests/data/runtime-riscv: heavy() runs three times the loop iterations of light(), so exact
# instruction counts give heavy 15005 / (15005 + 5004 + a few) = 0.750 of the pair. The gmon.out
# the firmware writes over semihosting must be read by riscv64-unknown-elf-gprof (an independent
# reader) with heavy's share within 0.05 of that (about 4000 samples: the standard error is 0.007).
# Needs: riscv64-unknown-elf-gcc + picolibc, riscv64-unknown-elf-gprof, qemu-system-riscv32.
set -euo pipefail
: "${RAMPLACE_SRC:?set RAMPLACE_SRC to the repository root}"
. "$RAMPLACE_SRC/scripts/qemu-lib.sh"
work=$(mktemp -d)
qemu_pid=""
trap 'stop_pid "$qemu_pid"; rm -rf "$work"' EXIT
cd "$work"
passed=0
failed=0
check() {
	local name=$1
	shift
	if "$@"; then
		echo "ok: $name"
		passed=$((passed + 1))
	else
		echo "FAIL: $name"
		failed=$((failed + 1))
	fi
}

"$RAMPLACE_SRC/tests/data/runtime-riscv/build.sh" fw.elf 2>build.err
qemu-system-riscv32 -M sifive_e -nographic -bios none -semihosting-config enable=on,target=native \
	-icount shift=0 -kernel fw.elf >out 2>&1 &
qemu_pid=$!
wait_pid "$qemu_pid" 60 && status=0 || status=$?
qemu_pid=""
check "the firmware exits 0 through semihosting" test "$status" -eq 0
check "it reports its samples" grep -Eq '^profile: [0-9]{4} samples \(0 outside, 0 lost\), 4-byte buckets, 200000 Hz$' out
check "gmon.out is written over semihosting" test -s gmon.out
riscv64-unknown-elf-gprof -b -p fw.elf gmon.out >gprof.txt 2>&1 || true
share() { awk -v f="$1" 'NR > 5 && $NF == f { print $1 / 100 }' gprof.txt; }
heavy=$(share heavy)
light=$(share light)
echo "heavy ${heavy:-?} light ${light:-?} of the samples (exact: 0.750 and 0.250)"
check "riscv64-unknown-elf-gprof reads it: heavy within 0.05 of its exact share" \
	awk -v h="${heavy:-0}" 'BEGIN { exit !(h > 0.70 && h < 0.80) }'
check "light within 0.05 of its exact share" awk -v l="${light:-0}" 'BEGIN { exit !(l > 0.20 && l < 0.30) }'

echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
