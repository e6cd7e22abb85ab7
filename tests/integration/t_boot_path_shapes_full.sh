#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# sanitizers: the default-tier test covers this code under ASan (t_boot_path_shapes.sh); this matrix runs in the plain build only
# t_boot_path_shapes_full.sh: t_boot_path_shapes.sh on every cell: on Cortex-M3, M0+, M33 and on
# RV32 (entered by a call and by a tail jump), the .ramtext copy first, between the others or
# last (four orders of the three loops), -O0/-Os/-O2/-O3, and both endings: 160 startups.
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
SHAPES=$shapes SHAPE_PLANS=${SHAPE_PLANS:-1} SHAPE_PLAN_EVERY=${SHAPE_PLAN_EVERY:-4} exec bash "$(dirname "$0")/t_boot_path_shapes.sh"
