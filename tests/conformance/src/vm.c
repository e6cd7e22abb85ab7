/* vm.c: a register bytecode interpreter running a fixed program; the largest hot function.
 * A bad opcode goes to a cold path (GCC may split it off as vm_exec.cold). */
#include <stdio.h>
#include <stdlib.h>

#include "work.h"

enum { OP_LI, OP_ADD, OP_XOR, OP_SHL, OP_SHR, OP_MUL, OP_DEC, OP_JNZ, OP_MOV, OP_ROR, OP_HALT };

/* r0 = seed, r1 = 200, r3 = 31; loop: r2 = r0 << 5; r0 ^= r2; r2 = r0 >> 3; r0 += r2;
 * r0 *= r3; r2 = r0; r2 ror= 7; r0 ^= r2; r1--; if r1 goto loop; halt */
static const uint8_t program[] = {
	OP_LI, 1, 200, OP_LI, 3, 31,
	OP_MOV, 2, 0, OP_SHL, 2, 5, OP_XOR, 0, 2, OP_MOV, 2, 0, OP_SHR, 2, 3, OP_ADD, 0, 2,
	OP_MUL, 0, 3, OP_MOV, 2, 0, OP_ROR, 2, 7, OP_XOR, 0, 2, OP_DEC, 1, 0, OP_JNZ, 1, 6,
	OP_HALT, 0, 0,
};

static __attribute__((cold, noinline)) void vm_fault(unsigned pc, unsigned op)
{
	printf("vm: bad opcode %u at %u\n", op, pc);
	exit(3);
}

static uint32_t vm_exec(const uint8_t *code, size_t len, uint32_t seed)
{
	uint32_t r[4] = { seed, 0, 0, 0 };
	size_t pc = 0;

	while (pc + 3 <= len) {
		unsigned op = code[pc], a = code[pc + 1] & 3u, b = code[pc + 2];
		pc += 3;
		switch (op) {
		case OP_LI: r[a] = b; break;
		case OP_ADD: r[a] += r[b & 3u]; break;
		case OP_XOR: r[a] ^= r[b & 3u]; break;
		case OP_SHL: r[a] <<= b & 31u; break;
		case OP_SHR: r[a] >>= b & 31u; break;
		case OP_MUL: r[a] *= r[b & 3u]; break;
		case OP_DEC: r[a]--; break;
		case OP_JNZ: if (r[a]) pc = b; break;
		case OP_MOV: r[a] = r[b & 3u]; break;
		case OP_ROR: r[a] = r[a] >> (b & 31u) | r[a] << ((32u - b) & 31u); break;
		case OP_HALT: return r[0];
		default: vm_fault((unsigned)pc - 3, op);
		}
	}
	return r[0];
}

uint32_t vm_run(uint32_t seed)
{
	return vm_exec(program, sizeof program, seed);
}
