/* ilp.c: the placement ILP's solve driver (see ilp.h). Owns one solve: the GLPK problem's life,
 * the incumbent, the order of the heuristics and the LPs, reduced-cost fixing, the shrinking of
 * the model before branching, and GLPK's branching callback. The model itself (columns, rows,
 * the core of items and its pricing) is ilp_model.c; the local search is ilp_search.c; the
 * value of an assignment is ilp_problem.c. Workload: up to tens of thousands of items, two or
 * three regions, a few call edges per item. The LP relaxation is nearly integral (a handful of
 * fractional items and veneers), so the bound is good from the root; what GLPK's own search
 * lacks is a good incumbent, which the local search supplies, and speed, which the core (the
 * LP never carries the veneer rows of items too cold to place) supplies. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ilp.h"
#include "ramplace/util.h"
#include "ilp_fold.h"
#include "ilp_model.h"
#include "ilp_search.h"

double rp_ilp_greedy(const rp_ilp_problem *pb, int *region, rp_err *err)
{
	rp_ils *s = rp_ils_new(pb, err);
	if (!s)
		return -INFINITY;
	double obj = rp_ils_greedy(s, NULL);
	memcpy(region, rp_ils_region(s), pb->nitems * sizeof(int));
	rp_ils_free(s);
	return obj;
}

/* The incumbent and the heuristics that improve it, shared with GLPK's callback. */
typedef struct incumbent {
	const rp_ilp_problem *pb;
	const rp_ilp_cols *c;
	rp_ils *search;
	int *best;               /* assignment of the best solution known */
	int *rounded;            /* work: an LP solution rounded */
	double best_obj;         /* -inf: none yet */
	int given;               /* GLPK has best */
	double deadline;
	double gap, bound;
	int have_gap;
	double branching_since, heur_seconds;   /* the node heuristic's share of branching */
} incumbent;

/* Keeps the search's state as the incumbent when it is feasible and better. */
static void offer(incumbent *inc)
{
	double obj = rp_ils_objective(inc->search);
	if (!rp_ils_feasible(inc->search) || obj <= inc->best_obj + 1e-9 * fabs(inc->best_obj))
		return;
	memcpy(inc->best, rp_ils_region(inc->search), inc->pb->nitems * sizeof(int));
	inc->best_obj = obj;
	inc->given = 0;
}

/* Rounds an LP solution (x > 1/2 keeps its region), repairs and fills it greedily, then
 * improves it by local search until `until`. */
static void round_and_improve(incumbent *inc, glp_prob *lp, double until)
{
	const rp_ilp_problem *pb = inc->pb;
	for (size_t i = 0; i < pb->nitems; i++) {
		inc->rounded[i] = -1;
		for (size_t r = 0; r < pb->nregions; r++)
			if (rp_ilp_x_value(lp, inc->c, i, r, 0) > 0.5)
				inc->rounded[i] = (int)r;
	}
	if (isinf(rp_ils_greedy(inc->search, inc->rounded)))
		return;
	rp_ils_improve(inc->search, until < inc->deadline ? until : inc->deadline);
	offer(inc);
}

/* One region is a knapsack with veneers: what keeps its bound from the incumbent is the few
 * largest items the LP takes in part (a unit of a thousand same-named statics, without a map),
 * and deciding them first leaves subproblems whose LPs are nearly integral. GLPK's own choice
 * (Driebeck-Tomlin) goes by the objective's change at one pivot, which a large item hides. */
static void branch_on_largest(glp_tree *tree, const incumbent *inc)
{
	glp_prob *lp = glp_ios_get_prob(tree);
	uint64_t largest = 0;
	int pick = 0;
	for (size_t i = 0; i < inc->pb->nitems; i++) {
		int j = inc->c->now[rp_ilp_xcol(inc->c, i, 0)];
		if (j && inc->pb->items[i].size > largest && glp_ios_can_branch(tree, j)) {
			largest = inc->pb->items[i].size;
			pick = j;
		}
	}
	if (pick)
		glp_ios_branch_upon(tree, pick, glp_get_col_prim(lp, pick) >= 0.5 ? GLP_UP_BRNCH : GLP_DN_BRNCH);
}

