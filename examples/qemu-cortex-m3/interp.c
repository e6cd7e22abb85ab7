/* interp.c: the VM's dispatch loop and one static handler per opcode, called through a table.
 * Workload: tight bytecode loops, so vm_run and the handlers of the common opcodes (LOAD, PUSH,
 * STORE, ADD, JNZ...) are the hottest code in the firmware, while the error paths and
 * vm_status_name stay cold. Handlers are local symbols (op_add, ...) with their own sections. */
#include <stddef.h>

#include "interp.h"

typedef int (*vm_handler)(struct vm *vm);

static int push(struct vm *vm, uint32_t value)
{
	if (vm->sp >= VM_STACK_DEPTH)
		return VM_ERR_STACK;
	vm->stack[vm->sp++] = value;
	return VM_RUNNING;
}

static int pop(struct vm *vm, uint32_t *value)
{
	if (vm->sp == 0)
		return VM_ERR_STACK;
	*value = vm->stack[--vm->sp];
	return VM_RUNNING;
}

/* Pops b (the top) and then a, so binary operators compute a OP b. */
static int pop2(struct vm *vm, uint32_t *a, uint32_t *b)
{
	if (vm->sp < 2)
		return VM_ERR_STACK;
	*b = vm->stack[--vm->sp];
	*a = vm->stack[--vm->sp];
	return VM_RUNNING;
}

static int fetch(struct vm *vm, uint32_t *operand)
{
	if (vm->pc >= vm->code_len)
		return VM_ERR_PC;
	*operand = vm->code[vm->pc++];
	return VM_RUNNING;
}

static int op_halt(struct vm *vm)
{
	(void)vm;
	return VM_HALTED;
}

static int op_push(struct vm *vm)
{
	uint32_t value;

	if (fetch(vm, &value))
		return VM_ERR_PC;
	return push(vm, value);
}

static int op_load(struct vm *vm)
{
	uint32_t index;

	if (fetch(vm, &index))
		return VM_ERR_PC;
	if (index >= VM_VARS)
		return VM_ERR_VAR;
	return push(vm, vm->vars[index]);
}

static int op_store(struct vm *vm)
{
	uint32_t index, value;

	if (fetch(vm, &index))
		return VM_ERR_PC;
	if (index >= VM_VARS)
		return VM_ERR_VAR;
	if (pop(vm, &value))
		return VM_ERR_STACK;
	vm->vars[index] = value;
	return VM_RUNNING;
}

static int op_dup(struct vm *vm)
{
	if (vm->sp == 0)
		return VM_ERR_STACK;
	return push(vm, vm->stack[vm->sp - 1]);
}

static int op_drop(struct vm *vm)
{
	uint32_t ignored;

	return pop(vm, &ignored);
}

static int op_swap(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	vm->stack[vm->sp++] = b;	/* both fit: pop2 just freed two cells */
	vm->stack[vm->sp++] = a;
	return VM_RUNNING;
}

static int op_add(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	return push(vm, a + b);
}

static int op_sub(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	return push(vm, a - b);
}

static int op_mul(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	return push(vm, a * b);
}

static int op_div(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	if (b == 0)
		return VM_ERR_DIVZERO;
	return push(vm, a / b);
}

static int op_mod(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	if (b == 0)
		return VM_ERR_DIVZERO;
	return push(vm, a % b);
}

static int op_and(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	return push(vm, a & b);
}

static int op_xor(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	return push(vm, a ^ b);
}

static int op_shr(struct vm *vm)
{
	uint32_t a, b;

	if (pop2(vm, &a, &b))
		return VM_ERR_STACK;
	return push(vm, b < 32 ? a >> b : 0);
}

static int jump(struct vm *vm, uint32_t target)
{
	if (target >= vm->code_len)
		return VM_ERR_PC;
	vm->pc = target;
	return VM_RUNNING;
}

static int op_jmp(struct vm *vm)
{
	uint32_t target;

	if (fetch(vm, &target))
		return VM_ERR_PC;
	return jump(vm, target);
}

static int op_jnz(struct vm *vm)
{
	uint32_t target, cond;

	if (fetch(vm, &target))
		return VM_ERR_PC;
	if (pop(vm, &cond))
		return VM_ERR_STACK;
	return cond ? jump(vm, target) : VM_RUNNING;
}

static int op_call(struct vm *vm)
{
	uint32_t target;

	if (fetch(vm, &target))
		return VM_ERR_PC;
	if (vm->rsp >= VM_CALL_DEPTH)
		return VM_ERR_STACK;
	vm->rstack[vm->rsp++] = vm->pc;
	return jump(vm, target);
}

static int op_ret(struct vm *vm)
{
	if (vm->rsp == 0)
		return VM_ERR_STACK;
	vm->pc = vm->rstack[--vm->rsp];
	return VM_RUNNING;
}

/* Indexed by enum vm_opcode; a call through this table is what keeps every handler a real,
 * separately placeable function instead of being inlined into vm_run. */
static const vm_handler handlers[OP_COUNT] = {
	[OP_HALT] = op_halt, [OP_PUSH] = op_push, [OP_LOAD] = op_load, [OP_STORE] = op_store,
	[OP_DUP] = op_dup, [OP_DROP] = op_drop, [OP_SWAP] = op_swap,
	[OP_ADD] = op_add, [OP_SUB] = op_sub, [OP_MUL] = op_mul, [OP_DIV] = op_div,
	[OP_MOD] = op_mod, [OP_AND] = op_and, [OP_XOR] = op_xor, [OP_SHR] = op_shr,
	[OP_JMP] = op_jmp, [OP_JNZ] = op_jnz, [OP_CALL] = op_call, [OP_RET] = op_ret,
};

void vm_init(struct vm *vm, const uint32_t *code, uint32_t len)
{
	*vm = (struct vm){ .code = code, .code_len = len };
}

int vm_run(struct vm *vm, uint32_t max_steps)
{
	while (vm->steps < max_steps) {
		uint32_t op;
		int status;

		if (vm->pc >= vm->code_len)
			return VM_ERR_PC;
		op = vm->code[vm->pc++];
		if (op >= OP_COUNT)
			return VM_ERR_OPCODE;
		vm->steps++;
		status = handlers[op](vm);
		if (status != VM_RUNNING)
			return status;
	}
	return VM_ERR_STEPS;
}

const char *vm_status_name(int status)
{
	switch (status) {
	case VM_RUNNING: return "running";
	case VM_HALTED: return "halted";
	case VM_ERR_STACK: return "stack overflow or underflow";
	case VM_ERR_OPCODE: return "bad opcode";
	case VM_ERR_PC: return "pc out of range";
	case VM_ERR_VAR: return "bad variable index";
	case VM_ERR_DIVZERO: return "division by zero";
	case VM_ERR_STEPS: return "step limit reached";
	default: return "unknown status";
	}
}
