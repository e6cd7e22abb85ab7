#!/usr/bin/env bash
# test.sh: the project's test command (README, .ci/run): installs what is missing, builds
# ramplace with warnings as errors (RAMPLACE_WERROR, which a user's own build leaves off) and runs
# every test with CTest: unit tests and the integration tests that build the example firmware
# and run it in QEMU.
#   scripts/test.sh                 plain build in build/, all tests
#   scripts/test.sh --sanitize      ASan+UBSan build in build-asan/, all tests
#   scripts/test.sh --fuzz SECONDS  libFuzzer build in build-fuzz/, each target for SECONDS
#   scripts/test.sh --build-matrix  build only, no tests: every CMake build type with GCC and
#                                   with Clang, in build-matrix/CC-TYPE/ (the program, the
#                                   library, the QEMU plugin and the unit tests), so that a
#                                   warning only one optimizer level or compiler sees is caught
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=plain
fuzz_seconds=0
case "${1:-}" in
	--sanitize) mode=asan ;;
	--fuzz) mode=fuzz; fuzz_seconds=${2:?--fuzz needs SECONDS} ;;
	--build-matrix) mode=matrix ;;
	"") ;;
	*) echo "usage: scripts/test.sh [--sanitize | --fuzz SECONDS | --build-matrix]" >&2; exit 2 ;;
esac

"$root/scripts/install-deps.sh"

case $mode in
plain)
	cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAMPLACE_WERROR=ON >/dev/null
	cmake --build "$root/build" -j2
	ctest --test-dir "$root/build" --output-on-failure -j2
	;;
asan)
	cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug -DRAMPLACE_SANITIZE=ON -DRAMPLACE_WERROR=ON >/dev/null
	cmake --build "$root/build-asan" -j2
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir "$root/build-asan" --output-on-failure -j2
	;;
fuzz)
	# -fno-sanitize-recover=all: a UBSan report aborts the run, or a fuzzer that hit undefined
	# behaviour would print it and "pass"
	CC=clang cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=Debug -DRAMPLACE_FUZZ=ON \
		-DRAMPLACE_WERROR=ON -DRAMPLACE_INTEGRATION=OFF -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" >/dev/null
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
matrix)
	# Only the targets whose warnings matter (no benchmarks, no fuzzers): 8 builds of about
	# a minute each on 2 cores. Each configuration goes on after another failed, so one run
	# names every configuration that breaks.
	broken=()
	start=$SECONDS
	for cc in gcc clang; do
		for type in Debug RelWithDebInfo Release MinSizeRel; do
			dir="$root/build-matrix/$cc-$type"
			t0=$SECONDS
			if cmake -S "$root" -B "$dir" -DCMAKE_C_COMPILER="$cc" -DCMAKE_BUILD_TYPE="$type" \
				-DRAMPLACE_WERROR=ON -DRAMPLACE_INTEGRATION=OFF >/dev/null &&
			   cmake --build "$dir" -j2 --target ramplace ramplace_core ramplace-qemu unit_tests >"$dir.log" 2>&1; then
				echo "build-matrix: $cc $type: built in $((SECONDS - t0)) s"
			else
				echo "build-matrix: $cc $type FAILED:"; grep -E 'error|warning' "$dir.log" | head -40
				broken+=("$cc-$type")
			fi
		done
	done
	echo "build-matrix: $((8 - ${#broken[@]})) of 8 configurations built in $((SECONDS - start)) s${broken:+; broken: ${broken[*]}}"
	[ "${#broken[@]}" -eq 0 ]
	;;
esac
