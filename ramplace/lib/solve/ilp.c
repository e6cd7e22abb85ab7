/* ilp.c: the placement ILP with GLPK (see ilp.h). Owns the GLPK problem, its core of items
 * and the incumbent of one solve. Workload: up to tens of thousands of items, two or three
 * regions, a few call edges per item. The LP relaxation is nearly integral (a handful of
 * fractional items and veneers), so the bound is good from the root; what GLPK's own search
 * lacks is a good incumbent, which the local search in ilp_search.c supplies, and speed, which
 * the core (the LP never carries the veneer rows of items too cold to place) supplies. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/ilp.h"
#include "ramplace/util.h"
#include "ilp_search.h"

typedef struct cols {
	size_t R, T, n;
	int x0, y0, z0, ncols;   /* first column of each block (1-based) */
	int *now;                /* ncols + 1: where column j is in the LP since shrink_for_branching
				    deleted some (0: deleted, its value is 0); the identity before */
} cols;

static int xcol(const cols *c, size_t i, size_t r) { return c->x0 + (int)(i * c->R + r); }
static int ycol(const cols *c, size_t r, size_t t) { return c->y0 + (int)(r * c->T + t); }
static int zcol(const cols *c, size_t a) { return c->z0 + (int)a; }

/* The value of x[i][r] in the LP (mip: in GLPK's integer solution). */
static double x_value(glp_prob *lp, const cols *c, size_t i, size_t r, int mip)
{
	int j = c->now[xcol(c, i, r)];
	return j == 0 ? 0.0 : mip ? glp_mip_col_val(lp, j) : glp_get_col_prim(lp, j);
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

static int arc_crosses(const rp_ilp_problem *pb, const int *region, size_t a)
{
	const rp_ilp_arc *arc = &pb->arcs[a];
	return region[arc->a] != (arc->b == SIZE_MAX ? -1 : region[arc->b]);
}

double rp_ilp_evaluate(const rp_ilp_problem *pb, const int *region, size_t *veneers)
{
	double obj = 0;
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			obj += pb->regions[region[i]].gain * pb->items[i].value;
	for (size_t a = 0; a < pb->narcs; a++)
		if (arc_crosses(pb, region, a))
			obj -= pb->arcs[a].cycles;
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

/* z_a >= |x[a][l] - x[b][l]| for every location l, flash included: in the LP, an item split
 * over two regions still crosses fully to a callee in flash. */
static int add_arc_rows(glp_prob *lp, const rp_ilp_problem *pb, const cols *c, size_t a, matrix *m, int *row, rp_err *err)
{
	const rp_ilp_arc *arc = &pb->arcs[a];
	if (arc->a == arc->b)
		return 0;   /* a self-arc never crosses */
	size_t R = pb->nregions;
	int rc = 0, pairs = arc->b == SIZE_MAX ? 0 : (int)R;
	glp_add_rows(lp, 2 * pairs + (arc->b == SIZE_MAX ? 1 : 2));
	for (int r = 0; r < pairs && !rc; r++)
		for (int sign = -1; sign <= 1 && !rc; sign += 2) {
			glp_set_row_bnds(lp, ++*row, GLP_LO, 0.0, 0.0);
			rc = add_nz(m, *row, zcol(c, a), 1.0, err) || add_nz(m, *row, xcol(c, arc->a, (size_t)r), sign, err) ||
			     add_nz(m, *row, xcol(c, arc->b, (size_t)r), -sign, err);
		}
	/* flash: z >= sum_r x[a][r] - sum_r x[b][r] (and the reverse when b is an item) */
	for (int sign = -1; sign <= (arc->b == SIZE_MAX ? -1 : 1) && !rc; sign += 2) {
		glp_set_row_bnds(lp, ++*row, GLP_LO, 0.0, 0.0);
		rc = add_nz(m, *row, zcol(c, a), 1.0, err);
		for (size_t r = 0; r < R && !rc; r++) {
			rc = add_nz(m, *row, xcol(c, arc->a, r), sign, err);
			if (!rc && arc->b != SIZE_MAX)
				rc = add_nz(m, *row, xcol(c, arc->b, r), -sign, err);
		}
	}
	return rc;
}

/* The GLPK model. Items outside the core have their x fixed at 0 and no veneer rows: most
 * functions of a firmware are far too cold to be placed, and the rows of their calls are most of
 * the LP. Pricing brings in any whose reduced cost says the LP would use it, so the LP optimum
 * is the full model's. */
typedef struct model {
	glp_prob *lp;
	const rp_ilp_problem *pb;
	const cols *c;
	const rp_ils *search;    /* the calls of each item, the density order */
	unsigned char *in_core;
	size_t ncore;
	int rows;
} model;

static int load_fixed_rows(model *md, rp_err *err)
{
	const rp_ilp_problem *pb = md->pb;
	const cols *c = md->c;
	size_t n = pb->nitems, R = pb->nregions;
	matrix m = { NULL, NULL, NULL, 0, 0 };
	int rc = 0;
	/* each item in at most (pins: exactly) one region */
	glp_add_rows(md->lp, (int)n);
	for (size_t i = 0; i < n && !rc; i++) {
		md->rows++;
		glp_set_row_bnds(md->lp, md->rows, pb->items[i].must ? GLP_FX : GLP_UP, pb->items[i].must ? 1.0 : 0.0, 1.0);
		for (size_t r = 0; r < R && !rc; r++)
			rc = add_nz(&m, md->rows, xcol(c, i, r), 1.0, err);
	}
	/* capacity, veneers included */
	glp_add_rows(md->lp, (int)R);
	for (size_t r = 0; r < R && !rc; r++) {
		md->rows++;
		glp_set_row_bnds(md->lp, md->rows, GLP_UP, 0.0, (double)pb->regions[r].budget);
		for (size_t i = 0; i < n && !rc; i++)
			rc = add_nz(&m, md->rows, xcol(c, i, r), (double)pb->items[i].size, err);
		for (size_t t = 0; t < c->T && !rc; t++)
			rc = add_nz(&m, md->rows, ycol(c, r, t), (double)pb->veneer_bytes, err);
	}
	for (size_t a = 0; a < pb->narcs && !rc; a++)
		rc = add_arc_rows(md->lp, pb, c, a, &m, &md->rows, err);
	if (!rc)
		glp_load_matrix(md->lp, (int)m.n, m.ia, m.ja, m.ar);
	free(m.ia);
	free(m.ja);
	free(m.ar);
	return rc;
}

/* Brings item i into the core: frees its x and adds y[r][t] - x[i][r] + x[t][r] >= 0 for its calls. */
static void core_add(model *md, size_t i)
{
	if (md->in_core[i])
		return;
	md->in_core[i] = 1;
	md->ncore++;
	size_t R = md->pb->nregions, ncalls;
	for (size_t r = 0; r < R; r++)
		glp_set_col_bnds(md->lp, xcol(md->c, i, r), GLP_DB, 0.0, 1.0);
	const size_t *calls = rp_ils_calls_of(md->search, i, &ncalls);
	if (!ncalls || !md->c->T)
		return;
	glp_add_rows(md->lp, (int)(ncalls * R));
	for (size_t k = 0; k < ncalls; k++) {
		const rp_ilp_call *cl = &md->pb->calls[calls[k]];
		for (size_t r = 0; r < R; r++) {
			int ind[4] = { 0, ycol(md->c, r, cl->target), xcol(md->c, i, r), cl->to == SIZE_MAX ? 0 : xcol(md->c, cl->to, r) };
			double val[4] = { 0, 1.0, -1.0, 1.0 };
			md->rows++;
			glp_set_row_bnds(md->lp, md->rows, GLP_LO, 0.0, 0.0);
			glp_set_mat_row(md->lp, md->rows, cl->to == i ? 1 : cl->to == SIZE_MAX ? 2 : 3, ind, val);   /* a self-call needs no veneer */
		}
	}
}

/* The first core: pinned items, arc ends, and the densest other items up to the total budget
 * (at least 64 of them). */
static int core_start(model *md, rp_err *err)
{
	const rp_ilp_problem *pb = md->pb;
	size_t n = pb->nitems, *order = rp_ils_density_order(md->search);
	if (!order)
		return rp_err_nomem(err, "building the ILP");
	uint64_t room = 0, taken = 0;
	for (size_t r = 0; r < pb->nregions; r++)
		room += pb->regions[r].budget;
	for (size_t k = 0; k < n && (taken < room || k < 64); k++)
		if (!pb->items[order[k]].must && pb->items[order[k]].value > 0) {
			core_add(md, order[k]);
			taken += pb->items[order[k]].size;
		}
	for (size_t i = 0; i < n; i++)
		if (pb->items[i].must)
			core_add(md, i);
	for (size_t a = 0; a < pb->narcs; a++) {
		core_add(md, pb->arcs[a].a);
		if (pb->arcs[a].b != SIZE_MAX)
			core_add(md, pb->arcs[a].b);
	}
	free(order);
	return 0;
}

static int build(model *md, rp_err *err)
{
	const rp_ilp_problem *pb = md->pb;
	const cols *c = md->c;
	glp_prob *lp = md->lp;
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_cols(lp, c->ncols);
	for (size_t i = 0; i < pb->nitems; i++)
		for (size_t r = 0; r < pb->nregions; r++) {
			int j = xcol(c, i, r);
			glp_set_col_kind(lp, j, GLP_BV);
			glp_set_col_bnds(lp, j, GLP_FX, 0.0, 0.0);
			glp_set_obj_coef(lp, j, pb->regions[r].gain * pb->items[i].value);
		}
	for (int j = c->y0; j < c->ncols + 1; j++)
		glp_set_col_bnds(lp, j, GLP_DB, 0.0, 1.0);
	for (size_t a = 0; a < pb->narcs; a++)
		glp_set_obj_coef(lp, zcol(c, a), -pb->arcs[a].cycles);
	int rc = load_fixed_rows(md, err);
	return rc ? rc : core_start(md, err);
}

/* Adds to the core every item outside it whose reduced cost is positive in some region, or
 * (keep_above finite) could bring the LP bound up to keep_above. Returns how many. */
static size_t core_price(model *md, double zlp, double keep_above)
{
	size_t added = 0;
	double tol = 1e-9 * (fabs(zlp) > 1 ? fabs(zlp) : 1);
	for (size_t i = 0; i < md->pb->nitems; i++) {
		if (md->in_core[i])
			continue;
		for (size_t r = 0; r < md->pb->nregions; r++) {
			double d = glp_get_col_dual(md->lp, xcol(md->c, i, r));
			if (d > tol || zlp + d >= keep_above) {
				core_add(md, i);
				added++;
				break;
			}
		}
	}
	return added;
}

/* The incumbent and the heuristics that improve it, shared with GLPK's callback. */
typedef struct incumbent {
	const rp_ilp_problem *pb;
	const cols *c;
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
	for (size_t a = 0; a < pb->narcs; a++)
		x[zcol(c, a)] = arc_crosses(pb, region, a);
}

/* A basis at the assignment: every row basic, every column at the bound the assignment gives
 * it. Primal feasible when the assignment is, and close to the optimum when the assignment is
 * good, so the first LP needs far fewer pivots than from the all-slack basis (n = 2,000: 0.39 s
 * instead of 0.68 s). The assignment's items join the core first, or their x would be fixed. */
static void warm_basis(model *md, const int *region)
{
	glp_prob *lp = md->lp;
	const rp_ilp_problem *pb = md->pb;
	const cols *c = md->c;
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			core_add(md, i);
	double *x = malloc((size_t)(c->ncols + 1) * sizeof(double));
	if (!x)
		return;   /* the LP starts from the standard basis */
	assignment_columns(pb, c, region, x);
	for (int i = 1; i <= glp_get_num_rows(lp); i++)
		glp_set_row_stat(lp, i, GLP_BS);
	for (int j = 1; j <= c->ncols; j++)
		glp_set_col_stat(lp, j, glp_get_col_type(lp, j) == GLP_FX ? GLP_NS : x[j] > 0.5 ? GLP_NU : GLP_NL);
	free(x);
}

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
			if (x_value(lp, inc->c, i, r, 0) > 0.5)
				inc->rounded[i] = (int)r;
	}
	if (isinf(rp_ils_greedy(inc->search, inc->rounded)))
		return;
	rp_ils_improve(inc->search, until < inc->deadline ? until : inc->deadline);
	offer(inc);
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
				assignment_columns(inc->pb, inc->c, inc->best, x);
				int lost = 0;   /* a deleted column at 1: GLPK cannot hold this solution */
				for (int j = 1; j <= inc->c->ncols; j++)   /* into the LP's numbering */
					if (inc->c->now[j])
						x[inc->c->now[j]] = x[j];
					else
						lost |= x[j] != 0;
				if (!lost)
					glp_ios_heur_sol(tree, x);
				free(x);
			}
			inc->given = 1;
		}
	}
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
	io.cov_cuts = GLP_ON;
	io.mir_cuts = GLP_ON;
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
				if (x_value(lp, inc->c, i, r, 1) > 0.5)
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
static int solve_core_lp(model *md, const incumbent *inc, double keep_above, rp_err *err)
{
	int rc;
	do {
		if ((rc = solve_root(md->lp, inc, err)))
			return rc;
	} while (core_price(md, glp_get_obj_val(md->lp), keep_above));
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
static void shrink_for_branching(model *md)
{
	glp_prob *lp = md->lp;
	const cols *c = md->c;
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
static int solve_mip(model *md, incumbent *inc, rp_ilp_result *res, double t0, rp_err *err)
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
		warm_basis(md, inc->best);
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
		if (core_price(md, zlp, inc->best_obj - eps))
			rc = solve_core_lp(md, inc, inc->best_obj - eps, err);
		res->fixed = rc ? 0 : fix_by_reduced_cost(md->lp, pb, inc->c, zlp, inc->best_obj);
		if (!rc && res->fixed)
			rc = solve_root(md->lp, inc, err);
		if (rc == LP_TIMED_OUT)
			return stop_with_incumbent(inc, res, zlp, err);
		if (rc)
			return rc;
	} else if (core_price(md, zlp, -INFINITY)) {
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

int rp_ilp_solve(const rp_ilp_problem *pb, rp_ilp_result *res, rp_err *err)
{
	memset(res, 0, sizeof(*res));
	double t0 = rp_ils_now();
	size_t n = pb->nitems, R = pb->nregions;
	cols c = { R, pb->veneer_bytes ? pb->ntargets : 0, n, 1, 0, 0, 0, NULL };
	c.y0 = c.x0 + (int)(n * R);
	c.z0 = c.y0 + (int)(R * c.T);
	c.ncols = c.z0 + (int)pb->narcs - 1;
	c.now = malloc((size_t)(c.ncols + 1) * sizeof(int));
	for (int j = 0; c.now && j <= c.ncols; j++)
		c.now[j] = j;
	incumbent inc = { pb, &c, rp_ils_new(pb, err), malloc((n ? n : 1) * sizeof(int)), malloc((n ? n : 1) * sizeof(int)),
			  -INFINITY, 0, t0 + pb->time_limit_s, 0, 0, 0, 0, 0 };
	model md = { NULL, pb, &c, inc.search, calloc(n ? n : 1, 1), 0, 0 };
	res->region = malloc((n ? n : 1) * sizeof(int));
	res->veneers = calloc(R ? R : 1, sizeof(size_t));
	res->heuristic_objective = -INFINITY;
	int rc = 0;
	if (!inc.search || !inc.best || !inc.rounded || !md.in_core || !c.now || !res->region || !res->veneers)
		rc = inc.search ? rp_err_nomem(err, "solving the ILP") : err->code;
	md.lp = rc ? NULL : glp_create_prob();
	if (md.lp) {
		glp_term_out(GLP_OFF);
		rc = build(&md, err);
		if (!rc)
			rc = solve_mip(&md, &inc, res, t0, err);
		glp_delete_prob(md.lp);
	}
	rp_ils_free(inc.search);
	free(inc.best);
	free(inc.rounded);
	free(md.in_core);
	free(c.now);
	res->seconds = rp_ils_now() - t0;
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
