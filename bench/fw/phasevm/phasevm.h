/* phasevm.h: the interfaces between the phasevm benchmark firmware's files (see main.c). */
#ifndef PHASEVM_H
#define PHASEVM_H

#include <stdint.h>

#define NNATIVES 256
extern uint32_t (*const natives[NNATIVES])(uint32_t);

/* vm.c: a stack machine with one handler function per opcode */
enum op {
	OP_HALT, OP_PUSH, OP_LOAD, OP_STORE, OP_ADD, OP_SUB, OP_MUL, OP_AND, OP_OR, OP_XOR, OP_SHL,
	OP_SHR, OP_LT, OP_EQ, OP_JZ, OP_JMP, OP_ALOAD, OP_ASTORE, OP_NATIVE, OP_DUP, OP_DROP, OP_SWAP,
	OP_INC, OP_DIVU, OP_MODU, OP_NEG, OP_NOT, OP_MIN, OP_MAX, OP_ROTL, OP_POPCNT, OP_HASH,
	OP_COUNT
};
typedef struct insn {
	uint8_t op;
	int32_t arg;
} insn;
#define VM_MEM 2048
typedef struct vm {
	const insn *code;
	uint32_t pc, sp;
	uint32_t stack[64];
	uint32_t local[16];
	uint32_t mem[VM_MEM];
	uint32_t native_base;   /* NATIVE k calls natives[native_base + k % 64] or, with k < 0, the
				   popped index */
	uint64_t steps;
} vm;
uint32_t vm_run(vm *m, const insn *code);

/* programs.c: the benchmark programs, assembled at start */
typedef struct program {
	const char *name;
	insn code[160];
	uint32_t len;
	uint32_t native_base;
} program;
#define NPROGRAMS 7
void programs_build(program *p);

#endif
