#!/usr/bin/env bash
# tier: full (scripts/test.sh --full; tests/CMakeLists.txt reads this line)
# sanitizers: the default-tier test covers this code under ASan (t_plan_property.sh); this matrix runs in the plain build only
# t_plan_property_full.sh: t_plan_property.sh over both examples at every level, the Cortex-M3
# one with and without -ffunction-sections and built for the M0+ (16-byte veneers) and the M33,
# the RISC-V one with relaxation, and the M3 one linked by ld.lld: 14 builds x 12 rounds x (map,
# no map) = 336 relinks, every fourth run in QEMU.
set -euo pipefail
builds="m3:-O0 m3:-Os m3:-O2 m3:-O3 m3:-Os,-ffunction-sections m3:-O2,-ffunction-sections"
builds="$builds m0p:-Os,-ffunction-sections m33:-Os,-ffunction-sections rv:-O0 rv:-Os rv:-O2 rv:-O3"
builds="$builds m3lld:-Os m3lld:-O2,-ffunction-sections"
PROPERTY_BUILDS=$builds PROPERTY_ROUNDS=${PROPERTY_ROUNDS:-12} exec bash "$(dirname "$0")/t_plan_property.sh"
