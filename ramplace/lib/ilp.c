/* ilp.c: the placement ILP with GLPK (see ilp.h). Owns the GLPK problem and the work arrays of
 * one solve. Workload: up to tens of thousands of items, two or three regions, a few call
 * edges per item. The LP relaxation of this multiple knapsack is tight, so branch-and-bound
 * with GLPK's cover/MIR cuts closes most of the gap; the greedy warm start gives it a good
 * incumbent from the first node. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ramplace/ilp.h"
#include "ramplace/util.h"

typedef struct cols {
	size_t R, T, n;
	int x0, y0, z0, ncols;   /* first column of each block (1-based) */
} cols;

static int xcol(const cols *c, size_t i, size_t r) { return c->x0 + (int)(i * c->R + r); }
static int ycol(const cols *c, size_t r, size_t t) { return c->y0 + (int)(r * c->T + t); }
static int zcol(const cols *c, size_t a) { return c->z0 + (int)a; }

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Veneers: callee target t needs one in region r when a caller sits in r and t does not. */
static void needed_veneers(const rp_ilp_problem *pb, const int *region, unsigned char *need)
{
	memset(need, 0, pb->nregions * (pb->ntargets ? pb->ntargets : 1));
	if (!pb->veneer_bytes)
		return;
	for (size_t k = 0; k < pb->ncalls; k++) {
		const rp_ilp_call *c = &pb->calls[k];
		int rf = region[c->from];
		int rt = c->to == SIZE_MAX ? -1 : region[c->to];
		if (rf >= 0 && rf != rt)
			need[(size_t)rf * pb->ntargets + c->target] = 1;
	}
}

double rp_ilp_evaluate(const rp_ilp_problem *pb, const int *region, size_t *veneers)
{
	double obj = 0;
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			obj += pb->regions[region[i]].gain * pb->items[i].value;
	for (size_t a = 0; a < pb->narcs; a++) {
		int ra = region[pb->arcs[a].a], rb = pb->arcs[a].b == SIZE_MAX ? -1 : region[pb->arcs[a].b];
		if (ra != rb)
			obj -= pb->arcs[a].cycles;
	}
	if (veneers) {
		memset(veneers, 0, pb->nregions * sizeof(size_t));
		unsigned char *need = malloc(pb->nregions * (pb->ntargets ? pb->ntargets : 1));
		if (need) {
			needed_veneers(pb, region, need);
			for (size_t r = 0; r < pb->nregions; r++)
				for (size_t t = 0; t < pb->ntargets; t++)
					veneers[r] += need[r * pb->ntargets + t];
		}
		free(need);
	}
	return obj;
}

typedef struct greedy {
	const rp_ilp_problem *pb;
	size_t *first_call;      /* calls sorted by caller: calls of item i are [first_call[i], first_call[i+1]) */
	size_t *call_order;
	unsigned char *veneer;   /* R x T: counted in region r */
	uint64_t *used;
	int *region;
} greedy;

/* Bytes item i adds to region r: its size and the veneers of callees not yet served there. */
static uint64_t cost_in(const greedy *g, size_t i, size_t r)
{
	const rp_ilp_problem *pb = g->pb;
	uint64_t bytes = pb->items[i].size;
	for (size_t k = g->first_call[i]; pb->veneer_bytes && k < g->first_call[i + 1]; k++) {
		const rp_ilp_call *c = &pb->calls[g->call_order[k]];
		int in_r = c->to != SIZE_MAX && g->region[c->to] == (int)r;
		if (!in_r && !g->veneer[r * pb->ntargets + c->target])
			bytes += pb->veneer_bytes;   /* duplicates within i overcount: safe */
	}
	return bytes;
}

static void put(greedy *g, size_t i, size_t r)
{
	const rp_ilp_problem *pb = g->pb;
	g->used[r] += cost_in(g, i, r);
	g->region[i] = (int)r;
	for (size_t k = g->first_call[i]; pb->veneer_bytes && k < g->first_call[i + 1]; k++) {
		const rp_ilp_call *c = &pb->calls[g->call_order[k]];
		if (c->to == SIZE_MAX || g->region[c->to] != (int)r)
			g->veneer[r * pb->ntargets + c->target] = 1;
	}
}