static void callback(glp_tree *tree, void *info)
{
	incumbent *inc = info;
	int reason = glp_ios_reason(tree);
	if (reason == GLP_IHEUR) {
		/* A tenth of the branching time at most: most node LPs round to what the search has
		 * seen already, and the proof needs the nodes (n = 2,000: 36 s to optimal instead
		 * of 87 s with 20 ms at every node). */
		double now = rp_ils_now();
		if (inc->heur_seconds <= 0.1 * (now - inc->branching_since)) {
			round_and_improve(inc, glp_ios_get_prob(tree), now + 0.005);
			inc->heur_seconds += rp_ils_now() - now;
		}
		if (!isinf(inc->best_obj) && !inc->given) {
			double *x = malloc((size_t)(inc->c->ncols + 1) * sizeof(double));
			if (x) {
				rp_ilp_assignment_columns(inc->pb, inc->c, inc->best, x);
				int lost = 0;   /* a deleted column at 1: GLPK cannot hold this solution */
				for (int j = 1; j <= inc->c->ncols; j++)   /* into the LP's numbering */
					if (inc->c->now[j])
						x[inc->c->now[j]] = x[j];
					else
						lost |= x[j] != 0;
				/* GLPK takes a heuristic solution on trust (it checks integrality, not rows) */
				if (!lost && rp_ilp_fits(inc->pb, inc->best) == 1)
					glp_ios_heur_sol(tree, x);
				free(x);
			}
			inc->given = 1;
		}
	}
	if (reason == GLP_IBRANCH && inc->pb->nregions == 1)
		branch_on_largest(tree, inc);
	if (reason == GLP_ISELECT || reason == GLP_IBINGO || reason == GLP_IHEUR) {
		int best = glp_ios_best_node(tree);
		if (best) {
			inc->bound = glp_ios_node_bound(tree, best);
			inc->gap = glp_ios_mip_gap(tree);
			inc->have_gap = 1;
		}
	}
}

static int explain_infeasible(const rp_ilp_problem *pb, rp_err *err)
{
	uint64_t must = 0, room = 0;
	size_t nmust = 0;
	for (size_t i = 0; i < pb->nitems; i++)
		if (pb->items[i].must) {
			must += pb->items[i].size;
			nmust++;
		}
	for (size_t r = 0; r < pb->nregions; r++)
		room += pb->regions[r].budget;
	if (must > room)
		return rp_err_set(err, RP_EINPUT, "infeasible: the %zu pinned/closure units need %llu bytes, the regions hold %llu (over by %llu)",
				  nmust, (unsigned long long)must, (unsigned long long)room, (unsigned long long)(must - room));
	return rp_err_set(err, RP_EINPUT, "infeasible: the %zu pinned/closure units (%llu bytes) cannot be split over the regions with their veneers",
			  nmust, (unsigned long long)must);
}

/* Reduced-cost fixing: a binary at 0 in the LP optimum whose reduced cost d says that setting
 * it to 1 bounds the objective below the incumbent can be fixed to 0 (at 1: to 1). Returns how
 * many were fixed. Every optimum better than the incumbent keeps these values. */
static size_t fix_by_reduced_cost(glp_prob *lp, const rp_ilp_problem *pb, const rp_ilp_cols *c, double zlp, double zinc)
{
	size_t fixed = 0;
	double eps = 1e-6 * (fabs(zinc) > 1 ? fabs(zinc) : 1);
	for (size_t i = 0; i < pb->nitems; i++)
		for (size_t r = 0; r < pb->nregions; r++) {
			int j = rp_ilp_xcol(c, i, r), st = glp_get_col_stat(lp, j);
			double d = glp_get_col_dual(lp, j);
			if (st == GLP_NL && zlp + d < zinc - eps) {
				glp_set_col_bnds(lp, j, GLP_FX, 0.0, 0.0);
				fixed++;
			} else if (st == GLP_NU && zlp - d < zinc - eps) {
				glp_set_col_bnds(lp, j, GLP_FX, 1.0, 1.0);
				fixed++;
			}
		}
	return fixed;
}

