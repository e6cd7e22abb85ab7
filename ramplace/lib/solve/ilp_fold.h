/* ilp_fold.h: the placement ILP made smaller before GLPK sees it, without changing its optimum
 * (ilp_fold.c). Internal to the solver (ilp.c). */
#ifndef RAMPLACE_ILP_FOLD_H
#define RAMPLACE_ILP_FOLD_H

#include "ramplace/ilp_problem.h"

typedef struct rp_ilp_folded {
	rp_ilp_problem pb;      /* the problem to solve: the caller's, or one over the arrays below */
	rp_ilp_item *items;     /* owned: the items, each lone veneer added to its caller's size */
	rp_ilp_call *calls;     /* owned: the calls to shared or placeable callees, targets renumbered */
	size_t nfolded;         /* veneers folded into their callers */
} rp_ilp_folded;

/* Folds every veneer that only one item can need (a callee that stays in flash, called from
 * that item alone) into that item's size. Its y >= x row then says y = x at every optimum (y
 * costs room and gains nothing), so the item's size with the veneer is the same model with one
 * row and one column fewer per such callee. Unfolded problems (no veneers, nothing to fold)
 * are the caller's own. The folded problem's veneer counts miss the folded ones: count them on
 * the original. */
int rp_ilp_fold(const rp_ilp_problem *pb, rp_ilp_folded *out, rp_err *err);
void rp_ilp_folded_release(rp_ilp_folded *f);

#endif
