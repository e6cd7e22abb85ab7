/* test_knapsack.c: the exact knapsack against brute force on many random small instances, the
 * deterministic tie-break, and edge cases (nothing fits, everything fits, zero values). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/knapsack.h"

#include "../support/brute_knapsack.h"
#include "../support/xorshift64.h"

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint64_t rng(void)
{
	return xorshift64(&rng_state);
}

static void test_matches_brute_force(void **state)
{
	(void)state;
	for (int round = 0; round < 3000; round++) {
		size_t n = 1 + rng() % 14;
		rp_ks_item items[14];
		/* round-to-4 weights like real function sizes, some zero values, some big items */
		for (size_t i = 0; i < n; i++) {
			items[i].weight = 4 * (1 + rng() % 40);
			items[i].value = rng() % 5 == 0 ? 0 : rng() % 1000;
		}
		uint64_t cap = rng() % 400;
		unsigned char chosen[14];
		rp_ks_result res;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_knapsack_solve(items, n, cap, chosen, &res, &err), 0);
		uint64_t bv, bw, v = 0, w = 0;
		brute_knapsack(items, n, cap, &bv, &bw);
		for (size_t i = 0; i < n; i++)
			if (chosen[i]) {
				v += items[i].value;
				w += items[i].weight;
			}
		assert_true(w <= cap);
		assert_int_equal(v, bv);
		assert_int_equal(w, bw);
		assert_int_equal(res.value, v);
		assert_int_equal(res.weight, w);
	}
}

static void test_odd_weights(void **state)
{
	(void)state;
	for (int round = 0; round < 1000; round++) {
		size_t n = 1 + rng() % 12;
		rp_ks_item items[12];
		for (size_t i = 0; i < n; i++) {
			items[i].weight = rng() % 50;   /* includes zero and odd sizes */
			items[i].value = rng() % 100;
		}
		uint64_t cap = rng() % 200, bv, bw;
		unsigned char chosen[12];
		rp_ks_result res;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_knapsack_solve(items, n, cap, chosen, &res, &err), 0);
		brute_knapsack(items, n, cap, &bv, &bw);
		assert_int_equal(res.value, bv);
		assert_int_equal(res.weight, bw);
	}
}

static void test_deterministic_ties(void **state)
{
	(void)state;
	/* four equal items, room for two: same answer every time, and fewest bytes for equal value */
	rp_ks_item items[] = { { 8, 10 }, { 8, 10 }, { 8, 10 }, { 8, 10 }, { 12, 20 } };
	unsigned char first[5], again[5];
	rp_ks_result res;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_knapsack_solve(items, 5, 16, first, &res, &err), 0);
	assert_int_equal(res.value, 20);
	assert_int_equal(res.weight, 12);   /* the single 12-byte item beats two 8-byte ones */
	assert_int_equal(first[4], 1);
	for (int k = 0; k < 10; k++) {
		assert_int_equal(rp_knapsack_solve(items, 5, 16, again, &res, &err), 0);
		assert_memory_equal(first, again, sizeof(first));
	}
}

/* Pisinger's hard classes (strongly correlated, subset-sum, spanner): the core algorithm and
 * the reduced DP, two independent exact methods, must agree on value and weight. */
static void test_hard_classes_match_dp(void **state)
{
	(void)state;
	enum { N = 300 };
	static rp_ks_item items[N];
	static unsigned char a[N], b[N];
	for (int round = 0; round < 60; round++) {
		int cls = round % 3;
		uint64_t r = 50 + rng() % 500, sum = 0;
		rp_ks_item span[2];
		for (int k = 0; k < 2; k++) {
			span[k].weight = 1 + rng() % r;
			span[k].value = span[k].weight + r / 10;
		}
		for (size_t i = 0; i < N; i++) {
			if (cls == 2) {
				uint64_t m = 1 + rng() % 10;
				items[i].weight = m * span[i % 2].weight;
				items[i].value = m * span[i % 2].value;
			} else {
				items[i].weight = 1 + rng() % r;
				items[i].value = cls == 0 ? items[i].weight + r / 10 : items[i].weight;
			}
			sum += items[i].weight;
		}
		uint64_t cap = sum * (1 + rng() % 9) / 10;
		rp_ks_result x, y;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_knapsack_solve(items, N, cap, a, &x, &err), 0);
		assert_int_equal(rp_knapsack_solve_dp(items, N, cap, b, &y, &err), 0);
		assert_int_equal(x.used_dp, 0);
		assert_int_equal(x.value, y.value);
		assert_int_equal(x.weight, y.weight);
		assert_true(x.weight <= cap);
	}
}

/* Values too large for the core's 128-bit bounds go to the DP, which still answers. */
static void test_huge_values_fall_back(void **state)
{
	(void)state;
	rp_ks_item items[5];
	for (int i = 0; i < 5; i++)
		items[i] = (rp_ks_item){ 8, (1ull << 62) + (uint64_t)i };   /* sum over 2^64 */
	unsigned char chosen[5];
	rp_ks_result res;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_knapsack_solve(items, 5, 16, chosen, &res, &err), 0);
	assert_int_equal(res.used_dp, 1);
	assert_int_equal(chosen[3] + chosen[4], 2);
	assert_int_equal(res.value, (1ull << 63) + 7);
}

static void test_edges(void **state)
{
	(void)state;
	rp_ks_item items[] = { { 100, 5 }, { 4, 0 }, { 8, 3 } };
	unsigned char chosen[3];
	rp_ks_result res;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_knapsack_solve(items, 3, 0, chosen, &res, &err), 0);
	assert_int_equal(res.nchosen, 0);
	assert_int_equal(rp_knapsack_solve(items, 3, 1000, chosen, &res, &err), 0);
	assert_int_equal(res.value, 8);
	assert_int_equal(chosen[1], 0);   /* no value: never moved */
	assert_int_equal(rp_knapsack_solve(NULL, 0, 1000, chosen, &res, &err), 0);
	assert_int_equal(res.nchosen, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_brute_force),
		cmocka_unit_test(test_odd_weights),
		cmocka_unit_test(test_deterministic_ties),
		cmocka_unit_test(test_hard_classes_match_dp),
		cmocka_unit_test(test_huge_values_fall_back),
		cmocka_unit_test(test_edges),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
