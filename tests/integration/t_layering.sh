#!/usr/bin/env bash
# t_layering.sh: the library's layering holds in the built objects (ramplace/lib/README.md): no
# two library or CLI files call into each other, no include circle, and no stage reaches above
# itself (image and profile below solve; ldgen and verify take only the plan; util/error
# below everything). The checks are in layering.py, which reads nm's view of the objects.
# Needs: $RAMPLACE_SRC, $RAMPLACE_BUILD (a build of ramplace), nm, python3.
set -euo pipefail
: "${RAMPLACE_SRC:?}" "${RAMPLACE_BUILD:?}"
exec python3 "$RAMPLACE_SRC/tests/integration/layering.py" "$RAMPLACE_SRC" "$RAMPLACE_BUILD"
