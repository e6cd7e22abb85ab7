/* startup.c: vector table and Reset_Handler for QEMU mps2-an385: copies .data and .ramtext
 * from flash, clears .bss, runs main and exits through semihosting. Compiled with
 * -fno-tree-loop-distribute-patterns so the copy loops do not become memcpy/memset calls
 * (which could themselves sit in .ramtext before it is copied). */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __bss_start[], __bss_end[];
extern uint32_t __stack_top[];
int main(void);
void initialise_monitor_handles(void); /* librdimon: semihosting file handles */
void Reset_Handler(void);

static void copy_words(uint32_t *dst, const uint32_t *src, const uint32_t *end)
{
	while (dst < end)
		*dst++ = *src++;
}

void Reset_Handler(void)
{
	copy_words(__data_start, __data_load, __data_end);
	copy_words(__ramtext_start, __ramtext_load, __ramtext_end);
	for (uint32_t *p = __bss_start; p < __bss_end; p++)
		*p = 0;
	/* rdimon's crt0 would do this; without it exit() cannot report the status */
	initialise_monitor_handles();
	exit(main());
}

static void hang(void)
{
	for (;;)
		;
}

/* newlib's exit path may reference these */
void _init(void) {}
void _fini(void) {}

__attribute__((section(".vectors"), used)) static void (*const vectors[16])(void) = {
	(void (*)(void))__stack_top, Reset_Handler, hang, hang, hang, hang, hang, 0,
	0, 0, 0, hang, hang, 0, hang, hang,
};
