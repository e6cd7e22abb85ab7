/* bench_ilp.c: the call-graph placement ILP (GLPK) on a generated two-region instance: n
 * functions with firmware-like sizes and Zipf-like samples, 1-4 static calls each (veneers),
 * sampled arcs on the hot ones (crossing cycles); a fast 16 KiB region (ITCM, speed 1) and a
 * slower 64 KiB one (SRAM, speed 0.5); flash at 2 wait states, veneers 8 bytes / 4 cycles.
 * Prints the time, the final optimality gap, and the greedy warm start's value as a ratio.
 * With --one-region: a single 96 KiB region, no arcs, veneers only: the case `ramplace place`
 * hands to the ILP after the knapsack (one region on Cortex-M), started from a greedy fill.
 * With --from-optimum: once proven optimal, solved again started at that optimum, which times
 * the proof alone (no search for the solution left).
 *   bench_ilp [--one-region] [--from-optimum] [N [TIME_LIMIT_S]]      default 2000, 10 s */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ilp.h"

#include "../tests/support/xorshift64.h"

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static double uniform(void)
{
	return (double)(xorshift64(&rng_state) >> 11) / 9007199254740992.0;
}

int main(int argc, char **argv)
{
	int one_region = 0, from_optimum = 0;
	for (; argc > 1 && argv[1][0] == '-'; argc--, argv++)
		if (!strcmp(argv[1], "--one-region"))
			one_region = 1;
		else if (!strcmp(argv[1], "--from-optimum"))
			from_optimum = 1;
		else
			return fprintf(stderr, "usage: bench_ilp [--one-region] [--from-optimum] [N [TIME_LIMIT_S]]\n"), 2;
	size_t n = argc > 1 ? (size_t)atol(argv[1]) : 2000;
	double tlim = argc > 2 ? atof(argv[2]) : 10.0;
	rp_ilp_item *items = calloc(n, sizeof(*items));
	rp_ilp_call *calls = calloc(4 * n, sizeof(*calls));
	rp_ilp_arc *arcs = calloc(4 * n, sizeof(*arcs));
	size_t ncalls = 0, narcs = 0;
	for (size_t i = 0; i < n; i++) {
		uint64_t size = (uint64_t)exp(log(8.0) + uniform() * (log(4096.0) - log(8.0)));
		items[i].size = (size + 3) / 4 * 4;
		double rank = 1.0 + uniform() * (double)n;
		items[i].value = (double)(uint64_t)(1e6 / pow(rank, 1.1)) + 1;
	}
	for (size_t i = 0; i < n; i++) {
		size_t k = 1 + (size_t)(uniform() * 4);
		for (size_t j = 0; j < k; j++) {
			size_t to = (size_t)(uniform() * (double)n);
			if (to == i)
				continue;
			/* a fifth of the callees are library code that stays in flash */
			int flash = uniform() < 0.2;
			calls[ncalls++] = (rp_ilp_call){ i, flash ? SIZE_MAX : to, flash ? n + to : to };
			if (items[i].value > 2000 && uniform() < 0.5)
				arcs[narcs++] = (rp_ilp_arc){ i, flash ? SIZE_MAX : to, 4.0 * items[i].value * 0.05 };
		}
	}
	rp_ilp_region regions[2] = { { 16 * 1024, 3.0 - 1.0 }, { 64 * 1024, 3.0 - 2.0 } };
	rp_ilp_problem pb = { items, n, regions, 2, calls, ncalls, 2 * n, arcs, narcs, 8, tlim, NULL };
	int *start = NULL;
	if (one_region) {
		regions[0] = (rp_ilp_region){ 96 * 1024, 1.0 };
		pb.nregions = 1;
		pb.narcs = 0;
		start = malloc(n * sizeof(int));
		rp_err e = RP_ERR_INIT;
		if (!start || isinf(rp_ilp_greedy(&pb, start, &e)))
			return 2;
		pb.start = start;
	}
	rp_ilp_result res;
	rp_err err = RP_ERR_INIT;
	if (rp_ilp_solve(&pb, &res, &err)) {
		fprintf(stderr, "bench_ilp: %s\n", err.msg);
		return 2;
	}
	if (one_region)
		printf("ILP n=%zu (1 region of 96 KiB, %zu calls, started from a greedy fill): %s in %.2f s, gap %.4f%%; %zu veneers\n", n,
		       ncalls, res.optimal ? "optimal" : res.timed_out ? "time limit" : "stopped", res.seconds, 100.0 * res.gap,
		       res.veneers[0]);
	else
		printf("ILP n=%zu (2 regions, %zu calls, %zu arcs): %s in %.2f s, gap %.4f%% (goal: %s); veneers %zu + %zu\n", n,
		       ncalls, narcs, res.optimal ? "optimal" : res.timed_out ? "time limit" : "stopped", res.seconds,
		       100.0 * res.gap, n <= 2000 ? "optimal within 2 s" : "0.1% within 10 s", res.veneers[0], res.veneers[1]);
	printf("  objective %.0f, bound %.0f (LP %.0f); best heuristic before branching (start, greedy, LP rounding; local search) %.5f of it; %zu of %zu binaries fixed by reduced costs\n",
	       res.objective, res.bound, res.lp_bound, res.heuristic_objective / res.objective, res.fixed, pb.nregions * n);
	if (from_optimum && res.optimal) {
		pb.start = res.region;
		rp_ilp_result again;
		if (rp_ilp_solve(&pb, &again, &err)) {
			fprintf(stderr, "bench_ilp: %s\n", err.msg);
			return 2;
		}
		printf("  the same started at that optimum (the proof alone): %s in %.2f s, objective %.0f\n",
		       again.optimal ? "optimal" : again.timed_out ? "time limit" : "stopped", again.seconds, again.objective);
		rp_ilp_result_release(&again);
	}
	rp_ilp_result_release(&res);
	free(start);
	free(items);
	free(calls);
	free(arcs);
	return 0;
}
