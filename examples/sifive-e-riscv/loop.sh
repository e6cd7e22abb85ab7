#!/usr/bin/env bash
# loop.sh: the whole ramplace loop on the bundled RISC-V firmware (QEMU sifive_e), end to end:
#   build (everything in XIP flash) -> run in QEMU -> run again under QEMU's gdbstub while
#   `ramplace record` samples the PC -> `ramplace place` at a budget smaller than the hot set
#   -> relink (.ramtext into the 16 KiB DTIM) -> `ramplace check` -> run the relinked firmware
#   (output must be byte-identical) -> record it again and print the share of samples that now
#   execute from RAM (scripts/loop-body.sh).
# Exits non-zero when any step fails or the outputs differ.
#   examples/sifive-e-riscv/loop.sh [WORKDIR]     (default build/loop-sifive-e)
# Environment: RAMPLACE (the binary, default build/ramplace), BUDGET (default 1K),
#              ITERATIONS (firmware workload size, default the firmware's own)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/build/loop-sifive-e}
# semihosting console output goes to stderr unless given a chardev: stdio makes it stdout
qemu_cmd=(qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none
	-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi)
flash_name="XIP flash"
ram_name=DTIM
. "$root/scripts/loop-body.sh"
