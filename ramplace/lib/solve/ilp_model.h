/* ilp_model.h: private interface of the placement ILP's GLPK model (ilp_model.c), used by the
 * solve driver ilp.c: where each variable's column is, the fixed rows, the core of items the LP
 * carries and its pricing, and a warm basis from an assignment. The model is written out in
 * ilp.h. Not installed. */
#ifndef RAMPLACE_ILP_MODEL_H
#define RAMPLACE_ILP_MODEL_H

#include <glpk.h>
#include <stddef.h>
#include "ramplace/ilp_problem.h"
#include "ilp_search.h"

/* Column layout: x[i][r] for each item and region, then y[r][t] per region and callee target
 * (only with veneers), then z[a] per arc. */
typedef struct rp_ilp_cols {
	size_t R, T, n;
	int x0, y0, z0, ncols;   /* first column of each block (1-based) */
	int *now;                /* ncols + 1: where column j is in the LP since shrink_for_branching
				    deleted some (0: deleted, its value is 0); the identity before */
} rp_ilp_cols;

/* The layout for pb, with now[] the identity; now is NULL when memory is short (the caller
 * checks). Release frees now. */
void rp_ilp_cols_init(rp_ilp_cols *c, const rp_ilp_problem *pb);
void rp_ilp_cols_release(rp_ilp_cols *c);

static inline int rp_ilp_xcol(const rp_ilp_cols *c, size_t i, size_t r) { return c->x0 + (int)(i * c->R + r); }
static inline int rp_ilp_ycol(const rp_ilp_cols *c, size_t r, size_t t) { return c->y0 + (int)(r * c->T + t); }
static inline int rp_ilp_zcol(const rp_ilp_cols *c, size_t a) { return c->z0 + (int)a; }

/* The value of x[i][r] in the LP (mip: in GLPK's integer solution). */
static inline double rp_ilp_x_value(glp_prob *lp, const rp_ilp_cols *c, size_t i, size_t r, int mip)
{
	int j = c->now[rp_ilp_xcol(c, i, r)];
	return j == 0 ? 0.0 : mip ? glp_mip_col_val(lp, j) : glp_get_col_prim(lp, j);
}

/* Column values of an assignment: x from it, y and z as the rows force them. x holds
 * ncols + 1 (1-based). When memory is short the y stay 0. */
void rp_ilp_assignment_columns(const rp_ilp_problem *pb, const rp_ilp_cols *c, const int *region, double *x);

/* The GLPK model. Items outside the core have their x fixed at 0 and no veneer rows: most
 * functions of a firmware are far too cold to be placed, and the rows of their calls are most of
 * the LP. Pricing brings in any whose reduced cost says the LP would use it, so the LP optimum
 * is the full model's. The caller creates lp and in_core (nitems bytes, zeroed). */
typedef struct rp_ilp_model {
	glp_prob *lp;
	const rp_ilp_problem *pb;
	const rp_ilp_cols *c;
	const rp_ils *search;    /* the calls of each item, the density order */
	unsigned char *in_core;
	size_t ncore;
	int rows;
} rp_ilp_model;

/* Columns, objective, the rows every item has (one region at most, capacity, arcs) and the first
 * core. Returns 0 or RP_ENOMEM (the lp is then partly built; delete it). */
int rp_ilp_model_build(rp_ilp_model *md, rp_err *err);

/* Adds to the core every item outside it whose reduced cost (in the LP just solved, of value
 * zlp) is positive in some region, or (keep_above finite) could bring the LP bound up to
 * keep_above. Returns how many. */
size_t rp_ilp_model_price(rp_ilp_model *md, double zlp, double keep_above);

/* Brings the assignment's items into the core and sets the basis at it. When memory is short
 * the LP keeps the basis it had. */
void rp_ilp_model_warm_basis(rp_ilp_model *md, const int *region);

#endif
