/* vm.c: the phasevm benchmark's interpreter: a stack machine that dispatches through a table to
 * one static handler per opcode (the shape of a real bytecode interpreter: a hot dispatch loop
 * and handlers whose heat depends on the program running). */
#include "phasevm.h"

#define H(name) __attribute__((noinline)) static void name(vm *m, int32_t a)
#define POP() (m->stack[--m->sp & 63])
#define PUSH(v) (m->stack[m->sp++ & 63] = (v))

H(op_halt) { (void)a; m->pc = UINT32_MAX - 2; }   /* the loop adds one */
H(op_push) { PUSH((uint32_t)a); }
H(op_load) { PUSH(m->local[a & 15]); }
H(op_store) { m->local[a & 15] = POP(); }
H(op_add) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x + y); }
H(op_sub) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x - y); }
H(op_mul) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x * y); }
H(op_and) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x & y); }
H(op_or) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x | y); }
H(op_xor) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x ^ y); }
H(op_shl) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x << (y & 31)); }
H(op_shr) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x >> (y & 31)); }
H(op_lt) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x < y); }
H(op_eq) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x == y); }
H(op_jz) { if (POP() == 0) m->pc = (uint32_t)a - 1; }
H(op_jmp) { m->pc = (uint32_t)a - 1; }
H(op_aload) { (void)a; uint32_t x = POP(); PUSH(m->mem[x % VM_MEM]); }
H(op_astore) { (void)a; uint32_t addr = POP(), v = POP(); m->mem[addr % VM_MEM] = v; }
H(op_native)
{
	uint32_t k = a < 0 ? POP() : (uint32_t)a;
	uint32_t x = POP();
	PUSH(natives[(m->native_base + (k & 63)) % NNATIVES](x));
}
H(op_dup) { (void)a; uint32_t x = POP(); PUSH(x); PUSH(x); }
H(op_drop) { (void)a; (void)POP(); }
H(op_swap) { (void)a; uint32_t y = POP(), x = POP(); PUSH(y); PUSH(x); }
H(op_inc) { m->local[a & 15]++; }
H(op_divu) { (void)a; uint32_t y = POP(), x = POP(); PUSH(y ? x / y : 0); }
H(op_modu) { (void)a; uint32_t y = POP(), x = POP(); PUSH(y ? x % y : 0); }
H(op_neg) { (void)a; uint32_t x = POP(); PUSH(0u - x); }
H(op_not) { (void)a; uint32_t x = POP(); PUSH(~x); }
H(op_min) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x < y ? x : y); }
H(op_max) { (void)a; uint32_t y = POP(), x = POP(); PUSH(x > y ? x : y); }
H(op_rotl) { (void)a; uint32_t y = POP() & 31, x = POP(); PUSH(y ? (x << y) | (x >> (32 - y)) : x); }
H(op_popcnt)
{
	(void)a;
	uint32_t x = POP(), n = 0;
	for (; x; x &= x - 1)
		n++;
	PUSH(n);
}
H(op_hash)
{
	(void)a;
	uint32_t x = POP();
	x ^= x >> 16;
	x *= 0x7feb352du;
	x ^= x >> 15;
	x *= 0x846ca68bu;
	PUSH(x ^ (x >> 16));
}

static void (*const handlers[OP_COUNT])(vm *, int32_t) = {
	op_halt, op_push, op_load, op_store, op_add, op_sub, op_mul, op_and, op_or, op_xor, op_shl,
	op_shr, op_lt, op_eq, op_jz, op_jmp, op_aload, op_astore, op_native, op_dup, op_drop, op_swap,
	op_inc, op_divu, op_modu, op_neg, op_not, op_min, op_max, op_rotl, op_popcnt, op_hash,
};

uint32_t vm_run(vm *m, const insn *code)
{
	m->code = code;
	m->pc = 0;
	m->sp = 0;
	while (m->pc != UINT32_MAX - 1) {
		const insn *i = &code[m->pc];
		handlers[i->op % OP_COUNT](m, i->arg);
		m->pc++;
		m->steps++;
	}
	return m->sp ? m->stack[(m->sp - 1) & 63] : 0;
}
