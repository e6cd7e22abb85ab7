#!/usr/bin/env bash
# run-cell.sh: one cell of the conformance matrix (tests/conformance/cells.txt): a firmware built
# the way users build it, taken through the whole loop:
#   build with an empty fragment (everything in flash) -> run it in QEMU under the project's TCG
#   plugin (exact counts; its output is the reference) -> ramplace import -> ramplace place at a
#   budget smaller than the hot set (with or without --map) -> [ramplace emit --format lld] ->
#   relink (GNU ld or ld.lld; a one-step build compiles everything again) -> ramplace check ->
#   run the relinked firmware (output byte-identical to the flash-only build) -> a planned
#   function really sits at a RAM address -> [one-step and LTO builds: rebuild once more, check
#   again].
#
#   run-cell.sh NAME                      the cell NAME of cells.txt
#   run-cell.sh NAME CORE LIBC LANG BUILD FLAGS STARTUP LINKER MAP EXPECT...   a cell given in full
#
# Columns (cells.txt explains each value): CORE m3 | m4f | m0plus | rv32imac | rv32im;
# LIBC newlib | nano | picolibc; LANG c | cxx; BUILD objs | onestep; FLAGS comma-separated
# compiler flags ("-" for none); STARTUP asm-vector | asm-entry | cvol-* | cmemcpy-*, the suffix
# being how the reset code is reached (vector | call | tail | entry); LINKER bfd | lld;
# MAP yes | no; EXPECT pass | fail:REASON.
#
# Prints every step and ends with "N passed, N failed". Exit status: for EXPECT=pass, 0 when
# every step passed. For EXPECT=fail:REASON (registered with CTest's WILL_FAIL) the exit status
# is 1 ("KNOWN FAILURE: REASON") when a step failed and REASON, a fixed string, appears in the
# cell's output; it is 0, so that CTest reports the cell, when the cell passes or fails for
# another reason: then cells.txt needs updating.
#
# Environment: RAMPLACE (the binary), RAMPLACE_SRC (repository root), RAMPLACE_BUILD (build
# directory holding libramplace-qemu.so); BUDGET (default 1K); CONFORMANCE_KEEP=DIR copies the
# cell's work directory to DIR/NAME at exit. Needs the cross toolchains, QEMU and lld of
# scripts/install-deps.sh.
# shellcheck disable=SC2054,SC2154  # -Wl,... array elements; $work comes from lib.sh
here=$(cd "$(dirname "$0")" && pwd)
usage() {
	awk 'NR > 1 && !/^#/ { exit } NR > 1 { sub(/^# ?/, ""); print }' "$0" >&2
	exit 2
}
[ $# -eq 1 ] || [ $# -ge 10 ] || usage
RAMPLACE_SRC=${RAMPLACE_SRC:-$(cd "$here/../.." && pwd)}
# shellcheck source=../integration/lib.sh
. "$RAMPLACE_SRC/tests/integration/lib.sh"
: "${RAMPLACE_BUILD:?set RAMPLACE_BUILD to the build directory (libramplace-qemu.so)}"
# every step's status is looked at here: a failed step is counted, not the end of the script
set +e

# ---- the cell --------------------------------------------------------------------------------
if [ $# -eq 1 ]; then
	line=$(awk -v n="$1" '$1 == n { print; exit }' "$here/cells.txt")
	[ -n "$line" ] || { echo "run-cell: no cell '$1' in $here/cells.txt" >&2; exit 2; }
	set -f # the reason may hold glob characters
	# shellcheck disable=SC2086
	set -- $line
	set +f
fi
[ $# -ge 10 ] || usage
name=$1 core=$2 libc=$3 lang=$4 build=$5 flags=$6 startup=$7 linker=$8 map=$9
shift 9
expect="$*"
budget=${BUDGET:-1K}
src=$here/src
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
log=$work/cell.log
if [ -n "${CONFORMANCE_KEEP:-}" ]; then
	# shellcheck disable=SC2016  # expanded at exit
	on_exit 'rm -rf "$CONFORMANCE_KEEP/$name"; mkdir -p "$CONFORMANCE_KEEP" && cp -a "$work" "$CONFORMANCE_KEEP/$name"'
fi

say() { printf '%s\n' "$*" | tee -a "$log"; }
pass() { passed=$((passed + 1)); say "ok: $1"; }
fail() { failed=$((failed + 1)); say "FAIL: $1"; }
show() { # FILE...: the output of a step, indented, into the log too
	local f
	for f in "$@"; do
		[ -s "$f" ] && sed 's/^/    /' "$f" | tee -a "$log"
	done
	return 0
}
bad_cell() { echo "run-cell: $name: $*" >&2; exit 2; }

cell_flags=()
[ "$flags" = "-" ] || IFS=, read -r -a cell_flags <<<"$flags"

case $core in
m3 | m4f | m0plus)
	cross=arm-none-eabi-
	ldscript=mps2.ld
	ram_lo=$((0x20000000)) ram_hi=$((0x20010000))
	# semihosting console output (picolibc writes characters) goes to stderr unless given a
	# chardev: stdio makes it stdout, where newlib's writes to ":tt" go too
	qemu=(qemu-system-arm -nographic -monitor none -serial none
		-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi)
	case $core in
	m3) arch=(-mcpu=cortex-m3 -mthumb) qemu+=(-M mps2-an385) ;;
	m4f) arch=(-mcpu=cortex-m4 -mthumb -mfloat-abi=hard -mfpu=fpv4-sp-d16) qemu+=(-M mps2-an386) ;;
	m0plus)
		# QEMU has no Cortex-M0+; the micro:bit's Cortex-M0 runs the same ARMv6-M code
		arch=(-mcpu=cortex-m0plus -mthumb) qemu+=(-M microbit) ldscript=microbit.ld
		ram_hi=$((0x20004000))
		;;
	esac
	;;
