/* test_ilp.c: the GLPK placement ILP against brute force (every assignment of up to 7 items to
 * flash or one of two regions) on random instances with veneers, crossing arcs and pinned
 * items; the greedy warm start is feasible; infeasible pins are explained. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <math.h>
#include <string.h>
#include <cmocka.h>

#include "ramplace/ilp.h"

static uint64_t rng_state = 0x12345678abcdefull;
static uint64_t rng(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* Whether an assignment fits every region with its veneers, and keeps every pin in RAM. */
static int feasible(const rp_ilp_problem *pb, const int *region)
{
	size_t veneers[4];
	rp_ilp_evaluate(pb, region, veneers);
	for (size_t r = 0; r < pb->nregions; r++) {
		uint64_t used = veneers[r] * pb->veneer_bytes;
		for (size_t i = 0; i < pb->nitems; i++)
			if (region[i] == (int)r)
				used += pb->items[i].size;
		if (used > pb->regions[r].budget)
			return 0;
	}
	for (size_t i = 0; i < pb->nitems; i++)
		if (pb->items[i].must && region[i] < 0)
			return 0;
	return 1;
}

static double brute(const rp_ilp_problem *pb)
{
	int region[8];
	double best = -INFINITY;
	size_t total = 1;
	for (size_t i = 0; i < pb->nitems; i++)
		total *= pb->nregions + 1;
	for (size_t code = 0; code < total; code++) {
		size_t x = code;
		for (size_t i = 0; i < pb->nitems; i++) {
			region[i] = (int)(x % (pb->nregions + 1)) - 1;
			x /= pb->nregions + 1;
		}
		if (feasible(pb, region)) {
			double v = rp_ilp_evaluate(pb, region, NULL);
			best = v > best ? v : best;
		}
	}
	return best;
}

static void test_matches_brute_force(void **state)
{
	(void)state;
	for (int round = 0; round < 150; round++) {
		size_t n = 2 + rng() % 6;
		rp_ilp_item items[8];
		rp_ilp_call calls[16];
		rp_ilp_arc arcs[8];
		size_t ncalls = 0, narcs = 0;
		for (size_t i = 0; i < n; i++)
			items[i] = (rp_ilp_item){ 4 * (1 + rng() % 12), (double)(rng() % 100), rng() % 9 == 0 };
		for (size_t k = 0; k < n; k++) {
			size_t to = rng() % (n + 2);
			if (to == k)
				continue;
			int flash = to >= n;   /* a callee that stays in flash */
			calls[ncalls++] = (rp_ilp_call){ k, flash ? SIZE_MAX : to, to };
			if (rng() % 2)
				arcs[narcs++] = (rp_ilp_arc){ k, flash ? SIZE_MAX : to, (double)(rng() % 30) };
		}
		rp_ilp_region regions[2] = { { 8 + rng() % 40, 2.0 }, { 8 + rng() % 60, 1.0 } };
		rp_ilp_problem pb = { items, n, regions, 2, calls, ncalls, n + 2, arcs, narcs, rng() % 2 ? 8 : 0, 5.0 };
		double want = brute(&pb);
		rp_ilp_result res;
		rp_err err = RP_ERR_INIT;
		int rc = rp_ilp_solve(&pb, &res, &err);
		if (isinf(want)) {
			assert_int_equal(rc, RP_EINPUT);
			assert_non_null(strstr(err.msg, "infeasible"));
			continue;
		}
		assert_int_equal(rc, 0);
		assert_true(res.optimal);
		assert_true(feasible(&pb, res.region));
		assert_true(fabs(res.objective - want) < 1e-6);
		int warm[8];
		double g = rp_ilp_greedy(&pb, warm, &err);
		if (!isinf(g))
			assert_true(feasible(&pb, warm) && g <= want + 1e-6);
		rp_ilp_result_release(&res);
	}
}

static void test_infeasible_pins(void **state)
{
	(void)state;
	rp_ilp_item items[2] = { { 64, 10, 1 }, { 64, 10, 1 } };
	rp_ilp_region regions[1] = { { 100, 1.0 } };
	rp_ilp_problem pb = { items, 2, regions, 1, NULL, 0, 0, NULL, 0, 0, 5.0 };
	rp_ilp_result res;
	rp_err err = RP_ERR_INIT;
	assert_int_equal(rp_ilp_solve(&pb, &res, &err), RP_EINPUT);
	assert_string_equal(err.msg, "infeasible: the 2 pinned/closure units need 128 bytes, the regions hold 100 (over by 28)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_matches_brute_force),
		cmocka_unit_test(test_infeasible_pins),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
