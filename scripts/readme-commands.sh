#!/usr/bin/env bash
# readme-commands.sh: prints the commands of README.md's Quick start, one a line, exactly as
# README writes them (the first ```sh block under "## Quick start", comments and blank lines
# dropped). .ci/run runs what this prints, so CI runs what README tells a new user to run and
# the two cannot drift apart; tests/integration/t_readme_commands.sh checks what it finds.
#   scripts/readme-commands.sh [README.md]
set -euo pipefail
readme=${1:-$(cd "$(dirname "$0")/.." && pwd)/README.md}
awk '
	/^## / { in_section = ($0 == "## Quick start") ; next }
	in_section && !done && /^```sh$/ { in_block = 1; next }
	in_block && /^```$/ { in_block = 0; done = 1; next }
	in_block {
		sub(/[ \t]+#.*$/, "")
		if ($0 ~ /^[ \t]*(#|$)/) next
		print
	}
' "$readme"
