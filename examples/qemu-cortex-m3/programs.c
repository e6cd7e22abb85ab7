/* programs.c: hand-assembled bytecode for the VM. The numbers on the left are code offsets
 * (jump targets); main.c checks every result against a plain C reference. */
#include "interp.h"
#include "programs.h"

#define PROGRAM(ident, label) \
	const struct vm_program ident = { label, ident##_code, sizeof ident##_code / sizeof ident##_code[0] }

/* while (i) { x = acc * 33 ^ i; acc = x + (x >> 5); i--; } */
static const uint32_t prog_hash_code[] = {
	/*  0 */ OP_LOAD, 0,
	/*  2 */ OP_JNZ, 5,
	/*  4 */ OP_HALT,
	/*  5 */ OP_LOAD, 1, OP_PUSH, 33, OP_MUL,
	/* 10 */ OP_LOAD, 0, OP_XOR,
	/* 13 */ OP_DUP, OP_PUSH, 5, OP_SHR, OP_ADD,
	/* 18 */ OP_STORE, 1,
	/* 20 */ OP_LOAD, 0, OP_PUSH, 1, OP_SUB,
	/* 25 */ OP_STORE, 0,
	/* 27 */ OP_JMP, 0,
};
PROGRAM(prog_hash, "hash");

/* for (; n; n--) for (x = n; x != 1; steps++) x = x & 1 ? 3 * x + 1 : x >> 1; */
static const uint32_t prog_collatz_code[] = {
	/*  0 */ OP_LOAD, 0,
	/*  2 */ OP_JNZ, 5,
	/*  4 */ OP_HALT,
	/*  5 */ OP_LOAD, 0, OP_STORE, 1,
	/*  9 inner */ OP_LOAD, 1, OP_PUSH, 1, OP_SUB,
	/* 14 */ OP_JNZ, 18,
	/* 16 */ OP_JMP, 53,
	/* 18 */ OP_LOAD, 2, OP_PUSH, 1, OP_ADD,
	/* 23 */ OP_STORE, 2,
	/* 25 */ OP_LOAD, 1, OP_PUSH, 1, OP_AND,
	/* 30 */ OP_JNZ, 41,
	/* 32 even */ OP_LOAD, 1, OP_PUSH, 1, OP_SHR,
	/* 37 */ OP_STORE, 1,
	/* 39 */ OP_JMP, 9,
	/* 41 odd */ OP_LOAD, 1, OP_PUSH, 3, OP_MUL,
	/* 46 */ OP_PUSH, 1, OP_ADD,
	/* 49 */ OP_STORE, 1,
	/* 51 */ OP_JMP, 9,
	/* 53 next */ OP_LOAD, 0, OP_PUSH, 1, OP_SUB,
	/* 58 */ OP_STORE, 0,
	/* 60 */ OP_JMP, 0,
};
PROGRAM(prog_collatz, "collatz");

/* for (; i; i--) sum += digit_sum(i);  digit_sum is a bytecode subroutine at 23. */
static const uint32_t prog_digits_code[] = {
	/*  0 */ OP_LOAD, 0,
	/*  2 */ OP_JNZ, 5,
	/*  4 */ OP_HALT,
	/*  5 */ OP_LOAD, 0, OP_CALL, 23,
	/*  9 */ OP_LOAD, 1, OP_ADD,
	/* 12 */ OP_STORE, 1,
	/* 14 */ OP_LOAD, 0, OP_PUSH, 1, OP_SUB,
	/* 19 */ OP_STORE, 0,
	/* 21 */ OP_JMP, 0,
	/* 23 digit_sum: x -> sum */ OP_PUSH, 0, OP_SWAP,
	/* 26 loop: acc x */ OP_DUP, OP_JNZ, 31,
	/* 29 */ OP_DROP, OP_RET,
	/* 31 */ OP_DUP, OP_PUSH, 10, OP_MOD,
	/* 35 */ OP_STORE, 2, OP_SWAP, OP_LOAD, 2, OP_ADD, OP_SWAP,
	/* 42 */ OP_PUSH, 10, OP_DIV,
	/* 45 */ OP_JMP, 26,
};
PROGRAM(prog_digits, "digits");