static int by_density(const void *x, const void *y, void *ctx)
{
	const rp_ilp_problem *pb = ctx;
	const rp_ilp_item *a = &pb->items[*(const size_t *)x], *b = &pb->items[*(const size_t *)y];
	if (a->must != b->must)
		return a->must ? -1 : 1;
	double da = a->value / (double)(a->size ? a->size : 1), db = b->value / (double)(b->size ? b->size : 1);
	if (da != db)
		return da > db ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}
static int by_caller(const void *x, const void *y, void *ctx)
{
	const rp_ilp_problem *pb = ctx;
	size_t a = pb->calls[*(const size_t *)x].from, b = pb->calls[*(const size_t *)y].from;
	if (a != b)
		return a < b ? -1 : 1;
	return *(const size_t *)x < *(const size_t *)y ? -1 : 1;
}

static double greedy_from(const rp_ilp_problem *pb, int *region, const int *start, rp_err *err);

double rp_ilp_greedy(const rp_ilp_problem *pb, int *region, rp_err *err)
{
	return greedy_from(pb, region, NULL, err);
}

/* Keeps the items of `start` (an LP rounding) that fit, dropping the least dense first where a
 * region overflows, then fills by density; start NULL is the plain greedy. */
static double greedy_from(const rp_ilp_problem *pb, int *region, const int *start, rp_err *err)
{
	size_t n = pb->nitems, R = pb->nregions;
	greedy g = { pb, calloc(n + 1, sizeof(size_t)), malloc((pb->ncalls ? pb->ncalls : 1) * sizeof(size_t)),
		     calloc(R * (pb->ntargets ? pb->ntargets : 1), 1), calloc(R, sizeof(uint64_t)), region };
	size_t *order = malloc((n ? n : 1) * sizeof(size_t));
	size_t *rorder = malloc(R * sizeof(size_t));
	double obj = -INFINITY;
	if (!g.first_call || !g.call_order || !g.veneer || !g.used || !order || !rorder) {
		rp_err_nomem(err, "the greedy placement");
		goto out;
	}
	for (size_t k = 0; k < pb->ncalls; k++)
		g.call_order[k] = k;
	qsort_r(g.call_order, pb->ncalls, sizeof(size_t), by_caller, (void *)pb);
	for (size_t k = 0; k < pb->ncalls; k++)
		g.first_call[pb->calls[g.call_order[k]].from + 1]++;
	for (size_t i = 0; i < n; i++)
		g.first_call[i + 1] += g.first_call[i];
	for (size_t i = 0; i < n; i++) {
		order[i] = i;
		region[i] = -1;
	}
	qsort_r(order, n, sizeof(size_t), by_density, (void *)pb);
	for (size_t r = 0; r < R; r++)
		rorder[r] = r;
	for (size_t a = 1; a < R; a++)   /* fastest region first */
		for (size_t b = a; b > 0 && pb->regions[rorder[b]].gain > pb->regions[rorder[b - 1]].gain; b--) {
			size_t t = rorder[b];
			rorder[b] = rorder[b - 1];
			rorder[b - 1] = t;
		}
	for (size_t k = 0; start && k < n; k++) {   /* the rounding's items, densest first, where they fit */
		size_t i = order[k];
		int r = start[i];
		if (r >= 0 && g.used[r] + cost_in(&g, i, (size_t)r) <= pb->regions[r].budget)
			put(&g, i, (size_t)r);
	}
	for (size_t k = 0; k < n; k++) {
		size_t i = order[k];
		if ((pb->items[i].value <= 0 && !pb->items[i].must) || region[i] >= 0)
			continue;
		for (size_t q = 0; q < R; q++) {
			size_t r = rorder[q];
			if (g.used[r] + cost_in(&g, i, r) <= pb->regions[r].budget) {
				put(&g, i, r);
				break;
			}
		}
		if (pb->items[i].must && region[i] < 0)
			goto out;   /* a pin that fits nowhere: no warm start */
	}
	obj = rp_ilp_evaluate(pb, region, NULL);
out:
	free(g.first_call);
	free(g.call_order);
	free(g.veneer);
	free(g.used);
	free(order);
	free(rorder);
	return obj;
}