rv32imac | rv32im)
	cross=riscv64-unknown-elf-
	ldscript=sifive-e.ld
	ram_lo=$((0x80000000)) ram_hi=$((0x80004000))
	arch=(-march="$core" -mabi=ilp32 -mcmodel=medany)
	# semihosting is the only way out of sifive_e; its console goes to stdout through a chardev
	qemu=(qemu-system-riscv32 -M sifive_e -nographic -monitor none -serial none -bios none
		-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi)
	;;
*) bad_cell "unknown core '$core'" ;;
esac

link_extra=(-nostartfiles -Wl,--gc-sections -Wl,--build-id=sha1)
# RISC-V links with GNU ld's default, relaxation (calls shrink to jal/c.jal where they reach: a
# plan reserves for the worst, check accepts a link below it); bfd-norelax: -Wl,--no-relax
[ "$linker" = bfd-norelax ] && link_extra+=(-Wl,--no-relax)
case $libc in
newlib) libc_cflags=(-DFW_NEWLIB) libc_ldflags=(--specs=rdimon.specs) ;;
nano) libc_cflags=(--specs=nano.specs -DFW_NEWLIB) libc_ldflags=(--specs=nano.specs --specs=rdimon.specs) ;;
picolibc) libc_cflags=(--specs=picolibc.specs -DFW_PICOLIBC) libc_ldflags=(--specs=picolibc.specs --oslib=semihost) ;;
*) bad_cell "unknown libc '$libc'" ;;
esac
[ "$cross" = arm-none-eabi- ] || [ "$libc" = picolibc ] || bad_cell "RISC-V cells use picolibc"

common=(-g -std=gnu11 -Wall -Wextra -Werror -I"$src")
case $lang in
c)
	cc=${cross}gcc
	sources=(main.c crc.c filt_a.c filt_b.c sort.c vm.c mem.c math.c sys.c)
	;;
cxx)
	[ "$libc" != picolibc ] || bad_cell "the C++ firmware links libstdc++ for newlib"
	[ "$build" = objs ] || bad_cell "a one-step g++ build would compile the C sources as C++"
	cc=${cross}g++
	sources=(main.cpp pipeline.cpp crc.c filt_a.c filt_b.c mem.c sys.c)
	;;
*) bad_cell "unknown lang '$lang'" ;;
esac
cxxflags=(-std=gnu++17 -fno-exceptions -fno-rtti -fno-threadsafe-statics -fno-use-cxa-atexit)

