/* knapsack_core.h: private interface of the expanding-core knapsack (knapsack_core.c) used by
 * knapsack.c. Not installed. */
#ifndef RAMPLACE_KNAPSACK_CORE_H
#define RAMPLACE_KNAPSACK_CORE_H

#include <stddef.h>
#include <stdint.h>
#include "ramplace/knapsack.h"

/* returned when the 128-bit bound arithmetic could overflow: use the DP instead */
#define RP_KS_CORE_OVERFLOW 1

typedef struct rp_ks_core_stats {
	size_t layers;      /* core steps taken (items the bounds could not decide) */
	size_t max_states;  /* largest list of undominated partial solutions */
	size_t history;     /* decisions kept to rebuild the answer */
} rp_ks_core_stats;

/* Solves over the candidates cand[0..ncand) (value > 0, 0 < weight <= capacity, total weight
 * over capacity); sets chosen[idx] for them only. Returns 0, RP_KS_CORE_OVERFLOW, RP_ENOMEM. */
/* Greatest common divisor (gcd(a, 0) = a): the unit both solvers scale weights by. */
uint64_t rp_ks_gcd64(uint64_t a, uint64_t b);

int rp_ks_core_solve(const rp_ks_item *items, const size_t *cand, size_t ncand, uint64_t capacity,
		     unsigned char *chosen, rp_ks_core_stats *stats, rp_err *err);

#endif
