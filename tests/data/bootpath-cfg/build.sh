#!/usr/bin/env bash
# build.sh: the recipe of the reset-path fixtures of tests/integration/t_boot_path_cfg.sh.
#   build.sh ARCH OPT LAYOUT OUTDIR FRAGMENT   -> OUTDIR/fw.elf, OUTDIR/fw.map
#   ARCH    cm3 (arm-none-eabi-gcc -mcpu=cortex-m3, QEMU mps2-an385) |
#           rv32-medlow | rv32-medany (riscv64-unknown-elf-gcc -march=rv32imac, QEMU sifive_e;
#           linked with relaxation, GNU ld's default)
#   OPT     O0 | O2 | Os
#   LAYOUT  inline (the copy loop in the C reset handler) | callee (in a noinline
#           copy_ramtext() it calls) | asm (an assembly reset handler, -Os layout)
# No C library: fw.c and start-*.S are the whole firmware. Objects keep stable names (fw.o,
# start.o): the fragment's patterns name them; ld finds the INCLUDEd ramtext.ld in OUTDIR (-L).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
arch=$1 opt=$2 layout=$3 out=$4 fragment=$5
mkdir -p "$out"
cp "$fragment" "$out/ramtext.ld"
case $layout in
inline) defs=() ;;
callee) defs=(-DCOPY_IN_CALLEE) ;;
asm) defs=(-DASM_RESET) ;;
*) echo "build.sh: unknown layout '$layout'" >&2; exit 2 ;;
esac
case $arch in
cm3)
	cc=(arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb) start=start-cm3.S script=cm3.ld ;;
rv32-medlow | rv32-medany)
	cc=(riscv64-unknown-elf-gcc -march=rv32imac_zicsr_zifencei -mabi=ilp32 -mcmodel="${arch#rv32-}")
	start=start-rv32.S script=rv32.ld ;;
*) echo "build.sh: unknown arch '$arch'" >&2; exit 2 ;;
esac
cd "$out"
"${cc[@]}" -"$opt" -g -ffunction-sections -fno-tree-loop-distribute-patterns -ffreestanding "${defs[@]}" \
	-c "$here/fw.c" -o fw.o
"${cc[@]}" "${defs[@]}" -c "$here/$start" -o start.o
"${cc[@]}" -nostdlib -nostartfiles -T "$here/$script" -L. -Wl,-Map=fw.map -Wl,--build-id=sha1 \
	start.o fw.o -o fw.elf
