/* ilp.h: placement as an integer linear programme solved by GLPK, for what the plain knapsack
 * cannot express: several RAM regions of different speed, items that must be in RAM (pins and
 * closures), veneer bytes for calls that cross between locations (flash and each region), and
 * the cycles those crossings cost, weighted by arc counts.
 *
 *   maximize   sum_{i,r} gain_r * value_i * x[i][r]  -  sum_a cycles_a * z_a
 *   subject to sum_r x[i][r] <= 1            (= 1 for items that must be in RAM)
 *              sum_i size_i x[i][r] + veneer_bytes * sum_t y[r][t] <= budget_r
 *              y[r][t] >= x[i][r] - x[t][r]   for every static call i -> t  (veneer in r)
 *              z_a >= x[i][r] - x[j][r], z_a >= x[j][r] - x[i][r]   for every arc a = (i, j)
 *
 * y and z are continuous in [0, 1] (integral at any optimum). A callee that is not an item
 * (stays in flash) has x = 0. The z rows are also written for flash as a location, so an item
 * split over two regions in the LP still pays a crossing to a callee in flash.
 *
 * How it is solved: local search (moves and swaps with exact byte counts) from a greedy fill and
 * from the caller's start; the LP over a core of the densest items, priced until no other item
 * could raise it; the LP rounded and improved by the same local search; reduced-cost fixing
 * against that incumbent, and what is fixed at 0 deleted with the rows it leaves slack; then
 * GLPK's branch-and-bound on what is left, its node LPs rounded and improved the same way.
 * When the time limit stops it, the best solution and its optimality gap are returned. */
#ifndef RAMPLACE_ILP_H
#define RAMPLACE_ILP_H

#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/ilp_problem.h"   /* the problem types and rp_ilp_evaluate */

typedef struct rp_ilp_result {
	int *region;           /* per item: region index or -1 (flash); caller frees */
	double objective;
	double bound;          /* best proven upper bound */
	double gap;            /* (bound - objective) / |objective|, 0 when proven optimal; +inf when the
				  time limit stopped the root LP (the answer is the best heuristic one) */
	int optimal;
	int timed_out;
	double seconds;
	double heuristic_objective; /* best value before branching (start, greedy, LP rounding, each improved by local search); -inf: none */
	double lp_bound;       /* the LP relaxation's value */
	size_t fixed;          /* binaries fixed by reduced costs before branching */
	size_t *veneers;       /* per region: veneers the solution needs; caller frees */
} rp_ilp_result;

/* Solves; RP_EINPUT when the must-items cannot fit ("infeasible" in err). */
int rp_ilp_solve(const rp_ilp_problem *pb, rp_ilp_result *res, rp_err *err);
void rp_ilp_result_release(rp_ilp_result *res);

/* The greedy heuristic alone (also the warm start): fills region[] and returns its objective,
 * or -inf when the must-items do not fit. */
double rp_ilp_greedy(const rp_ilp_problem *pb, int *region, rp_err *err);

#endif