# startup: KIND-ENTRY
kind=${startup%-*}
entry=${startup#*-}
case $cross$kind in
arm-none-eabi-asm) startup_src=$here/startup/arm.S startup_flags=() ;;
riscv64-unknown-elf-asm) startup_src=$here/startup/riscv.S startup_flags=() ;;
arm-none-eabi-cvol | arm-none-eabi-cmemcpy) startup_src=$here/startup/arm.c ;;
riscv64-unknown-elf-cvol | riscv64-unknown-elf-cmemcpy) startup_src=$here/startup/riscv.c ;;
*) bad_cell "unknown startup '$startup'" ;;
esac
case $kind in
cvol) startup_flags=(-DCOPY_VOLATILE -fno-tree-loop-distribute-patterns) ;;
cmemcpy) startup_flags=(-DCOPY_PLAIN -ftree-loop-distribute-patterns) ;;
esac
case $kind-$entry in
asm-vector | asm-entry) ;;
*-vector) [ "$cross" = arm-none-eabi- ] || bad_cell "RISC-V has no vector entry"; startup_flags+=(-DENTRY_VECTOR) ;;
*-call) startup_flags+=(-DENTRY_CALL) ;;
*-tail) startup_flags+=(-DENTRY_TAIL) ;;
*) bad_cell "unknown startup entry '$entry'" ;;
esac

case $linker in
bfd) ;;
bfd-norelax) [ "$cross" = riscv64-unknown-elf- ] || bad_cell "bfd-norelax is for RISC-V (ARM's GNU ld does not relax)" ;;
lld)
	[ "$cross" = arm-none-eabi- ] || bad_cell "ld.lld cells are ARM only (lld 14 cannot link GCC's relaxable RISC-V objects)"
	# the cross gcc finds a linker named ld.lld only among its own programs: a directory with a
	# link to it goes first with -B (docs/firmware.md)
	mkdir -p "$work/lldbin"
	ln -sf "$(command -v ld.lld)" "$work/lldbin/ld.lld"
	;;
*) bad_cell "unknown linker '$linker'" ;;
esac
case $map in yes | no) ;; *) bad_cell "map is yes or no, not '$map'" ;; esac
case $build in objs | onestep) ;; *) bad_cell "unknown build '$build'" ;; esac
case $expect in pass | fail:?*) ;; *) bad_cell "expect is pass or fail:REASON, not '$expect'" ;; esac

# not into the log: the expectation must not match itself
echo "cell $name: core $core, $libc, $lang, $build build, flags ${flags//,/ }, startup $startup, linker $linker, map $map, budget $budget; expect $expect"

# ---- the build, as a Makefile or a one-step command would do it --------------------------------
cd "$work" || exit 2
mkdir -p obj flash ram lld
echo '/* ramtext.ld: empty placement, every function stays in flash */' >flash/ramtext.ld

compile_objects() {
	local s o
	objs=()
	for s in "${sources[@]}"; do
		o=obj/${s%.*}.o
		case $s in
		*.cpp) "$cc" "${arch[@]}" "${cxxflags[@]}" -g -Wall -Wextra -Werror -I"$src" "${cell_flags[@]}" \
			"${libc_cflags[@]}" -c "$src/$s" -o "$o" || return 1 ;;
		*) "${cross}gcc" "${arch[@]}" "${common[@]}" "${cell_flags[@]}" "${libc_cflags[@]}" \
			-c "$src/$s" -o "$o" || return 1 ;;
		esac
		objs+=("$o")
	done
	"${cross}gcc" "${arch[@]}" "${common[@]}" "${cell_flags[@]}" "${libc_cflags[@]}" "${startup_flags[@]}" \
		-c "$startup_src" -o obj/startup.o || return 1
	objs+=(obj/startup.o)
}

# link DIR [lld]: DIR/fw.elf and DIR/fw.map from the objects, with DIR/ramtext.ld
link_fw() {
	local dir=$1 use=()
	[ "${2:-}" = lld ] && use=(-B"$work/lldbin/" -fuse-ld=lld)
	"$cc" "${arch[@]}" -g "${cell_flags[@]}" "${libc_ldflags[@]}" "${link_extra[@]}" "${use[@]}" \
		-T "$ldscript" -L"$here/ld" -L"$dir" -Wl,-Map="$dir/fw.map" "${objs[@]}" -o "$dir/fw.elf"
}

# onestep DIR [lld]: the whole firmware in one compiler command, which compiles to temporary
# objects (/tmp/ccXXXXXX.o, new names each time) and links them
onestep_fw() {
	local dir=$1 use=() s srcs=()
	[ "${2:-}" = lld ] && use=(-B"$work/lldbin/" -fuse-ld=lld)
	for s in "${sources[@]}"; do srcs+=("$src/$s"); done
	"$cc" "${arch[@]}" "${common[@]}" "${cell_flags[@]}" "${libc_cflags[@]}" "${startup_flags[@]}" \
		"${libc_ldflags[@]}" "${link_extra[@]}" "${use[@]}" -T "$ldscript" -L"$here/ld" -L"$dir" \
		"${srcs[@]}" "$startup_src" -o "$dir/fw.elf" -Wl,-Map="$dir/fw.map"
}

