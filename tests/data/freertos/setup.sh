#!/usr/bin/env bash
# setup.sh: a user's copy of the FreeRTOS MPS2 AN385 demo (the corpus's freertos, docs/corpus.md), with
# only what README's "Using it in your firmware" tells a user to add, for t_freertos.sh:
#   setup.sh CORPUS_FREERTOS DEST
# DEST/CORTEX_MPS2_QEMU_IAR_GCC is the demo's folder (the kernel and the common demo files stay
# in the corpus, read through FREERTOS_ROOT). Changes, each checked to have applied:
#  - the full demo (mainCREATE_SIMPLE_BLINKY_DEMO_ONLY 0: the kernel's own test tasks);
#  - mps2_m3.ld: README's .ramtext output section before .text, in RAM, loaded from flash, and
#    the flash order (flashtext.ld, `place --trace`) at the start of .text;
#  - startup_gcc.c: README's copy loop before main in the (naked, as shipped) Reset_Handler,
#    compiled with -fno-tree-loop-distribute-patterns as README says;
#  - the Makefile: -L for the fragment, and tests/data/freertos/ramplace_stop.c (a deterministic
#    end after a fixed number of ticks) called from vApplicationTickHook; OPT=-O2 for another
#    level, IMAGE=... to relink elsewhere from the same objects (the map is written beside it);
#    -fmacro-prefix-map, so that the checkout's path does not change the layout.
# Build: make -C DEST/CORTEX_MPS2_QEMU_IAR_GCC/build/gcc FREERTOS_ROOT=CORPUS_FREERTOS/FreeRTOS
#        DEMO_PROJECT=DEST/CORTEX_MPS2_QEMU_IAR_GCC OUTPUT_DIR=OBJDIR IMAGE=ELF OPT=-Os
#        RAMPLACE_FRAGMENT_DIR=DIR-WITH-ramtext.ld-AND-flashtext.ld
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
corpus=$1 dest=$2
demo=$dest/CORTEX_MPS2_QEMU_IAR_GCC
mkdir -p "$dest"
cp -r "$corpus/FreeRTOS/Demo/CORTEX_MPS2_QEMU_IAR_GCC" "$dest/"
chmod -R u+w "$demo"
gcc_dir=$demo/build/gcc

. "$(dirname "$0")/../edit.sh"

edit "$demo/main.c" "#define mainCREATE_SIMPLE_BLINKY_DEMO_ONLY    1" "#define mainCREATE_SIMPLE_BLINKY_DEMO_ONLY    0"
edit "$demo/main.c" "void vApplicationTickHook( void )
{" "void vApplicationTickHook( void )
{
    extern void vRamplaceStopHook( void );
    vRamplaceStopHook();"

edit "$gcc_dir/mps2_m3.ld" "    .text :
    {" "    .ramtext : ALIGN(4)
    {
        __ramtext_start = .;
        INCLUDE ramtext.ld
        . = ALIGN(4);
        __ramtext_end = .;
    } > RAM AT> FLASH
    __ramtext_load = LOADADDR(.ramtext);

    .text :
    {
        INCLUDE flashtext.ld"
# .data starts at RAM's origin in the demo's script; .ramtext now does
edit "$gcc_dir/startup_gcc.c" "void Reset_Handler( void )
{
    (void) main();" "void Reset_Handler( void )
{
    extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
    for (volatile uint32_t *d = __ramtext_start, *s = __ramtext_load; d < __ramtext_end;)
        *d++ = *s++;
    __asm__ volatile(\"dsb\\n\\tisb\" ::: \"memory\");
    (void) main();"

edit "$gcc_dir/Makefile" "SOURCE_FILES += ./startup_gcc.c" "SOURCE_FILES += ./startup_gcc.c
SOURCE_FILES += ramplace_stop.c
VPATH += $here"
edit "$gcc_dir/Makefile" "LDFLAGS = -T ./mps2_m3.ld" "LDFLAGS = -L\$(RAMPLACE_FRAGMENT_DIR) -T ./mps2_m3.ld"
edit "$gcc_dir/Makefile" "\$(OUTPUT_DIR)/%.o : %.c \$(OUTPUT_DIR)/%.d Makefile
	\$(CC) \$(CFLAGS) -c \$< -o \$@" "\$(OUTPUT_DIR)/%.o : %.c \$(OUTPUT_DIR)/%.d Makefile
	\$(CC) \$(CFLAGS) \$(if \$(filter startup_gcc.c,\$(notdir \$<)),-fno-tree-loop-distribute-patterns) -c \$< -o \$@"
# OPT picks the optimisation level (the demo's own is -Os); each relink writes IMAGE and its map
# beside it from the same objects
# __FILE__ (configASSERT) names the corpus's path: mapped to a fixed one, the layout, the profile
# and every plan are the same on every checkout (a CI clone elsewhere linked a plan that passed here)
edit "$gcc_dir/Makefile" "CFLAGS += -g3 -Os" "CFLAGS += -g3 \$(or \$(OPT),-Os) -fmacro-prefix-map=\$(FREERTOS_ROOT)=FreeRTOS -fmacro-prefix-map=\$(DEMO_PROJECT)=Demo"
edit "$gcc_dir/Makefile" "LDFLAGS += -Xlinker -Map=\$(OUTPUT_DIR)/RTOSDemo.map" "LDFLAGS += -Xlinker -Map=\$(IMAGE:.out=.map)"
# a relink when only the fragment changed
edit "$gcc_dir/Makefile" "\$(IMAGE): ./mps2_m3.ld \$(OBJS_OUTPUT) Makefile" "\$(IMAGE): ./mps2_m3.ld \$(OBJS_OUTPUT) Makefile \$(RAMPLACE_FRAGMENT_DIR)/ramtext.ld"
