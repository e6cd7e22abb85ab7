/* main.c: the workload around push.S (tests/integration/t_riscv_jal_bind.sh): main calls push()
 * many times and prints a checksum over semihosting; reset_c copies .ramtext first (started by
 * tests/data/bootpath-cfg/start-rv32.S, linked with its rv32.ld). */
#include <stdint.h>

extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
volatile uint32_t acc;
void push(uint32_t v);
int main(void);

static void semihost(uintptr_t op, uintptr_t arg)
{
	register uintptr_t a0 __asm__("a0") = op;
	register uintptr_t a1 __asm__("a1") = arg;
	__asm__ volatile(".option push\n\t.option norvc\n\tslli zero, zero, 0x1f\n\tebreak\n\t"
			 "srai zero, zero, 7\n\t.option pop" : "+r"(a0) : "r"(a1) : "memory");
}

int main(void)
{
	for (uint32_t i = 0; i < 100000; i++)
		push(i);
	for (int k = 28; k >= 0; k -= 4) {
		char c = "0123456789abcdef"[(acc >> k) & 15];
		semihost(0x03, (uintptr_t)&c);
	}
	char nl = '\n';
	semihost(0x03, (uintptr_t)&nl);
	semihost(0x18, 0x20026);
	for (;;)
		;
}

void reset_c(void)
{
	for (volatile uint32_t *d = __ramtext_start, *s = __ramtext_load; d < __ramtext_end;)
		*d++ = *s++;
	__asm__ volatile("fence.i" ::: "memory");
	main();
	for (;;)
		;
}
