/* mtvec.S: a RISC-V firmware's two ways of installing its trap handlers (riscv-mtvec.elf,
 * test_riscv_traps.c): `la` + `csrw mtvec` of a handler (direct mode), and of a table of jumps
 * with its low bit set (vectored mode); a c.li between the load and the write, as compiled
 * code has, must not lose the address. */
	.option norelax
	.text
	.globl _start
	.type _start, @function
_start:
	la t0, direct_handler
	li a0, 1
	csrw mtvec, t0
	la t1, vectors
	ori t1, t1, 1
	csrw mtvec, t1
	j _start
	.size _start, .-_start
	.align 2
	.option push
	.option norvc   /* one 4-byte jump an entry: mtvec's base + 4 * cause */
vectors:
	j vec_handler
	j other_handler
	j vec_handler
	.option pop
	.align 2
	.type direct_handler, @function
direct_handler:
	mret
	.size direct_handler, .-direct_handler
	.type vec_handler, @function
vec_handler:
	mret
	.size vec_handler, .-vec_handler
	.type other_handler, @function
other_handler:
	mret
	.size other_handler, .-other_handler
	.type not_a_handler, @function
not_a_handler:
	ret
	.size not_a_handler, .-not_a_handler
