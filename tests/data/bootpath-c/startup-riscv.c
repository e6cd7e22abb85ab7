/* startup-riscv.c: a RISC-V boot written the way that bricked an interpreter firmware once
 * memcpy was moved to RAM. The naked _start (the ELF entry, in .boot.text) sets gp, sp and tp
 * and tail-jumps (`j`, no call) to start_c, plain C whose copy and clear loops (crt.h) GCC at
 * -O2 turns into memcpy and memset calls. So .ramtext is copied BY memcpy, two levels below the
 * reset entry. Linked with examples/sifive-e-riscv/sifive-e.ld; output ("sink:" and main's
 * result) and exit status over semihosting (picolibc). */
#include <stdio.h>
#include <stdlib.h>

#include "crt.h"

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __bss_start[], __bss_end[];

int main(void);
void start_c(void) __attribute__((noreturn));

__attribute__((naked, noreturn, section(".boot.text"))) void _start(void)
{
	__asm__ volatile(".option push\n\t.option norelax\n\t"
			 "la gp, __global_pointer$\n\t"
			 "la sp, _estack\n\t"
			 "la tp, __tls_base\n\t"
			 "j start_c\n\t"
			 ".option pop\n\t");
}

void start_c(void)
{
	crt_copy(__data_start, __data_load, __data_end);
	crt_copy(__ramtext_start, __ramtext_load, __ramtext_end);
	crt_zero(__bss_start, __bss_end);
	__asm__ volatile(".option push\n\t.option arch, +zifencei\n\tfence.i\n\t.option pop" ::: "memory");
	int status = main();
	printf("sink: %08lx seed %08lx\n", (unsigned long)sink, (unsigned long)boot_seed);
	exit(status);
}
