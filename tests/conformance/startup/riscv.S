/* riscv.S: RISC-V startup in assembly (tests/conformance): _start, the ELF entry at the start
 * of the XIP flash, sets gp, sp, tp and mtvec, copies .data/.tdata and .ramtext into the DTIM,
 * clears .tbss/.bss, makes the copied code visible to instruction fetch, then runs the C
 * library's init, main and exit. */
	.option arch, +zicsr, +zifencei
	.section .text.init, "ax", %progbits
	.globl _start
	.type _start, %function
_start:
	.option push
	.option norelax
	la gp, __global_pointer$
	.option pop
	la sp, _estack
	la tp, __tls_base
	la t0, trap_entry
	csrw mtvec, t0
	la a0, __data_start
	la a1, __data_load
	la a2, __data_end
1:	bgeu a0, a2, 2f
	lw t0, 0(a1)
	sw t0, 0(a0)
	addi a0, a0, 4
	addi a1, a1, 4
	j 1b
2:	la a0, __ramtext_start
	la a1, __ramtext_load
	la a2, __ramtext_end
3:	bgeu a0, a2, 4f
	lw t0, 0(a1)
	sw t0, 0(a0)
	addi a0, a0, 4
	addi a1, a1, 4
	j 3b
4:	la a0, __bss_start
	la a2, __bss_end
5:	bgeu a0, a2, 6f
	sw zero, 0(a0)
	addi a0, a0, 4
	j 5b
6:	fence.i
	call __libc_init_array
	call main
	tail exit
	.size _start, . - _start

	.balign 4
trap_entry:				/* every trap is unexpected: say so, exit(1) by semihosting */
	la sp, _estack
	li a0, 0x04			/* SYS_WRITE0 */
	la a1, fault_msg
	call semihost_trap
	li a0, 0x18			/* SYS_EXIT, ADP_Stopped_RunTimeError */
	li a1, 0x20023
	call semihost_trap
7:	j 7b

	.balign 16			/* the semihosting sequence: uncompressed, within one page */
semihost_trap:
	.option push
	.option norvc
	slli zero, zero, 0x1f
	ebreak
	srai zero, zero, 7
	.option pop
	ret

	.section .rodata.fault_msg, "a", %progbits
fault_msg:
	.asciz "fw: unexpected exception (fault?), stopping\n"
