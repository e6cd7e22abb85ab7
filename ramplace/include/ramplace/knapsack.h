/* knapsack.h: exact 0/1 knapsack for single-region placement.
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
} rp_ks_result;

/* Solves exactly; chosen[i] is set to 1 for taken items, 0 otherwise (caller allocates n).
 * Fails with RP_ENOMEM when the dynamic programme would need more than 1 GiB. */
int rp_knapsack_solve(const rp_ks_item *items, size_t n, uint64_t capacity,
		      unsigned char *chosen, rp_ks_result *res, rp_err *err);

#endif
