#!/usr/bin/env bash
# setup.sh: a user's copy of FreeRTOS's RV32 demo for QEMU's virt machine (the corpus's
# freertos/FreeRTOS/Demo/RISC-V-Qemu-virt_GCC, docs/corpus.md), with only what README's "Using
# it in your firmware" tells a user to add, for t_freertos_riscv.sh:
#   setup.sh CORPUS_FREERTOS DEST
# DEST/RISC-V-Qemu-virt_GCC is the demo's folder (the kernel and the common demo files stay in
# the corpus, read through FREERTOS_ROOT). Changes, each checked to have applied:
#  - fake_rom.lds: README's .ramtext output section before .text, in RAM, loaded from the
#    "ROM" (code runs from a fake ROM at 0x80000000, RAM is at 0x80080000);
#  - start.S: the copy of .ramtext (a word loop, then fence.i) after .data and .bss, before main;
#  - main.c: a deterministic end after a fixed number of ticks (the tick hook writes the virt
#    machine's test finisher, QEMU exits with status 0);
#  - the Makefile: FREERTOS_ROOT for the kernel and the common files, -L for the fragment,
#    BUILD_DIR and OPT (the demo's own level is -O2) from the command line, -fmacro-prefix-map
#    so that the checkout's path does not change the layout.
# Build: make -C DEST/RISC-V-Qemu-virt_GCC PICOLIBC=1 FREERTOS_ROOT=CORPUS_FREERTOS/FreeRTOS
#        BUILD_DIR=DIR OPT=-O2 RAMPLACE_FRAGMENT_DIR=DIR-WITH-ramtext.ld
set -euo pipefail
corpus=$1 dest=$2
demo=$dest/RISC-V-Qemu-virt_GCC
mkdir -p "$dest"
cp -r "$corpus/FreeRTOS/Demo/RISC-V-Qemu-virt_GCC" "$dest/"
chmod -R u+w "$demo"

. "$(dirname "$0")/../edit.sh"

edit "$demo/fake_rom.lds" "	.text :
	{" "	.ramtext : ALIGN(4)
	{
		__ramtext_start = .;
		INCLUDE ramtext.ld
		. = ALIGN(4);
		__ramtext_end = .;
	} >ram AT>rom
	__ramtext_load = LOADADDR(.ramtext);

	.text :
	{"
edit "$demo/start.S" "	// argc, argv, envp is 0" "	// Copy .ramtext (ramplace) from ROM to RAM, then make it visible to instruction fetch
	la a0, __ramtext_load
	la a1, __ramtext_start
	la a2, __ramtext_end
	bgeu a1, a2, 2f
1:
	lw t0, (a0)
	sw t0, (a1)
	addi a0, a0, 4
	addi a1, a1, 4
	bltu a1, a2, 1b
2:
.option push
.option arch, +zifencei
	fence.i
.option pop

	// argc, argv, envp is 0"
edit "$demo/main.c" "void vApplicationTickHook( void )
{" "void vApplicationTickHook( void )
{
    static unsigned long ulRamplaceTicks;
    if( ++ulRamplaceTicks == RAMPLACE_STOP_TICK )
    {
        *( volatile unsigned long * ) 0x100000UL = 0x5555UL;   /* virt's test finisher: exit 0 */
    }"
edit "$demo/main.c" "int main( void )" "#ifndef RAMPLACE_STOP_TICK
#define RAMPLACE_STOP_TICK 2500UL
#endif

int main( void )"
edit "$demo/Makefile" "BUILD_DIR       = build" "BUILD_DIR       ?= build"
edit "$demo/Makefile" "RTOS_SOURCE_DIR = \$(abspath ../../Source)" "RTOS_SOURCE_DIR = \$(FREERTOS_ROOT)/Source"
edit "$demo/Makefile" "DEMO_SOURCE_DIR = \$(abspath ../Common/Minimal)" "DEMO_SOURCE_DIR = \$(FREERTOS_ROOT)/Demo/Common/Minimal"
edit "$demo/Makefile" "-I . -I ../Common/include" "-I . -I \$(FREERTOS_ROOT)/Demo/Common/include"
edit "$demo/Makefile" "LDFLAGS = -nostartfiles -Tfake_rom.lds" "LDFLAGS = -nostartfiles -L\$(RAMPLACE_FRAGMENT_DIR) -Tfake_rom.lds"
edit "$demo/Makefile" "    CFLAGS += -O2" "    CFLAGS += \$(or \$(OPT),-O2) -fmacro-prefix-map=\$(FREERTOS_ROOT)=FreeRTOS -fmacro-prefix-map=\$(CURDIR)=Demo"
# a relink when only the fragment changed
edit "$demo/Makefile" "\$(BUILD_DIR)/RTOSDemo.axf: \$(OBJS) fake_rom.lds Makefile" "\$(BUILD_DIR)/RTOSDemo.axf: \$(OBJS) fake_rom.lds Makefile \$(RAMPLACE_FRAGMENT_DIR)/ramtext.ld"
