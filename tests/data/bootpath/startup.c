/* startup.c: a reset handler written the way GCC users often write one, and the way that
 * bricks a firmware once memcpy is moved to RAM: the .data and .ramtext copies and the .bss
 * clear are memcpy/memset calls (here explicit; GCC's loop distribution makes the same calls
 * out of plain loops). Fixture for tests/integration/t_boot_path.sh; linked with the Cortex-M3
 * example's mps2-an385.ld. */
#include <stdint.h>
#include <string.h>

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __bss_start__[], __bss_end__[];
extern uint32_t _estack[];

int main(void);

static void semihost(uint32_t op, const void *arg)
{
	register uint32_t r0 __asm__("r0") = op;
	register const void *r1 __asm__("r1") = arg;
	__asm__ volatile("bkpt 0xab" : "+r"(r0) : "r"(r1) : "memory");
}

void Default_Handler(void)
{
	static const uint32_t fail[2] = { 0x20023u, 1 };
	semihost(0x18u, (const void *)(uintptr_t)fail[0]);
	for (;;)
		;
}

void Reset_Handler(void)
{
	memcpy(__data_start, __data_load, (size_t)((char *)__data_end - (char *)__data_start));
	memcpy(__ramtext_start, __ramtext_load, (size_t)((char *)__ramtext_end - (char *)__ramtext_start));
	memset(__bss_start__, 0, (size_t)((char *)__bss_end__ - (char *)__bss_start__));
	__asm__ volatile("dsb\n\tisb" ::: "memory");
	int status = main();
	semihost(0x18u, (const void *)(uintptr_t)(status == 0 ? 0x20026u : 0x20023u));
	for (;;)
		;
}

typedef void (*vector)(void);
__attribute__((section(".vectors"), used)) static const vector vector_table[16] = {
	(vector)(uintptr_t)_estack, Reset_Handler, Default_Handler, Default_Handler, Default_Handler,
	Default_Handler, Default_Handler, 0, 0, 0, 0, Default_Handler, Default_Handler, 0,
	Default_Handler, Default_Handler,
};

void _init(void) {}
void _fini(void) {}
