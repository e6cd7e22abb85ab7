/* pool.S: fixture: a Thumb function whose literal pool the assembler puts after its .size (as
 * in a naked C function whose inline assembly loads constants, FreeRTOS's register tests):
 * 6 bytes of code, 2 of padding, 8 of pool, all in its input section; after_pool follows. */
	.syntax unified
	.thumb
	.section .text.pooled_fn,"ax",%progbits
	.global pooled_fn
	.type pooled_fn, %function
	.thumb_func
pooled_fn:
	ldr r0, =0x12345678
	ldr r1, =0x9abcdef0
	bx lr
	.size pooled_fn, .-pooled_fn
	.ltorg

/* the next function: the pool ends where it begins */
	.section .text.after_pool,"ax",%progbits
	.global after_pool
	.type after_pool, %function
	.thumb_func
after_pool:
	bx lr
	.size after_pool, .-after_pool
