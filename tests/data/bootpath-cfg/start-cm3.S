/* start-cm3.S: the vector table and, with -DASM_RESET, a reset handler in assembly laid out as
 * GCC lays an -Os copy loop: the exit test and the call to main first, the loop body after. */
	.syntax unified
	.thumb
	.section .isr_vector, "a", %progbits
	.word __stack_top
	.word Reset_Handler
	.text
#if defined(ASM_RESET)
	.section .text.Reset_Handler, "ax", %progbits
	.global Reset_Handler
	.type Reset_Handler, %function
	.thumb_func
Reset_Handler:
	bl early_init
	ldr r2, =__ramtext_load
	ldr r3, =__ramtext_start
	ldr r1, =__ramtext_end
1:	cmp r3, r1
	bcc 2f
	dsb
	isb
	bl main
3:	b 3b
2:	ldr r0, [r2], #4
	str r0, [r3], #4
	b 1b
	.pool
	.size Reset_Handler, . - Reset_Handler
#else
	.section .text.Reset_Handler, "ax", %progbits
	.global Reset_Handler
	.type Reset_Handler, %function
	.thumb_func
Reset_Handler:
	b.w reset_c
	.size Reset_Handler, . - Reset_Handler
#endif
