/* programs.c: the phasevm benchmark programs, assembled into bytecode at start by a tiny
 * assembler (loops with back-patched exits). Local 0 is n, the program's size; each leaves its
 * result on the stack. Each program stresses different handlers and its own range of natives. */
#include "phasevm.h"

static uint32_t E(program *p, int op, int32_t arg)
{
	p->code[p->len] = (insn){ (uint8_t)op, arg };
	return p->len++;
}

/* for (local[v] = from; local[v] < local[lim]; ...): returns the JZ to patch; top in *top */
static uint32_t loop_head(program *p, int v, int32_t from, int lim, uint32_t *top)
{
	E(p, OP_PUSH, from);
	E(p, OP_STORE, v);
	*top = p->len;
	E(p, OP_LOAD, v);
	E(p, OP_LOAD, lim);
	E(p, OP_LT, 0);
	return E(p, OP_JZ, 0);
}

static void loop_tail(program *p, int v, uint32_t top, uint32_t jz)
{
	E(p, OP_INC, v);
	E(p, OP_JMP, (int32_t)top);
	p->code[jz].arg = (int32_t)p->len;
}

static void sieve(program *p)
{
	uint32_t t1, t2, t3, j1, j2, j3, skip;
	j1 = loop_head(p, 1, 0, 0, &t1);
	E(p, OP_PUSH, 0); E(p, OP_LOAD, 1); E(p, OP_ASTORE, 0);
	loop_tail(p, 1, t1, j1);
	E(p, OP_PUSH, 0); E(p, OP_STORE, 3);
	j2 = loop_head(p, 1, 2, 0, &t2);
	E(p, OP_LOAD, 1); E(p, OP_ALOAD, 0); E(p, OP_PUSH, 0); E(p, OP_EQ, 0);
	skip = E(p, OP_JZ, 0);
	E(p, OP_INC, 3);
	E(p, OP_LOAD, 1); E(p, OP_LOAD, 1); E(p, OP_ADD, 0); E(p, OP_STORE, 2);
	t3 = p->len;
	E(p, OP_LOAD, 2); E(p, OP_LOAD, 0); E(p, OP_LT, 0);
	j3 = E(p, OP_JZ, 0);
	E(p, OP_PUSH, 1); E(p, OP_LOAD, 2); E(p, OP_ASTORE, 0);
	E(p, OP_LOAD, 2); E(p, OP_LOAD, 1); E(p, OP_ADD, 0); E(p, OP_STORE, 2);
	E(p, OP_JMP, (int32_t)t3);
	p->code[j3].arg = (int32_t)p->len;
	p->code[skip].arg = (int32_t)p->len;
	loop_tail(p, 1, t2, j2);
	E(p, OP_LOAD, 3);
}

/* h = native[(i*i >> 5) & 63](h ^ i): a skewed mix of 64 natives */
static void hash(program *p)
{
	uint32_t t, j = loop_head(p, 1, 0, 0, &t);
	E(p, OP_LOAD, 2); E(p, OP_LOAD, 1); E(p, OP_XOR, 0);
	E(p, OP_LOAD, 1); E(p, OP_LOAD, 1); E(p, OP_MUL, 0); E(p, OP_PUSH, 5); E(p, OP_SHR, 0);
	E(p, OP_NATIVE, -1); E(p, OP_STORE, 2);
	loop_tail(p, 1, t, j);
	E(p, OP_LOAD, 2);
}

/* C = A x B over 8x8 matrices in mem, n times */
static void matmul(program *p)
{
	uint32_t tr, jr, ti, ji, tj, jj, tk, jk;
	E(p, OP_PUSH, 8); E(p, OP_STORE, 9);
	jr = loop_head(p, 5, 0, 0, &tr);
	ji = loop_head(p, 1, 0, 9, &ti);
	jj = loop_head(p, 2, 0, 9, &tj);
	E(p, OP_PUSH, 0); E(p, OP_STORE, 4);
	jk = loop_head(p, 3, 0, 9, &tk);
	E(p, OP_LOAD, 1); E(p, OP_PUSH, 3); E(p, OP_SHL, 0); E(p, OP_LOAD, 3); E(p, OP_ADD, 0); E(p, OP_ALOAD, 0);
	E(p, OP_LOAD, 3); E(p, OP_PUSH, 3); E(p, OP_SHL, 0); E(p, OP_LOAD, 2); E(p, OP_ADD, 0);
	E(p, OP_PUSH, 64); E(p, OP_ADD, 0); E(p, OP_ALOAD, 0);
	E(p, OP_MUL, 0); E(p, OP_LOAD, 4); E(p, OP_ADD, 0); E(p, OP_STORE, 4);
	loop_tail(p, 3, tk, jk);
	E(p, OP_LOAD, 4); E(p, OP_LOAD, 5); E(p, OP_ADD, 0);
	E(p, OP_LOAD, 1); E(p, OP_PUSH, 3); E(p, OP_SHL, 0); E(p, OP_LOAD, 2); E(p, OP_ADD, 0);
	E(p, OP_PUSH, 128); E(p, OP_ADD, 0); E(p, OP_ASTORE, 0);
	loop_tail(p, 2, tj, jj);
	loop_tail(p, 1, ti, ji);
	loop_tail(p, 5, tr, jr);
	E(p, OP_PUSH, 128 + 63); E(p, OP_ALOAD, 0);
}

