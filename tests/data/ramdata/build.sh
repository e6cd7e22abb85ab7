#!/usr/bin/env bash
# build.sh: rebuilds the data-object fixture (test_dataobjs.c) from hot.c (-fdata-sections) and
# plain.c (without), with its GNU ld map; committed, so the unit tests need no cross toolchain.
# Run from this directory.
set -euo pipefail
cc="arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -O2 -g0 -ffunction-sections"
$cc -fdata-sections -c hot.c -o hot.o
$cc -c plain.c -o plain.o
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb -nostdlib -nostartfiles -Wl,--build-id=sha1 -T fixture.ld \
	-Wl,-Map=ramdata.map hot.o plain.o -o ramdata.elf
rm -f hot.o plain.o
