/* knapsack.h: exact 0/1 knapsack for single-region placement.
 *
 * rp_knapsack_solve runs the expanding-core algorithm (Pisinger's minknap: a list of
 * undominated partial solutions around the greedy break item, pruned by LP bounds), which
 * proves optimality when the list empties; rp_knapsack_solve_dp is the older dynamic programme
 * over capacity after a Dembo-Hammer reduction, kept as an independent oracle and as the
 * fallback when values are too large for the core's 128-bit arithmetic.
 *
 * Maximizes the total value (samples) of chosen items whose total weight (bytes) fits the
 * capacity. Ties are broken deterministically: among optimal sets the one with the fewest
 * bytes wins, and among those the choice depends only on the item order. */
#ifndef RAMPLACE_KNAPSACK_H
#define RAMPLACE_KNAPSACK_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"

typedef struct rp_ks_item {
	uint64_t weight;
	uint64_t value;
} rp_ks_item;

typedef struct rp_ks_result {
	uint64_t value;
	uint64_t weight;
	size_t nchosen;
	int used_dp;         /* 1 when the DP answered (fallback or rp_knapsack_solve_dp) */
	size_t core_steps;   /* items the core algorithm had to enumerate */
	size_t max_states;   /* its largest list of partial solutions */
} rp_ks_result;

/* Solves exactly; chosen[i] is set to 1 for taken items, 0 otherwise (caller allocates n).
 * Fails with RP_ENOMEM when the partial solutions would need more than 1 GiB. */
int rp_knapsack_solve(const rp_ks_item *items, size_t n, uint64_t capacity,
		      unsigned char *chosen, rp_ks_result *res, rp_err *err);

/* Same answer by the reduced DP (the table needs cap/gcd x core bits, at most 1 GiB). */
int rp_knapsack_solve_dp(const rp_ks_item *items, size_t n, uint64_t capacity,
			 unsigned char *chosen, rp_ks_result *res, rp_err *err);

#endif
