#!/usr/bin/env bash
# loop.sh: the whole ramplace loop on the bundled RISC-V firmware (QEMU sifive_e), end to end:
#   build (everything in XIP flash) -> run in QEMU -> its exact counts and flash stall cycles
#   from the QEMU plugin (PROFILE=record: sampled through the gdbstub instead) -> `ramplace
#   place` at a budget smaller than the hot set -> relink (.ramtext into the 16 KiB DTIM) ->
#   `ramplace check` -> run the relinked firmware (output must be byte-identical) -> its own
#   exact counts: the gain line gives the modeled speed-up the plan predicted and the measured
#   one (scripts/loop-body.sh).
# Exits non-zero when any step fails or the outputs differ.
#   examples/sifive-e-riscv/loop.sh [WORKDIR]     (default build/loop-sifive-e)
# Environment: RAMPLACE (the binary, default build/ramplace), BUDGET (default 1K),
#              ITERATIONS (firmware workload size, default the firmware's own),
#              FLASH_MODEL (default ws:5), PROFILE (exact, the default, or record)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/build/loop-sifive-e}
# semihosting console output goes to stderr unless given a chardev: stdio makes it stdout
qemu_cmd=(qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none
	-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi)
flash_name="XIP flash"
flash_range=20000000-40000000   # the flash model applies to fetches and reads here (QEMU plugin)
ram_name=DTIM
. "$root/scripts/loop-body.sh"
