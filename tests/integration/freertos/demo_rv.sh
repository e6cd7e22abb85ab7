# demo_rv.sh: FreeRTOS's RV32 demo for QEMU virt as a user builds and runs it, for the tests that
# use it (t_freertos_riscv.sh, t_plan_property_corpus.sh). Sourced after lib.sh and need_corpus:
# sets up a user's copy under $work/user (tests/data/freertos-rv/setup.sh) and defines
#   demo_make OPT BUILD-DIR FRAGMENT-DIR   build (or relink BUILD-DIR's objects): BUILD-DIR/RTOSDemo.axf
#   run ELF OUT [COUNTS]                   run it in QEMU under -icount, the UART in OUT
#   flash_build OPT DIR                    the flash-only build, DIR/flash/RTOSDemo.axf
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
"$RAMPLACE_SRC/tests/data/freertos-rv/setup.sh" "$corpus/freertos" "$work/user"
demo=$work/user/RISC-V-Qemu-virt_GCC
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'

demo_make() { # OPT BUILD-DIR FRAGMENT-DIR
	make -s -j2 -C "$demo" PICOLIBC=1 FREERTOS_ROOT="$corpus/freertos/FreeRTOS" OPT="$1" BUILD_DIR="$2" \
		RAMPLACE_FRAGMENT_DIR="$3" >"$2.make.log" 2>&1 || { tail -20 "$2.make.log"; return 1; }
}

# run ELF OUT [COUNTS]: the UART in OUT; with COUNTS, under the plugin with the ws:5 model on the
# fake ROM. -icount shift=5, sleep=off: guest time follows instructions, the run is repeatable.
run() {
	local plug=()
	[ -n "${3:-}" ] && plug=(-plugin "$plugin,out=$3,mode=insn,model=ws:5,flash=80000000-80080000${4:-}")
	bounded_run 300 "$2" "$2.err" qemu-system-riscv32 -M virt -net none -bios none -nographic -monitor none -serial stdio \
		-icount shift=5,sleep=off -kernel "$1" "${plug[@]}"
}

# flash_build OPT DIR: the flash-only build (an empty fragment in DIR/frag) in DIR/flash
flash_build() {
	mkdir -p "$2/frag"
	echo '/* empty */' >"$2/frag/ramtext.ld"
	demo_make "$1" "$2/flash" "$2/frag"
}
