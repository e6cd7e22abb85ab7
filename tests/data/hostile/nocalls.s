@ nocalls.s: a Cortex-M3 ELF with two functions and no call between them (issue 13 item 11:
@ the call graph's empty site list once went to qsort(NULL, 0, ...)). Build: see README.md.
	.syntax unified
	.cpu cortex-m3
	.thumb
	.section .text.Reset_Handler,"ax",%progbits
	.global Reset_Handler
	.type Reset_Handler, %function
Reset_Handler:
	b Reset_Handler
	.size Reset_Handler, .-Reset_Handler
	.section .text.spin,"ax",%progbits
	.global spin
	.type spin, %function
spin:
	bx lr
	.size spin, .-spin
