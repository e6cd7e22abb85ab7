/* startup-cm.c: a Cortex-M boot (M3, M0+) in the shape of many vendors' and picolibc's crt0: the
 * vector table's Reset_Handler (assembly, naked) calls SystemInit and tail-jumps (`b`) to
 * _cstart, plain C whose copy and clear loops (crt.h) GCC at -O2 turns into memcpy and memset
 * calls. So .ramtext is copied BY memcpy, two levels below the reset handler (with -DCOPY_TABLE,
 * through a table of sections to copy, as CMSIS startups do). Output ("sink:"
 * and main's result) and exit status over semihosting. Linked with
 * examples/qemu-cortex-m3/mps2-an385.ld (its memory cut for the microbit in veneers-m0). */
#include <string.h>

#include "crt.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t _estack[];

int main(void);
void Default_Handler(void);

/* BKPT 0xAB: operation in r0, argument in r1 */
static void semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

static void fw_exit(int status)
{
	semihost(0x18u, (const void *)(uintptr_t)(status == 0 ? 0x20026u : 0x20023u));
	for (;;)
		;
}

static void put_hex(char *at, uint32_t v)
{
	for (int i = 0; i < 8; i++)
		at[i] = "0123456789abcdef"[(v >> (28 - 4 * i)) & 15];
}

/* CMSIS-style: runs before the copy, so it (and what it calls) must stay in flash too */
void SystemInit(void)
{
	*(volatile uint32_t *)0xe000ed08u = 0;   /* VTOR: the vector table at 0 */
}

#ifdef COPY_TABLE
/* -DCOPY_TABLE: CMSIS-style, the sections to copy are a table of data (copied by memcpy, as
 * GCC would make of the loop anyway), so no instruction of _cstart names .ramtext's bounds: only
 * the table's words do, which the reset-path analysis reads where _cstart loads the table */
static const struct copy_entry {
	const uint32_t *src;
	uint32_t *dst, *end;
} copy_table[] = { { __data_load, __data_start, __data_end }, { __ramtext_load, __ramtext_start, __ramtext_end }, { 0, 0, 0 } };
#endif

void _cstart(void)
{
#ifdef COPY_TABLE
	const struct copy_entry *t = copy_table;
	__asm__("" : "+r"(t));   /* opaque: GCC must not fold the table back into constants */
	for (; t->src; t++)
		memcpy(t->dst, t->src, (size_t)((char *)t->end - (char *)t->dst));
#else
	crt_copy(__data_start, __data_load, __data_end);
	crt_copy(__ramtext_start, __ramtext_load, __ramtext_end);
#endif
	crt_zero(__bss_start__, __bss_end__);
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	int status = main();
	char line[] = "sink: 00000000 seed 00000000\n";
	put_hex(line + 6, sink);
	put_hex(line + 20, boot_seed);
	semihost(0x04u, line);   /* SYS_WRITE0 */
	fw_exit(status);
}

__attribute__((naked, noreturn)) void Reset_Handler(void)
{
	__asm__ volatile("bl SystemInit\n\tb _cstart\n");
}

void Default_Handler(void)
{
	semihost(0x04u, "fw: unexpected exception\n");
	fw_exit(1);
}

typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) static const vector vector_table[16] = {
	(vector)(uintptr_t)_estack, Reset_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, 0, 0, 0, 0, Default_Handler, 0, 0, Default_Handler, Default_Handler,
};
