/* test_curve.c: the budget curve (curve.h): every point is the exact optimum at its budget
 * (brute force on random small instances), the curve never falls, the plan's budget is a point
 * of its own and equals the knapsack there, the number of points and the step are what the
 * header says, and the knee is the first point with 80 % of the gain. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/curve.h"

#include "../support/brute_knapsack.h"
#include "../support/xorshift64.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint64_t rng(void)
{
	return xorshift64(&rng_state);
}

/* the best value within cap over all subsets */
static uint64_t brute_force(const rp_ks_item *items, size_t n, uint64_t cap)
{
	uint64_t best_v, best_w;
	brute_knapsack(items, n, cap, &best_v, &best_w);
	return best_v;
}

static void test_exact_and_monotone(void **state)
{
	(void)state;
	for (int round = 0; round < 200; round++) {
		size_t n = 1 + rng() % 12;
		rp_ks_item items[12];
		uint64_t all = 0;
		for (size_t i = 0; i < n; i++) {
			items[i] = (rp_ks_item){ 2 + 2 * (rng() % 200), rng() % 1000 };
			all += items[i].weight;
		}
		uint64_t max = all + rng() % 64;
		uint64_t step = rp_curve_step(max, 4, 32);
		rp_curve c;
		rp_err err = RP_ERR_INIT;
		assert_int_equal(rp_curve_compute(&c, items, n, max, step, 0, &err), 0);
		assert_true(c.npoints >= 2);
		assert_int_equal(c.points[0].budget, 0);
		assert_int_equal(c.points[c.npoints - 1].budget, max);
		for (size_t k = 0; k < c.npoints; k++) {
			assert_int_equal(c.points[k].value, brute_force(items, n, c.points[k].budget));
			assert_true(c.points[k].bytes <= c.points[k].budget);
			if (k) {
				assert_true(c.points[k].budget > c.points[k - 1].budget);
				assert_true(c.points[k].value >= c.points[k - 1].value);
			}
		}
		/* a budget where everything fits moves everything */
		assert_int_equal(c.points[c.npoints - 1].value, c.all_value);
		rp_curve_release(&c);
	}
}

static void test_mark_is_the_knapsack(void **state)
{
	(void)state;
	rp_ks_item items[40];
	for (size_t i = 0; i < 40; i++)
		items[i] = (rp_ks_item){ 4 + 2 * (rng() % 300), 1 + rng() % 5000 };
	uint64_t mark = 1026;   /* not a multiple of the step */
	rp_curve c;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_curve_compute(&c, items, 40, 4096, 64, mark, &err), 0);
	assert_int_equal(c.npoints, 4096 / 64 + 1 + 1);
	size_t at = rp_curve_at(&c, mark);
	assert_int_equal(c.points[at].budget, mark);
	assert_true(c.points[at - 1].budget < mark && c.points[at + 1].budget > mark);
	unsigned char chosen[40];
	rp_ks_result res;
	assert_int_equal(rp_knapsack_solve(items, 40, mark, chosen, &res, &err), 0);
	assert_int_equal(c.points[at].value, res.value);
	assert_int_equal(c.points[at].nchosen, res.nchosen);
	rp_curve_release(&c);
	/* a mark on a step adds no point */
	assert_int_equal(rp_curve_compute(&c, items, 40, 4096, 64, 1024, &err), 0);
	assert_int_equal(c.npoints, 4096 / 64 + 1);
	rp_curve_release(&c);
}

static void test_step_and_count(void **state)
{
	(void)state;
	assert_int_equal(rp_curve_step(32828, 4, 256), 256);
	assert_int_equal(rp_curve_step(1000, 4, 256), 4);
	assert_int_equal(rp_curve_step(0, 8, 256), 8);
	assert_int_equal(rp_curve_step(65536, 2, 256), 256);
	rp_ks_item one = { 10, 7 };
	rp_curve c;
	rp_err err = RP_ERR_INIT;
	/* 0, 256, ..., 32768 and 32828: the last is not a step */
	assert_int_equal(rp_curve_compute(&c, &one, 1, 32828, 256, 0, &err), 0);
	assert_int_equal(c.npoints, 32828 / 256 + 2);
	assert_int_equal(c.points[1].value, 7);
	rp_curve_release(&c);
	/* no items: a flat curve of zeros */
	assert_int_equal(rp_curve_compute(&c, NULL, 0, 100, 4, 0, &err), 0);
	assert_int_equal(c.npoints, 26);
	assert_int_equal(c.points[25].value, 0);
	assert_int_equal(rp_curve_knee(&c, 0.8), 0);
	rp_curve_release(&c);
	assert_int_equal(rp_curve_compute(&c, &one, 1, 100, 0, 0, &err), RP_EUSAGE);
	assert_int_equal(rp_curve_compute(&c, &one, 1, UINT64_MAX / 2, 1, 0, &err), RP_EUSAGE);
	assert_null(c.points);
}

static void test_knee(void **state)
{
	(void)state;
	/* 80 of 100 needs the 8-byte item; everything needs 20 bytes */
	rp_ks_item items[] = { { 8, 80 }, { 4, 10 }, { 8, 10 } };
	rp_curve c;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_curve_compute(&c, items, 3, 20, 4, 0, &err), 0);
	size_t k = rp_curve_knee(&c, 0.8);
	assert_int_equal(c.points[k].budget, 8);
	assert_int_equal(c.points[k].value, 80);
	assert_int_equal(c.points[c.npoints - 1].value, 100);
	rp_curve_release(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_and_monotone),
		cmocka_unit_test(test_mark_is_the_knapsack),
		cmocka_unit_test(test_step_and_count),
		cmocka_unit_test(test_knee),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