/* total Collatz steps of 1..n */
static void collatz(program *p)
{
	uint32_t t, j, tw, jw, odd, join;
	E(p, OP_PUSH, 0); E(p, OP_STORE, 3);
	j = loop_head(p, 1, 1, 0, &t);
	E(p, OP_LOAD, 3); E(p, OP_LOAD, 1); E(p, OP_NATIVE, -1); E(p, OP_STORE, 6);
	E(p, OP_LOAD, 1); E(p, OP_STORE, 2);
	tw = p->len;
	E(p, OP_LOAD, 2); E(p, OP_PUSH, 1); E(p, OP_EQ, 0); E(p, OP_NOT, 0); E(p, OP_PUSH, 1); E(p, OP_AND, 0);
	jw = E(p, OP_JZ, 0);
	E(p, OP_INC, 3);
	E(p, OP_LOAD, 2); E(p, OP_PUSH, 1); E(p, OP_AND, 0);
	odd = E(p, OP_JZ, 0);
	E(p, OP_LOAD, 2); E(p, OP_PUSH, 3); E(p, OP_MUL, 0); E(p, OP_PUSH, 1); E(p, OP_ADD, 0); E(p, OP_STORE, 2);
	join = E(p, OP_JMP, 0);
	p->code[odd].arg = (int32_t)p->len;
	E(p, OP_LOAD, 2); E(p, OP_PUSH, 1); E(p, OP_SHR, 0); E(p, OP_STORE, 2);
	p->code[join].arg = (int32_t)p->len;
	E(p, OP_JMP, (int32_t)tw);
	p->code[jw].arg = (int32_t)p->len;
	loop_tail(p, 1, t, j);
	E(p, OP_LOAD, 3);
}

/* acc = native[hash(i) & 15](acc + mem[i & 63]): a few natives of another range, very hot */
static void dsp(program *p)
{
	uint32_t t, j = loop_head(p, 1, 0, 0, &t);
	E(p, OP_LOAD, 2); E(p, OP_LOAD, 1); E(p, OP_PUSH, 63); E(p, OP_AND, 0); E(p, OP_ALOAD, 0); E(p, OP_ADD, 0);
	E(p, OP_LOAD, 1); E(p, OP_HASH, 0); E(p, OP_PUSH, 15); E(p, OP_AND, 0);
	E(p, OP_NATIVE, -1); E(p, OP_STORE, 2);
	loop_tail(p, 1, t, j);
	E(p, OP_LOAD, 2);
}

/* bubble sort of n hashed values, then a checksum */
static void sort(program *p)
{
	uint32_t t1, j1, t2, j2, t3, j3, noswap;
	j1 = loop_head(p, 1, 0, 0, &t1);
	E(p, OP_LOAD, 1); E(p, OP_HASH, 0); E(p, OP_LOAD, 1); E(p, OP_ASTORE, 0);
	loop_tail(p, 1, t1, j1);
	j2 = loop_head(p, 1, 1, 0, &t2);
	j3 = loop_head(p, 2, 1, 0, &t3);
	E(p, OP_LOAD, 2); E(p, OP_ALOAD, 0); E(p, OP_LOAD, 2); E(p, OP_PUSH, 1); E(p, OP_SUB, 0); E(p, OP_ALOAD, 0);
	E(p, OP_LT, 0);
	noswap = E(p, OP_JZ, 0);
	E(p, OP_LOAD, 2); E(p, OP_ALOAD, 0);
	E(p, OP_LOAD, 2); E(p, OP_PUSH, 1); E(p, OP_SUB, 0); E(p, OP_ALOAD, 0);
	E(p, OP_LOAD, 2); E(p, OP_ASTORE, 0);
	E(p, OP_LOAD, 2); E(p, OP_PUSH, 1); E(p, OP_SUB, 0); E(p, OP_ASTORE, 0);
	p->code[noswap].arg = (int32_t)p->len;
	loop_tail(p, 2, t3, j3);
	loop_tail(p, 1, t2, j2);
	E(p, OP_PUSH, 0); E(p, OP_ALOAD, 0); E(p, OP_LOAD, 0); E(p, OP_PUSH, 1); E(p, OP_SUB, 0); E(p, OP_ALOAD, 0);
	E(p, OP_XOR, 0);
}

/* bit twiddling and every native of the upper half, in turn */
static void bits(program *p)
{
	uint32_t t, j = loop_head(p, 1, 0, 0, &t);
	E(p, OP_LOAD, 2); E(p, OP_LOAD, 1); E(p, OP_ROTL, 0); E(p, OP_POPCNT, 0);
	E(p, OP_LOAD, 2); E(p, OP_LOAD, 1); E(p, OP_MIN, 0); E(p, OP_LOAD, 1); E(p, OP_MAX, 0); E(p, OP_ADD, 0);
	E(p, OP_LOAD, 1); E(p, OP_PUSH, 7); E(p, OP_MODU, 0); E(p, OP_ADD, 0); E(p, OP_NEG, 0);
	E(p, OP_LOAD, 1); E(p, OP_NATIVE, -1); E(p, OP_STORE, 2);
	loop_tail(p, 1, t, j);
	E(p, OP_LOAD, 2);
}

void programs_build(program *p)
{
	static void (*const build[NPROGRAMS])(program *) = { sieve, hash, matmul, collatz, dsp, sort, bits };
	static const char *const names[NPROGRAMS] = { "sieve", "hash", "matmul", "collatz", "dsp", "sort", "bits" };
	static const uint32_t base[NPROGRAMS] = { 0, 0, 0, 192, 64, 0, 128 };
	for (int k = 0; k < NPROGRAMS; k++) {
		p[k].name = names[k];
		p[k].len = 0;
		p[k].native_base = base[k];
		build[k](&p[k]);
		E(&p[k], OP_HALT, 0);
	}
}
