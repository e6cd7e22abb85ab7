/* start-rv32.S: the entry (_start, the ELF entry the sifive_e boot ROM jumps to): sets the
 * stack and goes to the C reset handler; with -DASM_RESET the copy is here, laid out as GCC
 * lays an -Os copy loop (exit test and call to main first, the body after). */
	.section .text._start, "ax", @progbits
	.global _start
	.type _start, @function
_start:
	.option push
	.option norelax
	la gp, __global_pointer$
	.option pop
	la sp, __stack_top
#if defined(ASM_RESET)
	call early_init
	la a2, __ramtext_load
	la a3, __ramtext_start
	la a1, __ramtext_end
1:	bltu a3, a1, 2f
	fence.i
	call main
3:	j 3b
2:	lw a0, 0(a2)
	sw a0, 0(a3)
	addi a2, a2, 4
	addi a3, a3, 4
	j 1b
#else
	tail reset_c
#endif
	.size _start, . - _start
