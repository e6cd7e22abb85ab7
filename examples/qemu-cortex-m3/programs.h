/* programs.h: the bytecode programs the firmware runs on the VM, each with its inputs. */
#ifndef FW_PROGRAMS_H
#define FW_PROGRAMS_H

#include <stdint.h>

struct vm_program {
	const char *name;
	const uint32_t *code;
	uint32_t len;
};

/* hash: vars[0] = count, vars[1] = seed; leaves the hash in vars[1]. Hot arithmetic loop. */
extern const struct vm_program prog_hash;

/* collatz: vars[0] = n; leaves in vars[2] the total Collatz steps of 1..n. Branchy. */
extern const struct vm_program prog_collatz;

/* digits: vars[0] = n; leaves in vars[1] the sum of the decimal digit sums of 1..n.
 * Uses CALL/RET, DIV and MOD, so its handlers are warm rather than hot. */
extern const struct vm_program prog_digits;

#endif
