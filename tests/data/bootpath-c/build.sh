#!/usr/bin/env bash
# build.sh: the recipe of the C-startup boot-path fixtures (tests/integration/t_boot_path_c.sh).
#   build.sh riscv|cm3|cm3-table OUTDIR FRAGMENT   -> OUTDIR/fw.elf, OUTDIR/fw.map
# The workload is tests/data/bootpath/main.c (memcpy-heavy); the startup file is compiled at -O2
# WITHOUT -fno-tree-loop-distribute-patterns, so that its copy and clear loops become
# memcpy/memset calls (the case under test). Objects keep stable names (startup.o, main.o): the
# fragment's patterns name them; ld finds the INCLUDEd ramtext.ld in OUTDIR (-L).
#   riscv: riscv64-unknown-elf-gcc + picolibc, rv32imac, linked with examples/sifive-e-riscv/sifive-e.ld
#          (code in the sifive_e XIP flash at 0x20400000, .ramtext in the 16 KiB DTIM at 0x80000000)
#   cm3:   arm-none-eabi-gcc -mcpu=cortex-m3 + newlib-nano, startup-cm.c, linked with
#          examples/qemu-cortex-m3/mps2-an385.ld (QEMU mps2-an385)
#   cm3-table: the same, copying through a CMSIS-style table of sections (-DCOPY_TABLE)
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
arch=$1 out=$2 fragment=$3
mkdir -p "$out"
cp "$fragment" "$out/ramtext.ld"
# the example scripts also INCLUDE the .ramdata fragment (hot const data): empty here
[ -f "$out/ramdata.ld" ] || echo '/* empty */' >"$out/ramdata.ld"
[ -f "$out/flashtext.ld" ] || echo '/* empty */' >"$out/flashtext.ld"   # and the flash order
case $arch in
riscv)
	cc=(riscv64-unknown-elf-gcc -march=rv32imac -mabi=ilp32 -mcmodel=medany --specs=picolibc.specs)
	startup=startup-riscv.c
	ldflags=(--oslib=semihost -T "$root/examples/sifive-e-riscv/sifive-e.ld") ;;   # with relaxation, as GNU ld links by default
cm3 | cm3-table)
	cc=(arm-none-eabi-gcc -mcpu=cortex-m3 -mthumb)
	[ "$arch" = cm3-table ] && cc+=(-DCOPY_TABLE)
	startup=startup-cm.c
	ldflags=(--specs=nano.specs -T "$root/examples/qemu-cortex-m3/mps2-an385.ld") ;;
*) echo "build.sh: unknown arch '$arch'" >&2; exit 2 ;;
esac
"${cc[@]}" -O2 -g -ffunction-sections -fdata-sections -c "$here/$startup" -o "$out/startup.o"
"${cc[@]}" -O2 -g -ffunction-sections -fdata-sections -c "$here/../bootpath/main.c" -o "$out/main.o"
(cd "$out" && "${cc[@]}" -g -nostartfiles -Wl,--gc-sections "${ldflags[@]}" -L. -Wl,-Map=fw.map \
	-Wl,--build-id=sha1 startup.o main.o -o fw.elf)
