/* riscv.c: RISC-V startup with the copy loops in C (tests/conformance). _start, the ELF entry
 * at the start of the XIP flash, is a few instructions of assembly (gp, sp, tp, mtvec cannot be
 * set from C) that reach the C part _cstart:
 *   ENTRY_CALL  by a call;  ENTRY_TAIL  by a tail jump.
 *   COPY_VOLATILE / COPY_PLAIN  as in arm.c (plain loops become memcpy/memset calls). */
#include <stdint.h>
#include <stdlib.h>

extern uint32_t __data_load[], __data_start[], __data_end[];
extern uint32_t __ramtext_load[], __ramtext_start[], __ramtext_end[];
extern uint32_t __bss_start[], __bss_end[];
int main(void);
void __libc_init_array(void);
void _cstart(void);

#include "copy_words.h"

#if defined(ENTRY_CALL)
#define REACH_CSTART "call _cstart\n\tj .\n\t"
#elif defined(ENTRY_TAIL)
#define REACH_CSTART "tail _cstart\n\t"
#else
#error "define ENTRY_CALL or ENTRY_TAIL"
#endif

__asm__(".pushsection .text.init, \"ax\", %progbits\n\t"
	".globl _start\n\t.type _start, %function\n"
	"_start:\n\t"
	".option push\n\t.option norelax\n\t"
	"la gp, __global_pointer$\n\t"
	".option pop\n\t"
	"la sp, _estack\n\t"
	"la tp, __tls_base\n\t"
	"la t0, trap_entry\n\t"
	".option push\n\t.option arch, +zicsr\n\t"
	"csrw mtvec, t0\n\t"
	".option pop\n\t"
	REACH_CSTART
	".size _start, . - _start\n\t"
	/* every trap is unexpected (a jump into RAM not copied yet ends here): say so, then
	 * exit(1) by semihosting (SYS_WRITE0; SYS_EXIT, ADP_Stopped_RunTimeError) */
	".balign 4\n"
	"trap_entry:\n\t"
	"la sp, _estack\n\t"
	"li a0, 0x04\n\t"
	"la a1, fault_msg\n\t"
	"call semihost_trap\n\t"
	"li a0, 0x18\n\t"
	"li a1, 0x20023\n\t"
	"call semihost_trap\n"
	"7:\tj 7b\n\t"
	/* the semihosting sequence: uncompressed, within one page */
	".balign 16\n"
	"semihost_trap:\n\t"
	".option push\n\t.option norvc\n\t"
	"slli zero, zero, 0x1f\n\t"
	"ebreak\n\t"
	"srai zero, zero, 7\n\t"
	".option pop\n\t"
	"ret\n\t"
	".pushsection .rodata.fault_msg, \"a\", %progbits\n"
	"fault_msg:\n\t"
	".asciz \"fw: unexpected exception (fault?), stopping\\n\"\n\t"
	".popsection\n\t"
	".popsection");

void _cstart(void)
{
	copy_words(__data_start, __data_load, __data_end);
	copy_words(__ramtext_start, __ramtext_load, __ramtext_end);
	zero_words(__bss_start, __bss_end);
	__asm__ volatile(".option push\n\t.option arch, +zifencei\n\tfence.i\n\t.option pop" ::: "memory");
	__libc_init_array();
	exit(main());
}