typedef struct matrix {
	int *ia, *ja;
	double *ar;
	size_t n, cap;
} matrix;

static int add_nz(matrix *m, int row, int col, double v, rp_err *err)
{
	if (m->n + 2 > m->cap) {
		size_t cap = m->cap ? m->cap * 2 : 1024;
		int *ia = realloc(m->ia, cap * sizeof(int));
		if (ia)
			m->ia = ia;
		int *ja = ia ? realloc(m->ja, cap * sizeof(int)) : NULL;
		if (ja)
			m->ja = ja;
		double *ar = ja ? realloc(m->ar, cap * sizeof(double)) : NULL;
		if (!ar)
			return rp_err_nomem(err, "building the ILP");
		m->ar = ar;
		m->cap = cap;
	}
	m->n++;   /* GLPK arrays are 1-based: element 0 unused */
	m->ia[m->n] = row;
	m->ja[m->n] = col;
	m->ar[m->n] = v;
	return 0;
}

static int build(glp_prob *lp, const rp_ilp_problem *pb, const cols *c, rp_err *err)
{
	size_t n = pb->nitems, R = pb->nregions;
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_cols(lp, c->ncols);
	for (size_t i = 0; i < n; i++)
		for (size_t r = 0; r < R; r++) {
			int j = xcol(c, i, r);
			glp_set_col_kind(lp, j, GLP_BV);
			glp_set_obj_coef(lp, j, pb->regions[r].gain * pb->items[i].value);
		}
	for (int j = c->y0; j < c->ncols + 1; j++)
		glp_set_col_bnds(lp, j, GLP_DB, 0.0, 1.0);
	for (size_t a = 0; a < pb->narcs && c->z0 <= c->ncols; a++)
		glp_set_obj_coef(lp, zcol(c, a), -pb->arcs[a].cycles);
	matrix m = { NULL, NULL, NULL, 0, 0 };
	int row = 0, rc = 0;
	/* each item in at most (pins: exactly) one region */
	glp_add_rows(lp, (int)n);
	for (size_t i = 0; i < n && !rc; i++) {
		row++;
		glp_set_row_bnds(lp, row, pb->items[i].must ? GLP_FX : GLP_UP, pb->items[i].must ? 1.0 : 0.0, 1.0);
		for (size_t r = 0; r < R && !rc; r++)
			rc = add_nz(&m, row, xcol(c, i, r), 1.0, err);
	}
	/* capacity, veneers included */
	glp_add_rows(lp, (int)R);
	for (size_t r = 0; r < R && !rc; r++) {
		row++;
		glp_set_row_bnds(lp, row, GLP_UP, 0.0, (double)pb->regions[r].budget);
		for (size_t i = 0; i < n && !rc; i++)
			rc = add_nz(&m, row, xcol(c, i, r), (double)pb->items[i].size, err);
		for (size_t t = 0; pb->veneer_bytes && t < pb->ntargets && !rc; t++)
			rc = add_nz(&m, row, ycol(c, r, t), (double)pb->veneer_bytes, err);
	}
	/* y[r][t] - x[i][r] + x[t][r] >= 0 */
	for (size_t k = 0; pb->veneer_bytes && k < pb->ncalls && !rc; k++) {
		const rp_ilp_call *cl = &pb->calls[k];
		glp_add_rows(lp, (int)R);
		for (size_t r = 0; r < R && !rc; r++) {
			row++;
			glp_set_row_bnds(lp, row, GLP_LO, 0.0, 0.0);
			rc = add_nz(&m, row, ycol(c, r, cl->target), 1.0, err) || add_nz(&m, row, xcol(c, cl->from, r), -1.0, err);
			if (!rc && cl->to != SIZE_MAX)
				rc = add_nz(&m, row, xcol(c, cl->to, r), 1.0, err);
		}
	}
	/* z_a >= |x[a][r] - x[b][r]| */
	for (size_t a = 0; a < pb->narcs && !rc; a++) {
		const rp_ilp_arc *arc = &pb->arcs[a];
		glp_add_rows(lp, (int)(2 * R));
		for (size_t r = 0; r < R && !rc; r++)
			for (int sign = -1; sign <= 1 && !rc; sign += 2) {
				row++;
				glp_set_row_bnds(lp, row, GLP_LO, 0.0, 0.0);
				rc = add_nz(&m, row, zcol(c, a), 1.0, err) || add_nz(&m, row, xcol(c, arc->a, r), sign, err);
				if (!rc && arc->b != SIZE_MAX)
					rc = add_nz(&m, row, xcol(c, arc->b, r), -sign, err);
			}
	}
	if (!rc)
		glp_load_matrix(lp, (int)m.n, m.ia, m.ja, m.ar);
	free(m.ia);
	free(m.ja);
	free(m.ar);
	return rc;
}

