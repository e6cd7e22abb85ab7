#!/usr/bin/env bash
# install-deps.sh: installs every Debian package that building ramplace, its tests, its fuzz
# targets and the example firmware need, when missing. Safe to run again; needs root (or sudo).
#   scripts/install-deps.sh          everything
#   scripts/install-deps.sh --check  list what is missing, install nothing (exit 1 if any)
set -euo pipefail

packages=(
	# build of the tool
	build-essential cmake pkg-config
	libelf-dev libdw-dev binutils-dev binutils-multiarch-dev libglpk-dev libyaml-dev libsqlite3-dev
	# tests, fuzzing, benchmarks
	libcmocka-dev clang libclang-rt-14-dev python3 glpk-utils bc
	# import tests: sqlite3 compares databases (gprof and gcc -pg come with build-essential)
	sqlite3
	# example firmware: cross toolchains, C libraries, emulators, debugger
	gcc-arm-none-eabi libnewlib-arm-none-eabi binutils-arm-none-eabi
	gcc-riscv64-unknown-elf picolibc-riscv64-unknown-elf
	# conformance matrix (tests/conformance): picolibc for ARM, C++ (libstdc++ on newlib)
	picolibc-arm-none-eabi libstdc++-arm-none-eabi-newlib
	qemu-system-arm qemu-system-misc gdb-multiarch
	# build integrations: Ninja generator, LLVM linker, patch tools
	ninja-build lld git patch
	# the HTML report's browser test (tests/integration/t_report_html.sh): headless Chromium
	chromium
	# Zephyr's gen_relocate_app.py (the corpus's zephyr, docs/corpus.md, t_zephyr_relocate.sh) reads objects
	# with pyelftools, ESP-IDF's kconfiglib (the corpus's esp-idf-kconfig, t_espidf_ldgen.sh)
	# needs rich, both under Debian's /usr/bin/python3
	python3-pyelftools python3-rich
	# an Xtensa ELF (ESP32's architecture, via the ESP8266's lx106 binutils) that place must
	# refuse plainly (t_espidf_ldgen.sh)
	binutils-xtensa-lx106
)

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
		missing+=("$p")
	fi
done

if [ "${1:-}" = "--check" ]; then
	if [ ${#missing[@]} -eq 0 ]; then
		echo "install-deps: everything is installed"
		exit 0
	fi
	echo "install-deps: missing: ${missing[*]}"
	exit 1
fi

if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: everything is installed"
	exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
	sudo="sudo"
fi
echo "install-deps: installing ${missing[*]}"
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
