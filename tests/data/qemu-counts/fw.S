/* fw.S: a Cortex-M3 firmware for mps2-an385 whose per-function instruction counts are known by
 * construction (tests/integration/t_qemu_counts.sh). Written in assembly so that no compiler
 * decides the counts; every function says what it executes.
 *   Reset_Handler   45 = 1 + 10 * 4 + 1 + 3 (the final `b .` never runs)
 *   loop_a        3020 = 10 calls * (1 + 100 * 3 + 1)
 *   loop_b         160 = 10 calls * (1 + 7 * 2 + 1)
 *   straddle         9 = 1 call: a 16-bit instruction in the last halfword of the 4 KiB
 *                        page at 0x1000, and a 32-bit one crossing the 1 KiB boundary at 0x1400
 * It ends with a semihosting SYS_EXIT (ADP_Stopped_ApplicationExit), status 0. */
	.syntax unified
	.cpu cortex-m3
	.thumb

	.section .vectors, "a"
	.word 0x20004000
	.word Reset_Handler

	.text
	.thumb_func
	.global Reset_Handler
	.type Reset_Handler, %function
Reset_Handler:
	movs r4, #10
1:	bl loop_a
	bl loop_b
	subs r4, #1
	bne 1b
	bl straddle
	ldr r1, =0x20026
	movs r0, #0x18
	bkpt 0xab
	b .
	.ltorg
	.size Reset_Handler, . - Reset_Handler

	.thumb_func
	.global loop_a
	.type loop_a, %function
loop_a:
	movs r0, #100
1:	subs r0, #1
	nop
	bne 1b
	bx lr
	.size loop_a, . - loop_a

	.thumb_func
	.global loop_b
	.type loop_b, %function
loop_b:
	movs r0, #7
1:	subs r0, #1
	bne 1b
	bx lr
	.size loop_b, . - loop_b

	.section .text.straddle, "ax", %progbits
	.thumb_func
	.global straddle
	.type straddle, %function
straddle:                       /* linked at 0xff8: see fw.ld */
	movs r0, #1             /* 0xff8 */
	movs r1, #2             /* 0xffa */
	movs r2, #3             /* 0xffc */
	adds r0, r1             /* 0xffe: 16-bit, the last halfword of a 4 KiB page */
	add.w r0, r0, r2        /* 0x1000 */
	b.w 3f                  /* 0x1004 */
	.org 0x406              /* zeros up to 0x13fe, never executed */
3:	add.w r1, r1, r2        /* 0x13fe: 32-bit, crossing the 1 KiB boundary at 0x1400 */
	adds r0, r1             /* 0x1402 */
	bx lr                   /* 0x1404 */
	.size straddle, . - straddle