#define LP_TIMED_OUT 1   /* solve_root: the time limit stopped the LP (err not set; error codes are negative) */

static int solve_root(glp_prob *lp, const incumbent *inc, rp_err *err)
{
	const rp_ilp_problem *pb = inc->pb;
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_OFF;
	double left = inc->deadline - rp_ils_now();
	sm.tm_lim = left > 0.001 ? (int)(left * 1000) : 1;
	int rc = glp_simplex(lp, &sm);
	if (rc == GLP_ETMLIM)
		return LP_TIMED_OUT;
	if (rc == 0 && glp_get_status(lp) == GLP_NOFEAS)
		return explain_infeasible(pb, err);
	if (rc != 0 || glp_get_status(lp) != GLP_OPT)
		return rp_err_set(err, RP_EIO, "GLPK: the LP relaxation failed (glp_simplex code %d)", rc);
	return 0;
}

static int branch_and_bound(glp_prob *lp, incumbent *inc, rp_ilp_result *res, rp_err *err)
{
	const rp_ilp_problem *pb = inc->pb;
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.presolve = GLP_OFF;
	/* Cuts pay on two or more regions (bench_ilp 2000: a gap of 0.0016 % at the time limit
	 * instead of 0.0062 %); on one they only slow each node (bench_scale's 200,000 functions
	 * without a map: proven in 1.1 s of branching without them, 6.3 s with) */
	io.cov_cuts = io.mir_cuts = pb->nregions > 1 ? GLP_ON : GLP_OFF;
	io.br_tech = GLP_BR_DTH;
	io.bt_tech = GLP_BT_BPH;
	double left = inc->deadline - rp_ils_now();
	io.tm_lim = left > 0.001 ? (int)(left * 1000) : 1;
	io.cb_func = callback;
	io.cb_info = inc;
	inc->branching_since = rp_ils_now();
	int rc = glp_intopt(lp, &io), st = glp_mip_status(lp);
	res->timed_out = rc == GLP_ETMLIM;
	if (st == GLP_NOFEAS)
		return explain_infeasible(pb, err);
	if (rc != 0 && rc != GLP_ETMLIM && rc != GLP_EMIPGAP)
		return rp_err_set(err, RP_EIO, "GLPK: branch-and-bound failed (glp_intopt code %d)", rc);
	res->optimal = st == GLP_OPT && rc == 0;
	if (st == GLP_OPT || st == GLP_FEAS) {
		for (size_t i = 0; i < pb->nitems; i++) {
			res->region[i] = -1;
			for (size_t r = 0; r < pb->nregions; r++)
				if (rp_ilp_x_value(lp, inc->c, i, r, 1) > 0.5)
					res->region[i] = (int)r;
		}
		/* the search may have found better after GLPK last took its solution; GLPK cannot
		 * have proven optimal what a known solution beats */
		double glpk_obj = rp_ilp_evaluate(pb, res->region, NULL);
		if (inc->best_obj > glpk_obj + 1e-9 * (fabs(glpk_obj) > 1 ? fabs(glpk_obj) : 1)) {
			memcpy(res->region, inc->best, pb->nitems * sizeof(int));
			res->optimal = 0;
		}
	} else if (!isinf(inc->best_obj)) {
		memcpy(res->region, inc->best, pb->nitems * sizeof(int));
	} else {
		return rp_err_set(err, RP_EIO, "GLPK: no solution within the %.1f s time limit", pb->time_limit_s);
	}
	return 0;
}

/* The LP over the core, priced until no item outside it could raise the LP value (or, with
 * keep_above finite, reach keep_above): then it is the full model's LP. */
static int solve_core_lp(rp_ilp_model *md, const incumbent *inc, double keep_above, rp_err *err)
{
	int rc;
	do {
		if ((rc = solve_root(md->lp, inc, err)))
			return rc;
	} while (rp_ilp_model_price(md, glp_get_obj_val(md->lp), keep_above));
	return 0;
}

