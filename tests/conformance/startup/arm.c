/* arm.c: Cortex-M startup written in C, the ways users write it (tests/conformance). Macros:
 *   COPY_VOLATILE  the copy/clear loops store through volatile pointers (README, step 3), and
 *                  the file is compiled with -fno-tree-loop-distribute-patterns as well;
 *   COPY_PLAIN     plain loops, as many vendors' start files have them: GCC's loop distribution
 *                  turns them into memcpy/memset calls (run-cell.sh checks that it did);
 *   ENTRY_VECTOR   the vector table's reset entry is the C function itself;
 *   ENTRY_CALL     it is a naked Reset_Handler (also the ELF entry) that calls the C function;
 *   ENTRY_TAIL     likewise, with a tail jump (Thumb-2 only: b.w).
 *   FW_NEWLIB / FW_PICOLIBC  the C library (picolibc: _set_tls; the console is set up in main).
 * Everything is in ordinary .text sections, as in vendor code. */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t _estack[];
int main(void);
void __libc_init_array(void);
void Reset_Handler(void);
void _cstart(void);
#if defined(FW_PICOLIBC)
extern uint8_t __tls_base[];
void _set_tls(void *tls);
#endif

#include "copy_words.h"

#if defined(ENTRY_VECTOR)
#define CSTART Reset_Handler
#else
#define CSTART _cstart
#endif

void CSTART(void)
{
#if defined(__ARM_FP)
	/* Cortex-M4F: CP10 and CP11 full access before any floating-point instruction */
	*(volatile uint32_t *)0xE000ED88u |= 0xFu << 20;
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#endif
	copy_words(__data_start, __data_load, __data_end);
	copy_words(__ramtext_start, __ramtext_load, __ramtext_end);
	zero_words(__bss_start__, __bss_end__);
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#if defined(FW_PICOLIBC)
	_set_tls(__tls_base);
#endif
	__libc_init_array();
	exit(main());
}

#if defined(ENTRY_CALL)
__attribute__((naked, noreturn)) void Reset_Handler(void)
{
	__asm__ volatile("bl _cstart\n\tb .");
}
#elif defined(ENTRY_TAIL)
__attribute__((naked, noreturn)) void Reset_Handler(void)
{
	__asm__ volatile("b.w _cstart");
}
#endif

/* Every other exception is unexpected (a jump into RAM that was not copied yet ends here): say
 * so and stop QEMU through semihosting with a failure status (SYS_WRITE0, then SYS_EXIT with
 * ADP_Stopped_RunTimeError) instead of hanging until the timeout. */
static void semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void Default_Handler(void)
{
	semihost(0x04u, "fw: unexpected exception (fault?), stopping\n");
	semihost(0x18u, (const void *)0x20023u);
	for (;;)
		;
}

typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) static const vector vector_table[16] = {
	(vector)(uintptr_t)_estack,
	Reset_Handler,
	Default_Handler, Default_Handler, Default_Handler, Default_Handler, Default_Handler,
	0, 0, 0, 0,
	Default_Handler, Default_Handler, 0, Default_Handler, Default_Handler,
};
