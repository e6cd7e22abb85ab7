#!/usr/bin/env bash
# quickstart.sh: README's first command: installs what is missing, builds ramplace and runs the
# whole loop on a bundled firmware.
#   scripts/quickstart.sh            Cortex-M3 on QEMU mps2-an385 (examples/qemu-cortex-m3/loop.sh)
#   scripts/quickstart.sh --riscv    RISC-V 32 on QEMU sifive_e (examples/sifive-e-riscv/loop.sh)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
case "${1:-}" in
	"") example=qemu-cortex-m3 work=loop-cortex-m3 ;;
	--riscv) example=sifive-e-riscv work=loop-sifive-e ;;
	*) echo "usage: scripts/quickstart.sh [--riscv]" >&2; exit 2 ;;
esac
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j2 --target ramplace >/dev/null
RAMPLACE="$root/build/ramplace" "$root/examples/$example/loop.sh" "$root/build/$work"
