/* cfg.h: one function's control flow, built from its decoded instructions (disasm.h): basic
 * blocks and their successors, the blocks in reverse post-order from the entry, natural loops,
 * and what runs on a path from the entry that avoids given instructions. The reset-path
 * analysis (boot.h) decides "after the copy" with it by dominance, not by address order: at
 * -Os GCC lays a loop's exit test and the call after it before the loop body.
 *
 * Edges: a conditional jump goes to its target and on; an unconditional jump to its target
 * (none when it leaves the function or has no known target: a tail call, a return); an
 * instruction marked no_fallthrough ends its block with no successor; a call goes on unless
 * the caller says it never returns. Targets outside the function add no edge. Sizes: the
 * reset path's functions, a few hundred instructions; dominators are computed by the iterative
 * algorithm over reverse post-order (Cooper, Harvey and Kennedy), quadratic at worst. */
#ifndef RAMPLACE_CFG_H
#define RAMPLACE_CFG_H

#include <stddef.h>
#include "ramplace/disasm.h"
#include "ramplace/error.h"

typedef struct rp_cfg_block {
	size_t first, last;       /* instruction indices, inclusive */
	size_t succ[2];
	unsigned nsucc;
} rp_cfg_block;

typedef struct rp_cfg_loop {
	size_t header;            /* block index */
	unsigned char *body;      /* per block: 1 when in the loop (the header included) */
	size_t size;              /* blocks in the loop */
} rp_cfg_loop;

typedef struct rp_cfg {
	const rp_insn *insns;     /* borrowed */
	size_t ninsns;
	rp_cfg_block *blocks;
	size_t nblocks;
	size_t *block_of;         /* per instruction: its block */
	size_t *rpo;              /* the blocks reachable from the entry, in reverse post-order */
	size_t nrpo;
	rp_cfg_loop *loops;       /* one per loop header, its back edges' bodies merged */
	size_t nloops;
} rp_cfg;

/* Builds the graph of insns[0..n) (a function's instructions in address order, the entry
 * first). noreturn: per instruction, non-zero for a call that never returns (NULL: every call
 * returns). Fails only on memory. */
int rp_cfg_build(rp_cfg *out, const rp_insn *insns, size_t n, const unsigned char *noreturn, rp_err *err);
void rp_cfg_release(rp_cfg *c);

/* reached[i] = 1 for every instruction i that runs on some path from the entry that executes
 * no instruction i with avoid[i] set (avoid NULL: none), else 0. Fails only on memory. */
int rp_cfg_reach(const rp_cfg *c, const unsigned char *avoid, unsigned char *reached, rp_err *err);

/* The instructions control may go to right after instruction i: the next one in its block, or
 * the first of each successor block. Fills out and returns how many (0 to 2). */
unsigned rp_cfg_next(const rp_cfg *c, size_t i, size_t out[2]);

/* The innermost natural loop holding block b (the one with the fewest blocks), or NULL. */
const rp_cfg_loop *rp_cfg_loop_of(const rp_cfg *c, size_t b);

#endif
