/* curve.h: the budget curve, the value the exact knapsack saves at every RAM budget step from 0
 * to the free RAM: what `report --budget-curve`, the JSON export and the HTML report draw to
 * answer "how much RAM should I give it?".
 *
 * Each point is solved exactly (knapsack.h, the expanding core) on the same items the
 * placement's knapsack saw (placement.h: rp_placement.items, every unit at its largest size,
 * veneers included), so the curve at the plan's budget is the knapsack's answer there. The
 * optimum can only grow with the budget: every point is at least the one before it. */
#ifndef RAMPLACE_CURVE_H
#define RAMPLACE_CURVE_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"
#include "ramplace/knapsack.h"

typedef struct rp_curve_point {
	uint64_t budget;    /* bytes of RAM */
	uint64_t value;     /* samples the optimum moves at this budget */
	uint64_t bytes;     /* bytes the optimum uses (<= budget) */
	size_t nchosen;     /* units it moves */
} rp_curve_point;

typedef struct rp_curve {
	rp_curve_point *points; /* owned; budgets 0, step, 2 step, ..., max_budget, and the mark */
	size_t npoints;
	uint64_t step;
	uint64_t max_budget;
	uint64_t all_value; /* value of every item: the most any budget can move */
} rp_curve;

/* The step for a curve over [0, max_budget] with at most max_steps steps: the smallest power of
 * two that is at least align (a power of two) and max_budget / max_steps. */
uint64_t rp_curve_step(uint64_t max_budget, uint64_t align, size_t max_steps);

/* Solves the knapsack over items at budgets 0, step, 2 step, ... up to max_budget, at max_budget
 * itself, and at mark (the plan's budget; 0: none) when those are not steps, in increasing
 * order. Fails on a step of 0, more than 100,000 points, or memory. */
int rp_curve_compute(rp_curve *out, const rp_ks_item *items, size_t n, uint64_t max_budget, uint64_t step,
		     uint64_t mark, rp_err *err);

/* The first point whose value reaches fraction (0..1) of the last point's; 0 on an empty curve. */
size_t rp_curve_knee(const rp_curve *c, double fraction);

/* The point at the largest budget <= budget (the first point when none is). */
size_t rp_curve_at(const rp_curve *c, uint64_t budget);

void rp_curve_release(rp_curve *c);

#endif
