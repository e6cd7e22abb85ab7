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
# quiet when it works; when a step fails, its own output says why
log=$(mktemp)
trap 'rm -f "$log"' EXIT
quietly() { # WHAT COMMAND...: runs COMMAND, shows its output and exits non-zero when it fails
	local what=$1
	shift
	if ! "$@" >"$log" 2>&1; then
		tail -40 "$log" >&2
		echo "quickstart: $what failed: $*" >&2
		exit 1
	fi
}
quietly "configuring the build" cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo
# the loop needs the program and the QEMU plugin that gives the exact counts
quietly "building ramplace" cmake --build "$root/build" -j2 --target ramplace ramplace-qemu
RAMPLACE="$root/build/ramplace" "$root/examples/$example/loop.sh" "$root/build/$work"
