# demo_mps2.sh: the FreeRTOS MPS2 AN385 demo as a user builds and runs it, for the tests that
# use it (t_freertos.sh, t_plan_property_corpus.sh). Sourced after lib.sh and need_corpus: sets
# up a user's copy under $work/user (tests/data/freertos/setup.sh) and defines
#   demo_make OPT OBJDIR IMAGE FRAGMENT-DIR   build (or relink from OBJDIR's objects) IMAGE
#   run ELF [COUNTS [PLUGIN-OPTIONS]]         run it in QEMU under -icount
#   verdict ELF                               the check task's message on the UART
plugin=$RAMPLACE_BUILD/libramplace-qemu.so
"$RAMPLACE_SRC/tests/data/freertos/setup.sh" "$corpus/freertos" "$work/user"
gcc_dir=$work/user/CORTEX_MPS2_QEMU_IAR_GCC/build/gcc
qemu_pid=""
on_exit 'stop_pid "$qemu_pid"'

demo_make() { # OPT OBJDIR IMAGE FRAGMENT-DIR
	[ -f "$4/flashtext.ld" ] || echo '/* empty: no flash order */' >"$4/flashtext.ld"   # the script INCLUDEs it
	make -s -j2 -C "$gcc_dir" FREERTOS_ROOT="$corpus/freertos/FreeRTOS" DEMO_PROJECT="$work/user/CORTEX_MPS2_QEMU_IAR_GCC" \
		OPT="$1" OUTPUT_DIR="$2" IMAGE="$3" RAMPLACE_FRAGMENT_DIR="$4" >"$3.make.log" 2>&1 ||
		{ tail -20 "$3.make.log"; return 1; }
}

# run ELF [COUNTS [PLUGIN-OPTIONS]]: semihosting output in ELF.out, the UART in ELF.uart; with
# COUNTS, under the plugin with the ws:5 model (and ",entry=..." options: ELF.err says the
# handlers' worst entry stalls). -icount shift=5 (32 ns an instruction, about the speed of a
# 25 MHz part), sleep=off: guest time follows instructions, the run is deterministic.
run() {
	local elf=$1 plug=()
	[ -n "${2:-}" ] && plug=(-plugin "$plugin,out=$2,mode=insn,model=ws:5,flash=0-400000${3:-}")
	bounded_run 300 "$elf.out" "$elf.err" qemu-system-arm -M mps2-an385 -nographic -monitor none -serial "file:$elf.uart" \
		-chardev stdio,id=semi -semihosting-config enable=on,target=native,chardev=semi \
		-icount shift=5,sleep=off -kernel "$elf" "${plug[@]}"
}
verdict() { sed -E 's/ : [0-9]+ \([0-9]+\)//' "$1.uart" | tr -d '\r'; }   # the check task's message, no timing
