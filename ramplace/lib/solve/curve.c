/* curve.c: the budget curve (curve.h): the exact knapsack solved once per budget step. Owns the
 * points it returns. Workload: up to a few thousand candidate units (tens of thousands at most)
 * and a few hundred steps; the expanding core answers each step in about a millisecond, so the
 * curve is exact at every point rather than read off one DP table (whose size grows with the
 * free RAM times the unit count). */
#include <stdlib.h>
#include <string.h>

#include "ramplace/curve.h"
#include "ramplace/util.h"

#define RP_CURVE_MAX_POINTS 100000

uint64_t rp_curve_step(uint64_t max_budget, uint64_t align, size_t max_steps)
{
	uint64_t step = align ? align : 1;
	if (max_steps == 0)
		max_steps = 1;
	while (step < (uint64_t)1 << 62 && step * max_steps < max_budget)
		step <<= 1;
	return step;
}

static int solve_point(rp_curve_point *pt, const rp_ks_item *items, size_t n, unsigned char *chosen, rp_err *err)
{
	rp_ks_result res;
	int rc = rp_knapsack_solve(items, n, pt->budget, chosen, &res, err);
	if (rc)
		return rc;
	pt->value = res.value;
	pt->bytes = res.weight;
	pt->nchosen = res.nchosen;
	return 0;
}

int rp_curve_compute(rp_curve *out, const rp_ks_item *items, size_t n, uint64_t max_budget, uint64_t step,
		     uint64_t mark, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	if (step == 0)
		return rp_err_set(err, RP_EUSAGE, "budget curve: a step of 0 bytes");
	if (mark > max_budget)
		mark = 0;
	int extra = mark && mark % step != 0;   /* mark is a point of its own */
	uint64_t npoints = max_budget / step + 1 + (max_budget % step != 0) + (uint64_t)(extra && mark != max_budget);
	if (npoints > RP_CURVE_MAX_POINTS)
		return rp_err_set(err, RP_EUSAGE, "budget curve: %llu points (a step of %llu bytes up to %llu) is over %d",
				  (unsigned long long)npoints, (unsigned long long)step, (unsigned long long)max_budget,
				  RP_CURVE_MAX_POINTS);
	out->points = calloc((size_t)npoints, sizeof(rp_curve_point));
	unsigned char *chosen = malloc(n ? n : 1);
	if (!out->points || !chosen) {
		free(chosen);
		rp_curve_release(out);
		return rp_err_nomem(err, "computing the budget curve");
	}
	out->npoints = (size_t)npoints;
	out->step = step;
	out->max_budget = max_budget;
	for (size_t i = 0; i < n; i++)
		if (rp_count_add(&out->all_value, items[i].value))
			out->all_value = UINT64_MAX;
	int rc = 0;
	size_t k = 0;
	for (uint64_t b = 0; b <= max_budget; b = b + step < b ? UINT64_MAX : b + step) {
		if (extra && mark < b && mark != max_budget)
			out->points[k++].budget = mark, extra = 0;
		out->points[k++].budget = b;
		if (max_budget - b < step)
			break;
	}
	if (extra && mark != max_budget)
		out->points[k++].budget = mark;
	if (out->points[k - 1].budget != max_budget)
		out->points[k++].budget = max_budget;
	out->npoints = k;
	for (k = 0; !rc && k < out->npoints; k++)
		rc = solve_point(&out->points[k], items, n, chosen, err);
	free(chosen);
	if (rc)
		rp_curve_release(out);
	return rc;
}

size_t rp_curve_knee(const rp_curve *c, double fraction)
{
	if (!c->npoints)
		return 0;
	double goal = fraction * (double)c->points[c->npoints - 1].value;
	for (size_t k = 0; k < c->npoints; k++)
		if ((double)c->points[k].value >= goal)
			return k;
	return c->npoints - 1;
}

size_t rp_curve_at(const rp_curve *c, uint64_t budget)
{
	size_t at = 0;
	for (size_t k = 0; k < c->npoints && c->points[k].budget <= budget; k++)
		at = k;
	return at;
}

void rp_curve_release(rp_curve *c)
{
	free(c->points);
	memset(c, 0, sizeof(*c));
}
