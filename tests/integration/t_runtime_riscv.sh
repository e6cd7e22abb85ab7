#!/usr/bin/env bash
# t_runtime_riscv.sh: the RISC-V port of the target-side sampling runtime (CLINT machine timer,
# trap entry, semihosting) on QEMU's sifive_e under -icount shift=0, with the small firmware in
# tests/data/runtime-riscv: heavy() runs three times the loop iterations of light(), so exact
# instruction counts give heavy 15005 / (15005 + 5004 + a few) = 0.750 of the pair. The gmon.out
# the firmware writes over semihosting must be read by riscv64-unknown-elf-gprof (an independent
# reader) with heavy's share within 0.05 of that (about 4000 samples: the standard error is 0.007).
# Then the RISC-V example built with the runtime: the histogram pulled by `ramplace record
# --runtime` is byte-identical to the semihosting file.
# Needs: riscv64-unknown-elf-gcc + picolibc, riscv64-unknown-elf-gprof, qemu-system-riscv32.
. "$(dirname "$0")/lib.sh"
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'
cd "$work"

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

# the RISC-V example with the runtime (make PROFILE_RUNTIME=1): semihosting dump and
# `ramplace record --runtime` through the gdbstub give the same bytes
make -s -C "$RAMPLACE_SRC/examples/sifive-e-riscv" BUILD="$work/ex" PROFILE_RUNTIME=1 ITERATIONS=50 >/dev/null
mkdir ex-run
port=$(free_port)
(cd ex-run && exec qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none \
	-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi -icount shift=0 \
	-gdb "tcp:127.0.0.1:$port" -S -kernel "$work/ex/fw.elf" >out 2>&1) &
qemu_pid=$!
wait_port "$port" 10
"$RAMPLACE" record --runtime --quiet --remote "127.0.0.1:$port" --gmon pulled.out ex.db "$work/ex/fw.elf" \
	&& status=0 || status=$?
wait_pid "$qemu_pid" 60 && qstatus=0 || qstatus=$?
qemu_pid=""
check "example: record --runtime succeeds" test "$status" -eq 0
check "example: the firmware exits 0 after the read" test "$qstatus" -eq 0
check "example: it computes what it computes without the runtime" grep -qx 'result:  ok' ex-run/out
check "example: pulled gmon.out is byte-identical to the semihosting one" cmp -s pulled.out ex-run/gmon.out
check "example: vm_run on top of the stored run" \
	bash -c "'$RAMPLACE' report ex.db | awk '\$1 ~ /^[0-9.]+\$/ && NF >= 4 { print \$NF; exit }' | grep -qx vm_run"

finish
