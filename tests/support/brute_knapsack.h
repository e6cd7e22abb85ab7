/* brute_knapsack.h: the reference answer of the knapsack tests: every subset of a small instance
 * (n <= 20), tried one by one. Too slow for anything else, and that is its worth: nothing clever
 * to be wrong in. */
#ifndef RAMPLACE_TESTS_BRUTE_KNAPSACK_H
#define RAMPLACE_TESTS_BRUTE_KNAPSACK_H
#include <stddef.h>
#include <stdint.h>
#include "ramplace/knapsack.h"

/* The best value within cap over all subsets of items[0..n), and the least weight that reaches it. */
static inline void brute_knapsack(const rp_ks_item *items, size_t n, uint64_t cap, uint64_t *best_v, uint64_t *best_w)
{
	*best_v = 0;
	*best_w = 0;
	for (uint32_t mask = 0; mask < (1u << n); mask++) {
		uint64_t v = 0, w = 0;
		for (size_t i = 0; i < n; i++)
			if (mask & (1u << i)) {
				v += items[i].value;
				w += items[i].weight;
			}
		if (w <= cap && (v > *best_v || (v == *best_v && w < *best_w))) {
			*best_v = v;
			*best_w = w;
		}
	}
}
#endif
