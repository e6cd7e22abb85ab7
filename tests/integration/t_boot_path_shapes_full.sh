#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# sanitizers: the default-tier test covers this code under ASan (t_boot_path_shapes.sh); this matrix runs in the plain build only
# t_boot_path_shapes_full.sh: t_boot_path_shapes.sh on every cell: on Cortex-M3, M0+, M33 and on
# RV32 (entered by a call and by a tail jump), the .ramtext copy first, between the others or
# last (four orders of the three loops), -O0/-Os/-O2/-O3, and both endings: 160 C startups;
# then the assembly ones: CMSIS's (copy and zero tables; SystemInit after or before the copy;
# into newlib's crt0 or main) on M3, M0+ and M33, and picolibc's crt0 on RV32 (.ramtext copied
# by a constructor): 16 more.
set -euo pipefail
shapes=""
for arch in m3 m0p m33 rv-call rv-tail; do
	for order in rdb drb dbr bdr; do
		for opt in -O0 -Os -O2 -O3; do
			for end in exit check; do
				shapes="$shapes $arch:$order:$opt:$end"
			done
		done
	done
done
# The assembly reset handler is the same at every level (only SystemInit and the C after it
# change): each combination once, the levels taken in turn; the constructor's copy loop is C,
# so RV32's at every level.
levels=(-Os -O2 -O0 -O3) k=0
for arch in m3 m0p m33; do
	for order in cmsis cmsisS; do
		for end in crt0 main; do
			shapes="$shapes $arch:$order:${levels[k % 4]}:$end"
			k=$((k + 1))
		done
	done
done
for opt in "${levels[@]}"; do
	shapes="$shapes rv:ctor:$opt:crt0"
done
SHAPES=$shapes SHAPE_PLANS=${SHAPE_PLANS:-1} SHAPE_PLAN_EVERY=${SHAPE_PLAN_EVERY:-4} exec bash "$(dirname "$0")/t_boot_path_shapes.sh"
