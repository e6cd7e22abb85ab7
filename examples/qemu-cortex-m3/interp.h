/* interp.h: a small stack-based bytecode virtual machine (32-bit unsigned cells). */
#ifndef FW_INTERP_H
#define FW_INTERP_H

#include <stdint.h>

#define VM_STACK_DEPTH 32
#define VM_VARS 8
#define VM_CALL_DEPTH 8

/* Opcodes; PUSH, LOAD, STORE, JMP, JNZ and CALL take one operand word after the opcode.
 * Binary operators pop b (the top) then a and push a OP b. */
enum vm_opcode {
	OP_HALT, OP_PUSH, OP_LOAD, OP_STORE, OP_DUP, OP_DROP, OP_SWAP,
	OP_ADD, OP_SUB, OP_MUL, OP_DIV, OP_MOD, OP_AND, OP_XOR, OP_SHR,
	OP_JMP, OP_JNZ, OP_CALL, OP_RET,
	OP_COUNT
};

/* Status of a step and of a run: VM_RUNNING only between steps. */
enum vm_status {
	VM_RUNNING = 0,
	VM_HALTED = 1,
	VM_ERR_STACK = -1,	/* data or call stack over/underflow */
	VM_ERR_OPCODE = -2,
	VM_ERR_PC = -3,		/* pc or operand past the end of the code */
	VM_ERR_VAR = -4,
	VM_ERR_DIVZERO = -5,
	VM_ERR_STEPS = -6,	/* max_steps reached */
};

struct vm {
	const uint32_t *code;
	uint32_t code_len;
	uint32_t pc;
	uint32_t sp;
	uint32_t rsp;
	uint32_t steps;
	uint32_t stack[VM_STACK_DEPTH];
	uint32_t vars[VM_VARS];
	uint32_t rstack[VM_CALL_DEPTH];
};

/* Resets *vm to run code[0..len) from pc 0 with empty stacks and zeroed variables. */
void vm_init(struct vm *vm, const uint32_t *code, uint32_t len);

/* Runs until HALT (returns VM_HALTED), an error (a negative vm_status) or max_steps. */
int vm_run(struct vm *vm, uint32_t max_steps);

/* A constant lowercase name for a vm_status value. */
const char *vm_status_name(int status);

#endif
