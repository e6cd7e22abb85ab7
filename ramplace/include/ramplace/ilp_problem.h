/* ilp_problem.h: the placement ILP's problem (items, RAM regions, static calls and weighted
 * arcs) and the value of an assignment of items to regions. It sits below both the solver
 * (ilp.h, which writes the model out) and its local search, so that neither needs the other to
 * score a solution. Owns nothing: every array stays the caller's. Workload: evaluated once per
 * heuristic pass, O(items + calls + arcs), on problems of up to tens of thousands of items. */
#ifndef RAMPLACE_ILP_PROBLEM_H
#define RAMPLACE_ILP_PROBLEM_H

#include <stdint.h>
#include <stddef.h>
#include "ramplace/error.h"

typedef struct rp_ilp_item {
	uint64_t size;
	double value;          /* samples */
	int must;              /* pinned or in a closure: must be in some region */
} rp_ilp_item;

typedef struct rp_ilp_region {
	uint64_t budget;
	double gain;           /* objective per unit of value placed here */
} rp_ilp_region;

/* A static call from item `from` to `to` (an item index, or SIZE_MAX + a flash-only callee id
 * given as to_flash): a veneer is needed in the caller's region when the callee is elsewhere. */
typedef struct rp_ilp_call {
	size_t from;
	size_t to;             /* item index, or SIZE_MAX when the callee stays in flash */
	size_t target;         /* distinct callee id (veneers are shared per callee and region) */
} rp_ilp_call;

/* A weighted arc: cycles lost when its two ends are in different locations. */
typedef struct rp_ilp_arc {
	size_t a, b;           /* items; b may be SIZE_MAX (flash-only) */
	double cycles;
} rp_ilp_arc;

typedef struct rp_ilp_problem {
	const rp_ilp_item *items;
	size_t nitems;
	const rp_ilp_region *regions;
	size_t nregions;
	const rp_ilp_call *calls;
	size_t ncalls;
	size_t ntargets;       /* distinct callee ids used in calls */
	const rp_ilp_arc *arcs;
	size_t narcs;
	uint64_t veneer_bytes; /* 0: no veneers (RISC-V) */
	double time_limit_s;
	const int *start;      /* a feasible assignment to improve on (region per item, -1 flash), or NULL */
} rp_ilp_problem;

/* Objective and veneer counts of a given assignment (checks nothing). When memory is short the
 * veneer counts stay 0; the objective is always computed. */
double rp_ilp_evaluate(const rp_ilp_problem *pb, const int *region, size_t *veneers);

/* Whether an assignment is feasible, counted from scratch: every must-item in a region and every
 * region within its budget, the veneers its calls need included. 1 yes, 0 no, -1 no memory.
 * What every answer is checked with before it leaves the solver. */
int rp_ilp_fits(const rp_ilp_problem *pb, const int *region);

/* Which veneers an assignment needs: need[r * ntargets + t] = 1 when a caller of target t sits
 * in region r and t does not (all 0 without veneers). need holds nregions * max(ntargets, 1). */
void rp_ilp_needed_veneers(const rp_ilp_problem *pb, const int *region, unsigned char *need);

/* Whether arc a's two ends are in different locations under the assignment. */
int rp_ilp_arc_crosses(const rp_ilp_problem *pb, const int *region, size_t a);

#endif
