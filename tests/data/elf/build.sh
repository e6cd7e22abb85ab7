#!/usr/bin/env bash
# build.sh: rebuilds the ELF fixtures of the image model tests from a.c and b.c (committed, so
# the unit tests need no cross toolchain). Run from this directory.
set -euo pipefail
flags="-O3 -ffunction-sections -nostdlib -nostartfiles -Wl,-e,_start -Wl,--build-id=sha1 -g0"
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb $flags -Wl,-Ttext=0x1000 a.c b.c -o arm-m3.elf
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -mbig-endian $flags -Wl,-Ttext=0x1000 a.c b.c -o arm-m3-be.elf
riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 $flags -Wl,-Ttext=0x20400000 a.c b.c -o riscv32.elf
riscv64-unknown-elf-gcc -march=rv64imac -mabi=lp64 $flags -Wl,-Ttext=0x80000000 a.c b.c -o riscv64.elf
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb $flags -Wl,--build-id=none -Wl,-Ttext=0x1000 a.c b.c -o arm-m3-noid.elf
arm-none-eabi-strip -o arm-m3-stripped.elf arm-m3.elf
# a function symbol with no size (assembly without .size), for call decoding over its extent
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb $flags -Wl,-Ttext=0x1000 a.c b.c nosize.S -o arm-m3-nosize.elf
# a literal pool after a function's .size (a naked function's .ltorg): its section's bytes
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb $flags -Wl,-Ttext=0x1000 a.c b.c pool.S -o arm-m3-pool.elf
# ARMv6-M (Cortex-M0+): build attributes say v6S-M, so long-branch veneers are 16 bytes
arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb $flags -Wl,-Ttext=0x1000 a.c b.c -o arm-m0.elf
# Cortex-M3 with b_entry far away in RAM (far.ld) and --pic-veneer: ld writes 16-byte veneers
# where the architecture's table says 8; the symbols' sizes must win
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb $flags -T far.ld -Wl,--pic-veneer a.c b.c -o arm-m3-far-pic.elf
# ARMv6-M with b_entry far away: calls go through 16-byte Thumb-1 veneers, which the call
# graph must see through
arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb $flags -T far.ld a.c b.c -o arm-m0-far.elf
# RISC-V trap handlers installed by writes to mtvec (direct and vectored): riscv_traps.c
riscv64-unknown-elf-gcc -march=rv32imac_zicsr -mabi=ilp32 -nostdlib -Wl,-Ttext=0x20400000 -Wl,--build-id=sha1 \
	mtvec.S -o riscv-mtvec.elf
