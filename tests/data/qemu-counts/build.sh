#!/usr/bin/env bash
# build.sh: rebuilds fw.elf, the firmware with per-function instruction counts known by
# construction (see fw.S), from this directory. The ELF is committed.
set -euo pipefail
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -nostdlib -nostartfiles -Wl,--build-id=sha1 -T fw.ld fw.S -o fw.elf