build_fw() { # DIR [lld]
	if [ "$build" = onestep ]; then onestep_fw "$@"; else link_fw "$@"; fi
}

run_fw() { # ELF OUT [QEMU ARGS...]: runs to the firmware's semihosting exit, at most 10 s (it needs < 1 s)
	local elf=$1 out=$2
	shift 2
	timeout 10 "${qemu[@]}" "$@" -kernel "$elf" </dev/null >"$out" 2>"$out.stderr"
}

fatal_step() { # WHAT: a step everything after depends on failed
	fail "$1"
	say "the cell stops here"
	finish_cell
}

finish_cell() {
	local status
	say "--- $name: $passed passed, $failed failed"
	case $expect in
	pass) [ "$failed" -eq 0 ] && status=0 || status=1 ;;
	fail:*)
		local reason=${expect#fail:}
		if [ "$failed" -eq 0 ]; then
			say "UNEXPECTED PASS: the known failure '$reason' is gone: mark $name 'pass' in tests/conformance/cells.txt"
			status=0
		elif grep -qF -- "$reason" "$log"; then
			say "KNOWN FAILURE: $reason"
			status=1
		else
			say "FAILED FOR ANOTHER REASON than the recorded '$reason': update tests/conformance/cells.txt"
			status=0
		fi
		;;
	esac
	echo "$passed passed, $failed failed"
	exit "$status"
}

say "== build the firmware with an empty fragment (everything in flash)"
if [ "$build" = onestep ]; then
	onestep_fw flash >build.out 2>&1 || { show build.out; fatal_step "flash-only build"; }
else
	{ compile_objects && link_fw flash; } >build.out 2>&1 || { show build.out; fatal_step "flash-only build"; }
fi
pass "flash-only build: $(${cross}size -A flash/fw.elf | awk '$1 == ".text" { print $2 }') bytes of .text"

# the startup variant is what it claims: plain C loops became memcpy/memset calls, the others not
${cross}objdump -d flash/fw.elf >flash.dis
boot_calls=$(awk '/^[0-9a-f]+ <(Reset_Handler|_cstart|copy_words|zero_words)[^>]*>:$/ { on = 1; next }
	/^[0-9a-f]+ <.*>:$/ { on = 0 } on' flash.dis |
	grep -Eo '<(memcpy|memset|__aeabi_mem[a-z0-9]*)[^>]*>' | sort -u | tr '\n' ' ' || true)
if [ "$kind" = cmemcpy ]; then
	if [ -n "$boot_calls" ]; then pass "the startup's copy loops became library calls: $boot_calls"
	else fail "the startup's copy loops did not become memcpy/memset calls"; fi
else
	if [ -z "$boot_calls" ]; then pass "the startup copies without library calls"
	else fail "the startup calls $boot_calls"; fi
fi

say "== run it under the exact-count plugin: the reference output"
run_fw flash/fw.elf flash.out -plugin "$plugin,out=$work/counts.txt"
status=$?
show flash.out flash.out.stderr
if [ "$status" -ne 0 ] || ! tail -1 flash.out | grep -qx "done"; then
	fatal_step "the flash-only firmware runs to 'done' and exits 0 (status $status)"
fi
pass "the flash-only firmware runs ($(wc -c <flash.out) bytes of output)"

say "== import the counts"
"$RAMPLACE" import --quiet profile.db flash/fw.elf counts.txt >import.out 2>&1 || { show import.out; fatal_step "ramplace import"; }
show import.out
"$RAMPLACE" report --json report.json profile.db >/dev/null 2>&1 || fatal_step "ramplace report --json"
${cross}nm -S --defined-only flash/fw.elf >flash.nm
hot=$(python3 - "$budget" report.json flash.nm <<'EOF'
import json, sys
budget, rep, nm = sys.argv[1:4]
mult = {"K": 1024, "M": 1 << 20}
b = int(budget[:-1]) * mult[budget[-1]] if budget[-1] in mult else int(budget)
size = {}
for line in open(nm):
    f = line.split()
    if len(f) == 4 and f[2].lower() in "tw":
        size.setdefault(f[3], int(f[1], 16))
prof = json.load(open(rep))
total = prof["total"] or 1
hot = [f for f in prof["functions"] if f["self"] >= 0.005 * total]
nbytes = sum(size.get(f["name"], 0) for f in hot)
print(f"{len(hot)} {nbytes} {b}")
EOF
)
read -r hot_n hot_bytes budget_bytes <<<"$hot"
if [ "${hot_bytes:-0}" -gt "${budget_bytes:-0}" ]; then
	pass "budget $budget ($budget_bytes bytes) is below the hot set: $hot_n functions with >= 0.5% of the instructions, $hot_bytes bytes"
