/* fw.c: the reset path as users write it in C (issue 22's 30-line reproduction, grown into a
 * runnable fixture): the reset handler copies .ramtext from flash with a volatile loop, then
 * calls main, which calls a noinline hot() many times and reports a checksum over semihosting;
 * before the copy it calls early_init(), whose warm() must stay in flash.
 * At -Os GCC lays the loop's exit test and the call to main BEFORE the loop body in memory, so
 * "the first call after the copy's code" in address order is not "after the copy".
 * Variants (tests/integration/t_boot_path_cfg.sh, built by build.sh):
 *   -DCOPY_IN_CALLEE  the loop sits in a noinline copy_ramtext() that the reset handler calls
 *                     before main (the copy one call deep)
 *   -DASM_RESET       the reset handler is assembly with the -Os layout written out by hand
 *                     (test first, body after the call to main)
 * Cortex-M3 (mps2-an385) and RV32 (sifive_e), both with an ARM-style semihosting exit. */
#include <stdint.h>

extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
int main(void);

static void semihost(uint32_t op, uintptr_t arg)
{
#if defined(__arm__)
	register uint32_t r0 __asm__("r0") = op;
	register uintptr_t r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
#else
	register uintptr_t a0 __asm__("a0") = op;
	register uintptr_t a1 __asm__("a1") = arg;
	__asm__ volatile(".option push\n\t.option norvc\n\tslli zero, zero, 0x1f\n\tebreak\n\t"
			 "srai zero, zero, 7\n\t.option pop" : "+r"(a0) : "r"(a1) : "memory");
#endif
}

volatile uint32_t sink;

__attribute__((noinline)) void hot(uint32_t i)
{
	sink += i * 2654435761u ^ (sink >> 7);
}

/* Runs before the copy (the reset handler calls it first), so it and warm() must stay in
 * flash whatever the profile says. */
__attribute__((noinline)) void warm(uint32_t i)
{
	sink ^= i + 0x9e3779b9u;
}

__attribute__((noinline)) void early_init(void)
{
	for (uint32_t i = 0; i < 64; i++)
		warm(i);
}

__attribute__((noinline)) static void put_hex(uint32_t v)
{
	for (int k = 28; k >= 0; k -= 4) {
		char c = "0123456789abcdef"[(v >> k) & 15];
		semihost(0x03, (uintptr_t)&c);   /* SYS_WRITEC */
	}
	char nl = '\n';
	semihost(0x03, (uintptr_t)&nl);
}

int main(void)
{
	for (uint32_t i = 0; i < 200000; i++)
		hot(i);
	put_hex(sink);
	semihost(0x18, 0x20026);   /* SYS_EXIT, ADP_Stopped_ApplicationExit */
	for (;;)
		;
}

#if defined(COPY_IN_CALLEE)
__attribute__((noinline)) void copy_ramtext(void)
{
	for (volatile uint32_t *d = __ramtext_start, *s = __ramtext_load; d < __ramtext_end;)
		*d++ = *s++;
}
#endif

#if !defined(ASM_RESET)
void reset_c(void)
{
	early_init();
#if defined(COPY_IN_CALLEE)
	copy_ramtext();
#else
	for (volatile uint32_t *d = __ramtext_start, *s = __ramtext_load; d < __ramtext_end;)
		*d++ = *s++;
#endif
#if defined(__arm__)
	__asm__ volatile("dsb\n\tisb" ::: "memory");
#else
	__asm__ volatile("fence.i" ::: "memory");
#endif
	main();
	for (;;)
		;
}
#endif
