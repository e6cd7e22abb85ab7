#!/usr/bin/env bash
# test.sh: the project's test command (README, .ci/run): installs what is missing, builds
# ramplace with -Werror and runs every test with CTest: unit tests and the integration tests
# that build the example firmware and run it in QEMU.
#   scripts/test.sh                 plain build in build/, all tests
#   scripts/test.sh --sanitize      ASan+UBSan build in build-asan/, all tests
#   scripts/test.sh --fuzz SECONDS  libFuzzer build in build-fuzz/, each target for SECONDS
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=plain
fuzz_seconds=0
case "${1:-}" in
	--sanitize) mode=asan ;;
	--fuzz) mode=fuzz; fuzz_seconds=${2:?--fuzz needs SECONDS} ;;
	"") ;;
	*) echo "usage: scripts/test.sh [--sanitize | --fuzz SECONDS]" >&2; exit 2 ;;
esac

"$root/scripts/install-deps.sh"

case $mode in
plain)
	cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
	cmake --build "$root/build" -j2
	ctest --test-dir "$root/build" --output-on-failure -j2
	;;
asan)
	cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DRAMPLACE_SANITIZE=ON >/dev/null
	cmake --build "$root/build-asan" -j2
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir "$root/build-asan" --output-on-failure -j2
	;;
fuzz)
	CC=clang cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=Debug -DRAMPLACE_FUZZ=ON \
		-DRAMPLACE_INTEGRATION=OFF -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined" >/dev/null
	cmake --build "$root/build-fuzz" -j2
	passed=0
	failed=0
	for target in "$root"/build-fuzz/tests/fuzz_*; do
		name=$(basename "$target")
		corpus="$root/tests/fuzz/corpus/${name#fuzz_}"
		work=$(mktemp -d)
		[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
		if "$target" -max_total_time="$fuzz_seconds" -max_len=65536 -timeout=10 \
			-artifact_prefix="$root/build-fuzz/$name-" "$work" >"$work.log" 2>&1; then
			echo "fuzz: $name: $(grep -Eo 'Done [0-9]+ runs' "$work.log" | tail -1) without a crash"
			passed=$((passed + 1))
		else
			echo "fuzz: $name FAILED:"; tail -40 "$work.log"
			failed=$((failed + 1))
		fi
		rm -rf "$work" "$work.log"
	done
	echo "$passed passed, $failed failed"
	[ "$failed" -eq 0 ]
	;;
esac
