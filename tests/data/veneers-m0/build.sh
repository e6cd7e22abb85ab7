#!/usr/bin/env bash
# build.sh: the recipe of the Cortex-M0+ veneer fixture (tests/integration/t_veneer_m0.sh).
#   build.sh OUTDIR FRAGMENT   -> OUTDIR/fw.elf, OUTDIR/fw.map
# arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb (ARMv6-M: Thumb-1, 16-byte long-branch
# veneers), -O2 -ffunction-sections, newlib-nano; the startup code is tests/data/bootpath-c's
# startup-cm.c. Linked with the Cortex-M3 example's mps2-an385.ld, its memory cut to QEMU
# microbit's (256 KiB flash at 0, 16 KiB RAM at 0x20000000) into OUTDIR/fw-m0.ld. Objects keep
# stable names (startup.o, main.o): the fragment's patterns name them; ld finds the INCLUDEd
# ramtext.ld in OUTDIR (-L).
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../.." && pwd)
out=$1 fragment=$2
mkdir -p "$out"
cp "$fragment" "$out/ramtext.ld"
# the example script also INCLUDEs the .ramdata fragment (hot const data): empty here
[ -f "$out/ramdata.ld" ] || echo '/* empty */' >"$out/ramdata.ld"
[ -f "$out/flashtext.ld" ] || echo '/* empty */' >"$out/flashtext.ld"   # and the flash order
sed -e 's/\(ORIGIN = 0x00000000, LENGTH = \)4M/\1256K/' -e 's/\(ORIGIN = 0x20000000, LENGTH = \)64K/\116K/' \
	-e 's/^__heap_min_size = 4K;/__heap_min_size = 1K;/' \
	"$root/examples/qemu-cortex-m3/mps2-an385.ld" >"$out/fw-m0.ld"
grep -q 'LENGTH = 16K' "$out/fw-m0.ld"
cc=(arm-none-eabi-gcc -mcpu=cortex-m0plus -mthumb)
"${cc[@]}" -O2 -g -ffunction-sections -fdata-sections -c "$here/../bootpath-c/startup-cm.c" -o "$out/startup.o"
"${cc[@]}" -O2 -g -ffunction-sections -fdata-sections -c "$here/main.c" -o "$out/main.o"
(cd "$out" && "${cc[@]}" -g --specs=nano.specs -nostartfiles -Wl,--gc-sections -T fw-m0.ld -L. \
	-Wl,-Map=fw.map -Wl,--build-id=sha1 startup.o main.o -o fw.elf)