else
	fail "budget $budget ($budget_bytes bytes) is not below the hot set ($hot_n functions, ${hot_bytes:-?} bytes)"
fi

say "== place into $budget ($([ "$map" = yes ] && echo "with --map" || echo "without --map"))"
map_arg=()
[ "$map" = yes ] && map_arg=(--map flash/fw.map)
# the plan comes from the GNU ld build; the fragment is linked by ld.lld, whose thunks it reserves
[ "$linker" = lld ] && map_arg+=(--linker lld)
"$RAMPLACE" place --budget "$budget" "${map_arg[@]}" -o ram/ramtext.ld profile.db flash/fw.elf >place.out 2>&1
status=$?
show place.out
[ "$status" -eq 0 ] || fatal_step "ramplace place (exit $status)"
units=$(awk '/^unit / { printf "%s%s", sep, $2; sep = " " }' ram/ramtext.ld.plan)
pass "ramplace place: $(grep -c '^unit ' ram/ramtext.ld.plan) unit(s): $units"
show ram/ramtext.ld

relink=ram
if [ "$linker" = lld ]; then
	say "== the same plan for ld.lld"
	"$RAMPLACE" emit --format lld --plan ram/ramtext.ld.plan -o lld/ramtext.ld >emit.out 2>&1
	status=$?
	show emit.out
	[ "$status" -eq 0 ] || fatal_step "ramplace emit --format lld (exit $status)"
	pass "ramplace emit --format lld"
	show lld/ramtext.ld
	relink=lld
fi

say "== relink with the fragment ($linker$([ "$build" = onestep ] && echo ", one-step: everything compiled again"))"
build_fw "$relink" "$linker" >relink.out 2>&1 || { show relink.out; fatal_step "relink with the fragment"; }
pass "relinked: .ramtext is $(${cross}size -A "$relink/fw.elf" | awk '$1 == ".ramtext" { print $2 }') bytes"

say "== ramplace check"
"$RAMPLACE" check --plan ram/ramtext.ld.plan "$relink/fw.elf" >check.out 2>&1
status=$?
show check.out
if [ "$status" -eq 0 ]; then pass "ramplace check"; else fail "ramplace check (exit $status)"; fi

say "== run the relinked firmware"
run_fw "$relink/fw.elf" ram.out
status=$?
if [ "$status" -eq 0 ]; then pass "the relinked firmware exits 0"
else
	show ram.out ram.out.stderr
	fail "the relinked firmware exits 0 (status $status$([ "$status" -eq 124 ] && echo ": timed out, never started?"))"
fi
if cmp -s flash.out ram.out; then
	pass "output byte-identical to the flash-only build"
else
	diff flash.out ram.out | head -10 | sed 's/^/    /' | tee -a "$log"
	fail "output byte-identical to the flash-only build"
fi

# at least one planned function sits at a RAM address
${cross}nm --defined-only "$relink/fw.elf" >relinked.nm
in_ram=""
while read -r addr type sym; do
	case $type in [tTwW]) ;; *) continue ;; esac
	case " $units " in *" $sym "*) ;; *) continue ;; esac
	if [ $((0x$addr)) -ge "$ram_lo" ] && [ $((0x$addr)) -lt "$ram_hi" ]; then
		case " $in_ram " in *" $sym@"*) ;; *) in_ram="${in_ram:+$in_ram }$sym@0x$addr" ;; esac
	fi
done <relinked.nm
if [ -n "$in_ram" ]; then pass "planned functions at RAM addresses: $in_ram"
else fail "no planned function sits at a RAM address"; fi

if [ "$build" = onestep ] || [[ " ${cell_flags[*]} " == *" -flto "* ]]; then
	say "== build again (new temporary object names): the patterns must still match"
	mkdir -p again
	cp "$relink/ramtext.ld" again/
	if build_fw again "$linker" >again.out 2>&1; then
		"$RAMPLACE" check --plan ram/ramtext.ld.plan again/fw.elf >again-check.out 2>&1
		status=$?
		show again-check.out
		if [ "$status" -eq 0 ]; then pass "ramplace check on the rebuild"; else fail "ramplace check on the rebuild (exit $status)"; fi
	else
		show again.out
		fail "build again"
	fi
fi

finish_cell