/* The time limit stopped an LP: the answer is the best heuristic solution, against `bound`
 * (infinite when the root LP itself did not finish: no gap is known). */
static int stop_with_incumbent(const incumbent *inc, rp_ilp_result *res, double bound, rp_err *err)
{
	if (isinf(inc->best_obj))
		return rp_err_set(err, RP_EIO, "GLPK: no solution within the %.1f s time limit", inc->pb->time_limit_s);
	memcpy(res->region, inc->best, inc->pb->nitems * sizeof(int));
	res->objective = rp_ilp_evaluate(inc->pb, res->region, res->veneers);
	res->timed_out = 1;
	res->heuristic_objective = inc->best_obj;
	res->bound = bound;
	res->lp_bound = bound;
	res->gap = isinf(bound) ? INFINITY : (bound - res->objective) / (fabs(res->objective) > 1e-9 ? fabs(res->objective) : 1.0);
	return 0;
}

/* Whether a row can no longer bind: a >= 0 row in which nothing left has a negative coefficient
 * (every column is >= 0), or a row left empty whose bounds hold 0. */
static int row_is_slack(glp_prob *lp, int i, const unsigned char *gone, int *ind, double *val)
{
	int len = glp_get_mat_row(lp, i, ind, val), live = 0, negative = 0;
	for (int k = 1; k <= len; k++)
		if (!gone[ind[k]]) {
			live++;
			negative += val[k] < 0;
		}
	int type = glp_get_row_type(lp, i);
	double lb = glp_get_row_lb(lp, i), ub = glp_get_row_ub(lp, i);
	if (type == GLP_LO && lb <= 0 && !negative)
		return 1;
	return !live && (type == GLP_FR || type == GLP_LO ? lb <= 0 : type == GLP_UP ? ub >= 0 : lb <= 0 && ub >= 0);
}

/* Whether a continuous column at 0 stays 0 in every LP: raising it gains nothing and only uses
 * up <= rows or helps no >= row. */
static int col_stays_zero(glp_prob *lp, int j, int *ind, double *val)
{
	if (glp_get_col_kind(lp, j) != GLP_CV || glp_get_col_stat(lp, j) != GLP_NL || glp_get_col_lb(lp, j) != 0 ||
	    glp_get_obj_coef(lp, j) > 0)
		return 0;
	int len = glp_get_mat_col(lp, j, ind, val);
	for (int k = 1; k <= len; k++) {
		int type = glp_get_row_type(lp, ind[k]);
		if (!(type == GLP_UP && val[k] >= 0) && !(type == GLP_LO && val[k] <= 0))
			return 0;
	}
	return 1;
}

/* Branching needs only the free part of the model: binaries fixed at 0 (outside the core, or by
 * reduced costs) go, with the rows that cannot bind without them and the veneer and crossing
 * columns those rows leave at 0. GLPK's time per node halves (n = 2,000, heuristics off: 20 s
 * to the proof instead of 46 s). Only basic rows and nonbasic columns go, so the basis stays
 * valid; c->now maps the columns. Nothing is deleted when memory is short. */
static void shrink_for_branching(rp_ilp_model *md)
{
	glp_prob *lp = md->lp;
	const rp_ilp_cols *c = md->c;
	int nrows = glp_get_num_rows(lp), ncols = glp_get_num_cols(lp), most = nrows > ncols ? nrows : ncols;
	int *del = malloc((size_t)(most + 1) * sizeof(int)), *ind = malloc((size_t)(most + 1) * sizeof(int));
	double *val = malloc((size_t)(most + 1) * sizeof(double));
	unsigned char *gone = calloc((size_t)ncols + 1, 1);
	if (!del || !ind || !val || !gone)
		goto out;
	for (int j = c->x0; j < c->y0; j++)
		gone[j] = glp_get_col_type(lp, j) == GLP_FX && glp_get_col_ub(lp, j) < 0.5 && glp_get_col_stat(lp, j) != GLP_BS;
	int ndel = 0;
	for (int i = 1; i <= nrows; i++)
		if (glp_get_row_stat(lp, i) == GLP_BS && row_is_slack(lp, i, gone, ind, val))
			del[++ndel] = i;
	if (ndel)
		glp_del_rows(lp, ndel, del);
	ndel = 0;
	for (int j = 1; j <= ncols; j++)
		if (gone[j] || col_stays_zero(lp, j, ind, val))
			del[++ndel] = j;
	if (ndel)
		glp_del_cols(lp, ndel, del);
	for (int j = 1, k = 1, next = 1; j <= ncols; j++)   /* del[] is ascending */
		c->now[j] = k <= ndel && del[k] == j ? (k++, 0) : next++;
out:
	free(del);
	free(ind);
	free(val);
	free(gone);
}

