#!/usr/bin/env bash
# build.sh OUT.elf: builds main.c with ramplace's sampling runtime for QEMU's sifive_e (code in
# the XIP flash at 0x20400000, data in the 16 KiB DTIM; mtime counts 10 MHz in QEMU 7.2).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
rt=$here/../../../ramplace/runtime
riscv64-unknown-elf-gcc --specs=picolibc.specs --oslib=semihost -march=rv32imac -mabi=ilp32 \
	-O2 -g -std=c11 -Wall -Wextra -Werror -I"$rt" \
	-DRAMPLACE_PROFILE_CLOCK_HZ=10000000 -DRAMPLACE_PROFILE_BINS=4096 \
	-Wl,--defsym=__flash=0x20400000 -Wl,--defsym=__flash_size=0x400000 \
	-Wl,--defsym=__ram=0x80000000 -Wl,--defsym=__ram_size=0x4000 \
	"$here/main.c" "$rt/profile.c" "$rt/port_riscv.c" -o "$1"
