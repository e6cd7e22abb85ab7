#!/usr/bin/env bash
# test.sh: the project's test command (README, .ci/run): installs what is missing, builds
# ramplace with warnings as errors (RAMPLACE_WERROR, which a user's own build leaves off) and runs
# the tests with CTest: unit tests and the integration tests that build the example firmware and
# run it in QEMU. Two tiers, as SQLite separates `make test` from its release tests: the default
# one proves the main loop (build, profile, place, relink, check, run on both examples; the
# importers; the CLI conventions; the HTML page) in a few minutes; the full one adds the long
# matrices (CTest label "full": boot-path configurations, layout relinks, conformance cells,
# recording faults) and the tests on the third-party corpus of docs/corpus.md (label "corpus":
# with RAMPLACE_CORPUS in the full tier; without it in the default one, reported "not run").
#   scripts/test.sh                 plain build in build/, the default tier
#   scripts/test.sh --full          plain build in build/, every test
#   scripts/test.sh --rest          plain build in build/, the tests the default tier leaves out
#                                   (.ci/run, after README's command ran the default tier)
#   scripts/test.sh --sanitize [--full]  ASan+UBSan build in build-asan/, the default tier or all
#   scripts/test.sh --fuzz SECONDS  libFuzzer build in build-fuzz/, each target for SECONDS (two
#                                   targets at a time)
#   scripts/test.sh --build-matrix  build only, no tests: every CMake build type with GCC and
#                                   with Clang, in build-matrix/CC-TYPE/ (the program, the
#                                   library, the QEMU plugin and the unit tests), so that a
#                                   warning only one optimizer level or compiler sees is caught
# Each run ends with a line "test.sh: ...: N s", the time it took.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
mode=plain
tier=default
fuzz_seconds=0
usage() {
	echo "usage: scripts/test.sh [--full | --rest | --sanitize [--full] | --fuzz SECONDS | --build-matrix]" >&2
	exit 2
}
while [ $# -gt 0 ]; do
	case $1 in
	--full) tier=full ;;
	--rest) tier=rest ;;
	--sanitize) mode=asan ;;
	--fuzz) mode=fuzz; fuzz_seconds=${2:?--fuzz needs SECONDS}; shift ;;
	--build-matrix) mode=matrix ;;
	*) usage ;;
	esac
	shift
done
# The corpus tests (label "corpus") are long where the corpus is given: then they belong to the
# full tier; without it they only say, in a second, that they were not run and why, which the
# default tier shows.
long='full'
[ -n "${RAMPLACE_CORPUS:-}" ] && long='full|corpus'
case $tier in
default) tier_args=(-LE "$long") ;;
full) tier_args=() ;;
rest) tier_args=(-L "$long") ;;
esac
# the matrices labelled plain_only repeat a default-tier test (which the sanitizers run) on many
# more inputs, where the time goes to compilers, linkers and QEMU: the ASan build leaves them out
if [ "$mode" = asan ]; then
	case $tier in
	default) tier_args=(-LE "$long|plain_only") ;;
	full) tier_args=(-LE plain_only) ;;
	rest) tier_args=(-L "$long" -LE plain_only) ;;
	esac
fi
started=$SECONDS

# CTest says "Skipped" without the reason; each test that was not run printed it in one line
skip_reasons() { # BUILD-DIR
	grep -h '^skipped: ' "$1"/Testing/Temporary/LastTest*.log 2>/dev/null | sort -u | sed 's/^/test.sh: not run: /' || true
}

"$root/scripts/install-deps.sh"

case $mode in
plain)
	cmake -S "$root" -B "$root/build" -DCMAKE_BUILD_TYPE=RelWithDebInfo -DRAMPLACE_WERROR=ON >/dev/null
	cmake --build "$root/build" -j2
	status=0
	ctest --test-dir "$root/build" --output-on-failure -j2 ${tier_args[@]+"${tier_args[@]}"} || status=$?
	skip_reasons "$root/build"
	echo "test.sh: $tier tier: $((SECONDS - started)) s"
	exit "$status"
	;;
asan)
	# -O1, as the sanitizers' own documentation advises: the same reports, and the layout
	# searches and replays of the long tests run in about half the time of -O0
	cmake -S "$root" -B "$root/build-asan" -DCMAKE_BUILD_TYPE=Debug "-DCMAKE_C_FLAGS_DEBUG=-g -O1" \
		-DRAMPLACE_SANITIZE=ON -DRAMPLACE_WERROR=ON >/dev/null
	cmake --build "$root/build-asan" -j2
	status=0
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
		ctest --test-dir "$root/build-asan" --output-on-failure -j2 ${tier_args[@]+"${tier_args[@]}"} || status=$?
	skip_reasons "$root/build-asan"
	echo "test.sh: sanitized $tier tier: $((SECONDS - started)) s"
	exit "$status"
	;;
fuzz)
	# -fno-sanitize-recover=all: a UBSan report aborts the run, or a fuzzer that hit undefined
	# behaviour would print it and "pass"
	CC=clang cmake -S "$root" -B "$root/build-fuzz" -DCMAKE_BUILD_TYPE=Debug -DRAMPLACE_FUZZ=ON \
		-DRAMPLACE_WERROR=ON -DRAMPLACE_INTEGRATION=OFF -DCMAKE_C_FLAGS="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all" >/dev/null
	cmake --build "$root/build-fuzz" -j2
	# two targets at a time, one a core; each result in its own file, printed in order
	results=$(mktemp -d)
	fuzz_one() { # TARGET: RESULTS/NAME.ok or .fail holds what to print
		local target=$1 name corpus work
		name=$(basename "$target")
		corpus="$root/tests/fuzz/corpus/${name#fuzz_}"
		work=$(mktemp -d)
		[ -d "$corpus" ] && cp -r "$corpus"/. "$work"/
		if "$target" -max_total_time="$fuzz_seconds" -max_len=65536 -timeout=10 \
			-artifact_prefix="$root/build-fuzz/$name-" "$work" >"$work.log" 2>&1; then
			echo "fuzz: $name: $(grep -Eo 'Done [0-9]+ runs' "$work.log" | tail -1) without a crash" >"$results/$name.ok"
		else
			{ echo "fuzz: $name FAILED:"; tail -40 "$work.log"; } >"$results/$name.fail"
		fi
		rm -rf "$work" "$work.log"
	}
	for target in "$root"/build-fuzz/tests/fuzz_*; do
		while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n || true; done
		fuzz_one "$target" &
	done
	wait
	cat "$results"/* 2>/dev/null || true
	passed=$(find "$results" -name '*.ok' | wc -l)
	failed=$(find "$results" -name '*.fail' | wc -l)
	rm -rf "$results"
	echo "$passed passed, $failed failed"
	echo "test.sh: fuzz: $((SECONDS - started)) s"
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