typedef struct cb_ctx {
	const rp_ilp_problem *pb;
	const cols *c;
	const int *warm;         /* greedy assignment, NULL when none */
	int warm_given;
	double gap, bound;
	int have_gap;
} cb_ctx;

/* Column values of an assignment: x from it, y and z as the rows force them. */
static void assignment_columns(const rp_ilp_problem *pb, const cols *c, const int *region, double *x)
{
	memset(x, 0, (size_t)(c->ncols + 1) * sizeof(double));
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			x[xcol(c, i, (size_t)region[i])] = 1.0;
	unsigned char *need = malloc(pb->nregions * (pb->ntargets ? pb->ntargets : 1));
	if (need && pb->veneer_bytes) {
		needed_veneers(pb, region, need);
		for (size_t r = 0; r < pb->nregions; r++)
			for (size_t t = 0; t < pb->ntargets; t++)
				x[ycol(c, r, t)] = need[r * pb->ntargets + t];
	}
	free(need);
	for (size_t a = 0; a < pb->narcs; a++) {
		int ra = region[pb->arcs[a].a], rb = pb->arcs[a].b == SIZE_MAX ? -1 : region[pb->arcs[a].b];
		x[zcol(c, a)] = ra != rb;
	}
}

static void callback(glp_tree *tree, void *info)
{
	cb_ctx *cb = info;
	int reason = glp_ios_reason(tree);
	if (reason == GLP_IHEUR && cb->warm && !cb->warm_given) {
		double *x = malloc((size_t)(cb->c->ncols + 1) * sizeof(double));
		if (x) {
			assignment_columns(cb->pb, cb->c, cb->warm, x);
			glp_ios_heur_sol(tree, x);
			free(x);
		}
		cb->warm_given = 1;
	}
	if (reason == GLP_ISELECT || reason == GLP_IBINGO || reason == GLP_IHEUR) {
		int best = glp_ios_best_node(tree);
		if (best) {
			cb->bound = glp_ios_node_bound(tree, best);
			cb->gap = glp_ios_mip_gap(tree);
			cb->have_gap = 1;
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
static size_t fix_by_reduced_cost(glp_prob *lp, const rp_ilp_problem *pb, const cols *c, double zlp, double zinc)
{
	size_t fixed = 0;
	double eps = 1e-6 * (fabs(zinc) > 1 ? fabs(zinc) : 1);
	for (size_t i = 0; i < pb->nitems; i++)
		for (size_t r = 0; r < pb->nregions; r++) {
			int j = xcol(c, i, r), st = glp_get_col_stat(lp, j);
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

static int solve_mip(glp_prob *lp, const rp_ilp_problem *pb, const cols *c, rp_ilp_result *res, int *warm,
		     double t0, rp_err *err)
{
	glp_smcp sm;
	glp_init_smcp(&sm);
	sm.msg_lev = GLP_MSG_OFF;
	sm.presolve = GLP_OFF;
	sm.tm_lim = (int)(pb->time_limit_s * 1000);
	int rc = glp_simplex(lp, &sm);
	if (rc == 0 && glp_get_status(lp) == GLP_NOFEAS)
		return explain_infeasible(pb, err);
	if (rc != 0 && rc != GLP_ETMLIM)
		return rp_err_set(err, RP_EIO, "GLPK: the LP relaxation failed (glp_simplex code %d)", rc);
	double zlp = glp_get_obj_val(lp);
	int *rounded = malloc((pb->nitems ? pb->nitems : 1) * sizeof(int) * 2);
	if (!rounded)
		return rp_err_nomem(err, "solving the ILP");
	int *repaired = rounded + pb->nitems;
	for (size_t i = 0; i < pb->nitems; i++) {
		rounded[i] = -1;
		for (size_t r = 0; r < pb->nregions; r++)
			if (glp_get_col_prim(lp, xcol(c, i, r)) > 0.999)
				rounded[i] = (int)r;
	}
	double zround = greedy_from(pb, repaired, rounded, err);
	if (!isinf(zround) && (isinf(res->heuristic_objective) || zround > res->heuristic_objective)) {
		memcpy(warm, repaired, pb->nitems * sizeof(int));
		res->heuristic_objective = zround;
	}
	free(rounded);
	if (!isinf(res->heuristic_objective))
		res->fixed = fix_by_reduced_cost(lp, pb, c, zlp, res->heuristic_objective);
	res->lp_bound = zlp;
	cb_ctx cb = { pb, c, isinf(res->heuristic_objective) ? NULL : warm, 0, 0, 0, 0 };
	glp_iocp io;
	glp_init_iocp(&io);
	io.msg_lev = GLP_MSG_OFF;
	io.presolve = GLP_OFF;
	io.cov_cuts = GLP_ON;
	io.mir_cuts = GLP_ON;
	io.br_tech = GLP_BR_DTH;
	io.bt_tech = GLP_BT_BPH;
	double left = pb->time_limit_s - (now() - t0);
	io.tm_lim = left > 0.001 ? (int)(left * 1000) : 1;
	io.cb_func = callback;
	io.cb_info = &cb;
	rc = glp_intopt(lp, &io);
	int st = glp_mip_status(lp);
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
				if (glp_mip_col_val(lp, xcol(c, i, r)) > 0.5)
					res->region[i] = (int)r;
		}
	} else if (cb.warm) {
		memcpy(res->region, cb.warm, pb->nitems * sizeof(int));
	} else {
		return rp_err_set(err, RP_EIO, "GLPK: no solution within the %.1f s time limit", pb->time_limit_s);
	}
	res->objective = rp_ilp_evaluate(pb, res->region, res->veneers);
	res->bound = res->optimal ? res->objective : cb.have_gap ? cb.bound : zlp;
	if (res->bound < res->objective)
		res->bound = res->objective;
	res->gap = res->optimal ? 0.0 : (res->bound - res->objective) / (fabs(res->objective) > 1e-9 ? fabs(res->objective) : 1.0);
	return 0;
}

int rp_ilp_solve(const rp_ilp_problem *pb, rp_ilp_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	double t0 = now();
	size_t n = pb->nitems, R = pb->nregions;
	cols c = { R, pb->veneer_bytes ? pb->ntargets : 0, n, 1, 0, 0, 0 };
	c.y0 = c.x0 + (int)(n * R);
	c.z0 = c.y0 + (int)(R * c.T);
	c.ncols = c.z0 + (int)pb->narcs - 1;
	res->region = malloc((n ? n : 1) * sizeof(int));
	res->veneers = calloc(R ? R : 1, sizeof(size_t));
	int *warm = malloc((n ? n : 1) * sizeof(int));
	if (!res->region || !res->veneers || !warm) {
		free(warm);
		rp_ilp_result_release(res);
		return rp_err_nomem(err, "solving the ILP");
	}
	res->heuristic_objective = rp_ilp_greedy(pb, warm, err);
	glp_term_out(GLP_OFF);
	glp_prob *lp = glp_create_prob();
	int rc = build(lp, pb, &c, err);
	res->seconds = now() - t0;
	if (!rc)
		rc = solve_mip(lp, pb, &c, res, warm, t0, err);
	glp_delete_prob(lp);
	free(warm);
	res->seconds = now() - t0;
	if (rc)
		rp_ilp_result_release(res);
	return rc;
}

void rp_ilp_result_release(rp_ilp_result *res)
{
	free(res->region);
	free(res->veneers);
	memset(res, 0, sizeof(*res));
}
