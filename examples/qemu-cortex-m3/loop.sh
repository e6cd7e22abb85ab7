#!/usr/bin/env bash
# loop.sh: the whole ramplace loop on the bundled Cortex-M3 firmware (QEMU mps2-an385), end to
# end: build (flash only) -> run in QEMU -> its exact counts and flash stall cycles from the
# QEMU plugin (PROFILE=record: sampled through the gdbstub instead) -> `ramplace place` at a
# budget smaller than the hot set -> relink -> `ramplace check` -> run the relinked firmware
# (output must be byte-identical) -> its own exact counts: the gain line gives the modeled
# speed-up the plan predicted and the measured one (scripts/loop-body.sh).
# Exits non-zero when any step fails or the outputs differ.
#   examples/qemu-cortex-m3/loop.sh [WORKDIR]     (default build/loop-cortex-m3)
# Environment: RAMPLACE (the binary, default build/ramplace), BUDGET (default 1K),
#              ITERATIONS (firmware workload size, default the firmware's own),
#              FLASH_MODEL (default ws:5), PROFILE (exact, the default, or record)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
work=${1:-$root/build/loop-cortex-m3}
qemu_cmd=(qemu-system-arm -M mps2-an385 -nographic -monitor none -serial none
	-semihosting-config enable=on,target=native)
flash_name=flash
flash_range=0-400000   # the flash model applies to fetches and reads here (QEMU plugin)
ram_name=RAM
. "$root/scripts/loop-body.sh"