/* The heuristics first (greedy, then local search; the LP's rounding, then local search), so
 * that reduced costs can fix most binaries before GLPK branches on the rest. */
static int solve_mip(rp_ilp_model *md, incumbent *inc, rp_ilp_result *res, double t0, rp_err *err)
{
	const rp_ilp_problem *pb = inc->pb;
	double heur_until = t0 + 0.05 * pb->time_limit_s;
	if (pb->start) {
		rp_ils_load(inc->search, pb->start);
		rp_ils_improve(inc->search, heur_until);
		offer(inc);
	}
	if (!isinf(rp_ils_greedy(inc->search, NULL))) {
		rp_ils_improve(inc->search, heur_until);
		offer(inc);
	}
	if (!isinf(inc->best_obj))
		rp_ilp_model_warm_basis(md, inc->best);
	int rc = solve_core_lp(md, inc, INFINITY, err);
	if (rc == LP_TIMED_OUT)
		return stop_with_incumbent(inc, res, INFINITY, err);
	if (rc)
		return rc;
	double zlp = glp_get_obj_val(md->lp);
	heur_until = t0 + 0.25 * pb->time_limit_s;
	round_and_improve(inc, md->lp, heur_until > rp_ils_now() + 0.05 ? heur_until : rp_ils_now() + 0.05);
	res->heuristic_objective = inc->best_obj;
	res->lp_bound = zlp;
	if (!isinf(inc->best_obj)) {
		double eps = 1e-6 * (fabs(inc->best_obj) > 1 ? fabs(inc->best_obj) : 1);
		if (rp_ilp_model_price(md, zlp, inc->best_obj - eps))
			rc = solve_core_lp(md, inc, inc->best_obj - eps, err);
		res->fixed = rc ? 0 : fix_by_reduced_cost(md->lp, pb, inc->c, zlp, inc->best_obj);
		if (!rc && res->fixed)
			rc = solve_root(md->lp, inc, err);
		if (rc == LP_TIMED_OUT)
			return stop_with_incumbent(inc, res, zlp, err);
		if (rc)
			return rc;
	} else if (rp_ilp_model_price(md, zlp, -INFINITY)) {
		/* no incumbent to price against: outside the core, an item's reduced cost only says
		 * the LP would not use it, not that no integer optimum does; branch on every item */
		rc = solve_core_lp(md, inc, -INFINITY, err);
		if (rc == LP_TIMED_OUT)
			return stop_with_incumbent(inc, res, zlp, err);
		if (rc)
			return rc;
	}
	res->fixed += (pb->nitems - md->ncore) * pb->nregions;
	if (!isinf(inc->best_obj)) {
		/* only against an incumbent were the items outside the core priced: without one,
		 * an optimum may still need them */
		shrink_for_branching(md);
		rc = solve_root(md->lp, inc, err);   /* the deletions leave the factorization invalid */
		if (rc == LP_TIMED_OUT)
			return stop_with_incumbent(inc, res, zlp, err);
	}
	if (rc || (rc = branch_and_bound(md->lp, inc, res, err)))
		return rc;
	res->objective = rp_ilp_evaluate(pb, res->region, res->veneers);
	res->bound = zlp;
	if (!res->optimal && inc->have_gap && inc->bound < res->bound)
		res->bound = inc->bound;
	if (res->optimal || res->bound < res->objective)
		res->bound = res->objective;
	res->gap = (res->bound - res->objective) / (fabs(res->objective) > 1e-9 ? fabs(res->objective) : 1.0);
	return 0;
}

