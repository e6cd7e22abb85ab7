#!/usr/bin/env bash
# quickstart.sh: README's first command: installs what is missing, builds ramplace and runs the
# whole loop on the bundled Cortex-M3 firmware (examples/qemu-cortex-m3/loop.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
"$root/scripts/install-deps.sh"
cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
cmake --build "$root/build" -j2 --target ramplace >/dev/null
RAMPLACE="$root/build/ramplace" "$root/examples/qemu-cortex-m3/loop.sh" "$root/build/loop-cortex-m3"
