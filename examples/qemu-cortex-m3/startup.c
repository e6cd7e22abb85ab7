/* startup.c: vector table, reset handler and fault handler for the mps2-an385 (Cortex-M3)
 * demo firmware, linked with -nostartfiles.
 *
 * The reset handler copies .data, .ramtext and .ramdata (hot const objects) from their load
 * addresses in flash to RAM, clears
 * .bss and only then calls main. Everything it runs must stay in flash, so:
 *  - the reset path lives in .boot.text (see mps2-an385.ld), which no ramtext.ld pattern on
 *    .text sections can match;
 *  - the copy/clear loops must not become memcpy/memset calls (GCC's loop distribution does
 *    exactly that at -O2): if a placement moved memcpy into .ramtext, the reset handler would
 *    call into RAM that is not yet copied. The loops store through volatile pointers, which the
 *    compiler cannot turn into library calls, and the build also passes
 *    -fno-tree-loop-distribute-patterns for this file; `make check-startup` verifies it. */
#include <stdint.h>
#include <stdlib.h>

#define BOOT_TEXT __attribute__((section(".boot.text")))

/* Defined by mps2-an385.ld. */
extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __ramdata_load[], __ramdata_start[], __ramdata_end[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t _estack[];

int main(void);
void __libc_init_array(void);	/* newlib: runs _init and the .init_array constructors */

typedef void (*vector)(void);

#ifdef PROFILE_RUNTIME
void ramplace_profile_systick_handler(void);
#endif

/* Word copy; the linker script keeps every region 4-byte aligned. */
BOOT_TEXT static void copy_words(volatile uint32_t *dst, const uint32_t *src, const uint32_t *dst_end)
{
	while (dst < dst_end)
		*dst++ = *src++;
}

BOOT_TEXT static void zero_words(volatile uint32_t *dst, const uint32_t *dst_end)
{
	while (dst < dst_end)
		*dst++ = 0;
}

/* ARM semihosting from Thumb on M-profile: BKPT 0xAB, operation in r0, argument in r1. */
BOOT_TEXT static void semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;

	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

#define SYS_WRITE0 0x04u
#define SYS_EXIT 0x18u
#define ADP_STOPPED_RUNTIME_ERROR 0x20023u

/* Every exception but reset: nothing here expects one (no interrupts are enabled), so report it
 * and stop QEMU with a failure status instead of hanging or running on with a broken state. */
BOOT_TEXT void Default_Handler(void)
{
	semihost(SYS_WRITE0, "fw: unexpected exception (fault?), stopping\n");
	semihost(SYS_EXIT, (const void *)ADP_STOPPED_RUNTIME_ERROR);
	for (;;)
		;
}

BOOT_TEXT void Reset_Handler(void)
{
	copy_words(__data_start, __data_load, __data_end);
	copy_words(__ramtext_start, __ramtext_load, __ramtext_end);
	copy_words(__ramdata_start, __ramdata_load, __ramdata_end);	/* hot const data */
	zero_words(__bss_start__, __bss_end__);
	/* Make the copied code visible to instruction fetch before anything branches into it. */
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	/* From here on RAM is set up, so library code may run wherever a placement put it. */
	__libc_init_array();
	exit(main());
}

/* Cortex-M3 vector table: initial SP, reset, then the 14 system exceptions (0 = reserved). */
__attribute__((section(".vectors"), used)) static const vector vector_table[16] = {
	(vector)(uintptr_t)_estack,
	Reset_Handler,
	Default_Handler,	/* NMI */
	Default_Handler,	/* HardFault */
	Default_Handler,	/* MemManage */
	Default_Handler,	/* BusFault */
	Default_Handler,	/* UsageFault */
	0, 0, 0, 0,
	Default_Handler,	/* SVCall */
	Default_Handler,	/* DebugMonitor */
	0,
	Default_Handler,	/* PendSV */
#ifdef PROFILE_RUNTIME
	ramplace_profile_systick_handler,	/* ramplace's sampling runtime */
#else
	Default_Handler,	/* SysTick */
#endif
};

/* __libc_init_array and __libc_fini_array call these; crti.o/crtn.o are not linked
 * (-nostartfiles), and nothing here needs them. */
void _init(void)
{
}

void _fini(void)
{
}