/* No answer leaves the solver unless it fits, counted from scratch: whatever produced it (GLPK,
 * a heuristic handed to it, a deleted column), an answer over a budget is replaced by the best
 * incumbent that fits (no longer called optimal), or is an error, never a plan. */
static int keep_within_budgets(const incumbent *inc, rp_ilp_result *res, rp_err *err)
{
	const rp_ilp_problem *pb = inc->pb;
	int fits = rp_ilp_fits(pb, res->region);
	if (fits == 1)
		return 0;
	if (fits < 0)
		return rp_err_nomem(err, "checking the ILP's answer");
	if (isinf(inc->best_obj) || rp_ilp_fits(pb, inc->best) != 1)
		return rp_err_set(err, RP_EIO, "ILP: the solver's answer exceeds a budget and no checked answer is known (a bug: please report it)");
	memcpy(res->region, inc->best, pb->nitems * sizeof(int));
	res->objective = rp_ilp_evaluate(pb, res->region, res->veneers);
	res->optimal = 0;
	if (res->bound < res->objective)
		res->bound = res->objective;
	res->gap = (res->bound - res->objective) / (fabs(res->objective) > 1e-9 ? fabs(res->objective) : 1.0);
	return 0;
}

static int solve_problem(const rp_ilp_problem *pb, rp_ilp_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	double t0 = rp_ils_now();
	size_t n = pb->nitems, R = pb->nregions;
	rp_ilp_cols c;
	rp_ilp_cols_init(&c, pb);
	incumbent inc = { pb, &c, rp_ils_new(pb, err), malloc((n ? n : 1) * sizeof(int)), malloc((n ? n : 1) * sizeof(int)),
			  -INFINITY, 0, t0 + pb->time_limit_s, 0, 0, 0, 0, 0 };
	rp_ilp_model md = { NULL, pb, &c, inc.search, calloc(n ? n : 1, 1), 0, 0 };
	res->region = malloc((n ? n : 1) * sizeof(int));
	res->veneers = calloc(R ? R : 1, sizeof(size_t));
	res->heuristic_objective = -INFINITY;
	int rc = 0;
	if (!inc.search || !inc.best || !inc.rounded || !md.in_core || !c.now || !res->region || !res->veneers)
		rc = inc.search ? rp_err_nomem(err, "solving the ILP") : err->code;
	md.lp = rc ? NULL : glp_create_prob();
	if (md.lp) {
		glp_term_out(GLP_OFF);
		rc = rp_ilp_model_build(&md, err);
		if (!rc)
			rc = solve_mip(&md, &inc, res, t0, err);
		if (!rc)
			rc = keep_within_budgets(&inc, res, err);
		glp_delete_prob(md.lp);
	}
	rp_ils_free(inc.search);
	free(inc.best);
	free(inc.rounded);
	free(md.in_core);
	rp_ilp_cols_release(&c);
	res->seconds = rp_ils_now() - t0;
	if (rc)
		rp_ilp_result_release(res);
	return rc;
}

/* The folded problem (ilp_fold.h) has the same optimum; its answer's veneers are counted on
 * the caller's problem, where the folded ones still are. */
int rp_ilp_solve(const rp_ilp_problem *pb, rp_ilp_result *res, rp_err *err)
{
	rp_ilp_folded f;
	memset(res, 0, sizeof(*res));
	int rc = rp_ilp_fold(pb, &f, err);
	if (!rc)
		rc = solve_problem(&f.pb, res, err);
	if (!rc && f.nfolded) {
		memset(res->veneers, 0, (pb->nregions ? pb->nregions : 1) * sizeof(size_t));
		res->objective = rp_ilp_evaluate(pb, res->region, res->veneers);
	}
	rp_ilp_folded_release(&f);
	return rc;
}

void rp_ilp_result_release(rp_ilp_result *res)
{
	free(res->region);
	free(res->veneers);
	memset(res, 0, sizeof(*res));
}
