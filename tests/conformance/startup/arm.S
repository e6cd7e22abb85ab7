/* arm.S: Cortex-M startup in assembly, CMSIS style (tests/conformance): vector table in
 * .isr_vector, Reset_Handler in .text.Reset_Handler copying .data and .ramtext and clearing
 * .bss with word loops, then the C library's init, main and exit. Thumb-1 only, so it also
 * assembles for Cortex-M0/M0+. FW_PICOLIBC: sets the TLS pointer (_set_tls). */
	.syntax unified
	.thumb

	.section .isr_vector, "a", %progbits
	.align 2
	.globl __isr_vector
__isr_vector:
	.long _estack
	.long Reset_Handler
	.rept 14
	.long Default_Handler
	.endr
	.size __isr_vector, . - __isr_vector

	.section .text.Reset_Handler, "ax", %progbits
	.align 1
	.thumb_func
	.globl Reset_Handler
	.type Reset_Handler, %function
Reset_Handler:
#if defined(__ARM_FP)
	ldr r0, =0xE000ED88		/* CPACR: CP10/CP11 full access */
	ldr r1, [r0]
	ldr r2, =0x00F00000
	orrs r1, r2
	str r1, [r0]
	dsb
	isb
#endif
	ldr r0, =__data_start
	ldr r1, =__data_load
	ldr r2, =__data_end
1:	cmp r0, r2
	bhs 2f
	ldr r3, [r1]
	str r3, [r0]
	adds r0, #4
	adds r1, #4
	b 1b
2:	ldr r0, =__ramtext_start
	ldr r1, =__ramtext_load
	ldr r2, =__ramtext_end
3:	cmp r0, r2
	bhs 4f
	ldr r3, [r1]
	str r3, [r0]
	adds r0, #4
	adds r1, #4
	b 3b
4:	ldr r0, =__bss_start__
	ldr r2, =__bss_end__
	movs r3, #0
5:	cmp r0, r2
	bhs 6f
	str r3, [r0]
	adds r0, #4
	b 5b
6:	dsb
	isb
#if defined(FW_PICOLIBC)
	ldr r0, =__tls_base
	bl _set_tls
#endif
	bl __libc_init_array
	bl main
	bl exit
	b .
	.pool
	.size Reset_Handler, . - Reset_Handler

	.section .text.Default_Handler, "ax", %progbits
	.align 1
	.thumb_func
	.weak Default_Handler
	.type Default_Handler, %function
Default_Handler:	/* unexpected exception: say so, then semihosting SYS_EXIT, RunTimeError */
	movs r0, #0x04			/* SYS_WRITE0 */
	ldr r1, =fault_msg
	bkpt 0xab
	movs r0, #0x18			/* SYS_EXIT */
	ldr r1, =0x20023
	bkpt 0xab
	b .
	.pool
	.size Default_Handler, . - Default_Handler

	.section .rodata.fault_msg, "a", %progbits
fault_msg:
	.asciz "fw: unexpected exception (fault?), stopping\n"
