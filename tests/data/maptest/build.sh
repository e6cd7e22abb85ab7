#!/bin/sh
# build.sh: builds the maptest program with arm-none-eabi-gcc and writes OUTDIR/maptest.elf
# and OUTDIR/maptest.map. The .ramtext output section INCLUDEs FRAGMENT (default: fragment.ld
# next to this script). Objects are compiled in a temporary directory as obj/NAME.o, so the
# map names them "obj/NAME.o" whatever OUTDIR is. The ELF is stripped of debug info.
#
# The committed test data was made with:  sh tests/data/maptest/build.sh tests/data/maptest
set -eu
here=$(cd "$(dirname "$0")" && pwd)
outdir=${1:?usage: build.sh OUTDIR [FRAGMENT]}
fragment=${2:-$here/fragment.ld}
mkdir -p "$outdir"
outdir=$(cd "$outdir" && pwd)
fragment=$(cd "$(dirname "$fragment")" && pwd)/$(basename "$fragment")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cflags="-mcpu=cortex-m3 -mthumb -O2 -ffunction-sections -fdata-sections -g --specs=rdimon.specs
        -fno-tree-loop-distribute-patterns -Wall -Wextra -Werror"
cd "$work"
mkdir obj
cp "$fragment" ramtext.ld
for c in startup main filt_a filt_b crc; do
	arm-none-eabi-gcc $cflags -c "$here/$c.c" -o "obj/$c.o"
done
arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb --specs=rdimon.specs -nostartfiles \
	-T "$here/maptest.ld" -Wl,-Map=maptest.map -Wl,--build-id -Wl,--gc-sections \
	obj/startup.o obj/main.o obj/filt_a.o obj/filt_b.o obj/crc.o -o maptest.elf
# the map keeps the debug sections (hostile input for the reader); the ELF sheds them to stay
# small. Not with strip --strip-debug: that also drops the STT_FILE symbols which tell the two
# static step() apart.
arm-none-eabi-objcopy --remove-section='.debug*' maptest.elf
cp maptest.elf maptest.map "$outdir/"
