/* ilp_model.c: the placement ILP written for GLPK (see ilp.h for the model, ilp_model.h for
 * this interface). Owns the column layout, the rows every item has, and the core: the items
 * whose x are free and whose veneer rows are in the LP. Workload: up to tens of thousands of
 * items with a few calls each, most of them far too cold to place, so the LP starts from the
 * densest items up to the total budget and pricing adds the others only when they could pay. */
#include <glpk.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "ilp_model.h"

void rp_ilp_cols_init(rp_ilp_cols *c, const rp_ilp_problem *pb)
{
	size_t n = pb->nitems, R = pb->nregions;
	*c = (rp_ilp_cols){ R, pb->veneer_bytes ? pb->ntargets : 0, n, 1, 0, 0, 0, NULL };
	c->y0 = c->x0 + (int)(n * R);
	c->z0 = c->y0 + (int)(R * c->T);
	c->ncols = c->z0 + (int)pb->narcs - 1;
	c->now = malloc((size_t)(c->ncols + 1) * sizeof(int));
	for (int j = 0; c->now && j <= c->ncols; j++)
		c->now[j] = j;
}

void rp_ilp_cols_release(rp_ilp_cols *c)
{
	free(c->now);
	c->now = NULL;
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
static int add_arc_rows(glp_prob *lp, const rp_ilp_problem *pb, const rp_ilp_cols *c, size_t a, matrix *m, int *row, rp_err *err)
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
			rc = add_nz(m, *row, rp_ilp_zcol(c, a), 1.0, err) || add_nz(m, *row, rp_ilp_xcol(c, arc->a, (size_t)r), sign, err) ||
			     add_nz(m, *row, rp_ilp_xcol(c, arc->b, (size_t)r), -sign, err);
		}
	/* flash: z >= sum_r x[a][r] - sum_r x[b][r] (and the reverse when b is an item) */
	for (int sign = -1; sign <= (arc->b == SIZE_MAX ? -1 : 1) && !rc; sign += 2) {
		glp_set_row_bnds(lp, ++*row, GLP_LO, 0.0, 0.0);
		rc = add_nz(m, *row, rp_ilp_zcol(c, a), 1.0, err);
		for (size_t r = 0; r < R && !rc; r++) {
			rc = add_nz(m, *row, rp_ilp_xcol(c, arc->a, r), sign, err);
			if (!rc && arc->b != SIZE_MAX)
				rc = add_nz(m, *row, rp_ilp_xcol(c, arc->b, r), -sign, err);
		}
	}
	return rc;
}

static int load_fixed_rows(rp_ilp_model *md, rp_err *err)
{
	const rp_ilp_problem *pb = md->pb;
	const rp_ilp_cols *c = md->c;
	size_t n = pb->nitems, R = pb->nregions;
	matrix m = { NULL, NULL, NULL, 0, 0 };
	int rc = 0;
	/* each item in at most (pins: exactly) one region */
	glp_add_rows(md->lp, (int)n);
	for (size_t i = 0; i < n && !rc; i++) {
		md->rows++;
		glp_set_row_bnds(md->lp, md->rows, pb->items[i].must ? GLP_FX : GLP_UP, pb->items[i].must ? 1.0 : 0.0, 1.0);
		for (size_t r = 0; r < R && !rc; r++)
			rc = add_nz(&m, md->rows, rp_ilp_xcol(c, i, r), 1.0, err);
	}
	/* capacity, veneers included */
	glp_add_rows(md->lp, (int)R);
	for (size_t r = 0; r < R && !rc; r++) {
		md->rows++;
		glp_set_row_bnds(md->lp, md->rows, GLP_UP, 0.0, (double)pb->regions[r].budget);
		for (size_t i = 0; i < n && !rc; i++)
			rc = add_nz(&m, md->rows, rp_ilp_xcol(c, i, r), (double)pb->items[i].size, err);
		for (size_t t = 0; t < c->T && !rc; t++)
			rc = add_nz(&m, md->rows, rp_ilp_ycol(c, r, t), (double)pb->veneer_bytes, err);
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
static void core_add(rp_ilp_model *md, size_t i)
{
	if (md->in_core[i])
		return;
	md->in_core[i] = 1;
	md->ncore++;
	size_t R = md->pb->nregions, ncalls;
	for (size_t r = 0; r < R; r++)
		glp_set_col_bnds(md->lp, rp_ilp_xcol(md->c, i, r), GLP_DB, 0.0, 1.0);
	const size_t *calls = rp_ils_calls_of(md->search, i, &ncalls);
	if (!ncalls || !md->c->T)
		return;
	glp_add_rows(md->lp, (int)(ncalls * R));
	for (size_t k = 0; k < ncalls; k++) {
		const rp_ilp_call *cl = &md->pb->calls[calls[k]];
		for (size_t r = 0; r < R; r++) {
			int ind[4] = { 0, rp_ilp_ycol(md->c, r, cl->target), rp_ilp_xcol(md->c, i, r), cl->to == SIZE_MAX ? 0 : rp_ilp_xcol(md->c, cl->to, r) };
			double val[4] = { 0, 1.0, -1.0, 1.0 };
			md->rows++;
			glp_set_row_bnds(md->lp, md->rows, GLP_LO, 0.0, 0.0);
			glp_set_mat_row(md->lp, md->rows, cl->to == i ? 1 : cl->to == SIZE_MAX ? 2 : 3, ind, val);   /* a self-call needs no veneer */
		}
	}
}

/* The first core: pinned items, arc ends, and the densest other items up to the total budget
 * (at least 64 of them). */
static int core_start(rp_ilp_model *md, rp_err *err)
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

int rp_ilp_model_build(rp_ilp_model *md, rp_err *err)
{
	const rp_ilp_problem *pb = md->pb;
	const rp_ilp_cols *c = md->c;
	glp_prob *lp = md->lp;
	glp_set_obj_dir(lp, GLP_MAX);
	glp_add_cols(lp, c->ncols);
	for (size_t i = 0; i < pb->nitems; i++)
		for (size_t r = 0; r < pb->nregions; r++) {
			int j = rp_ilp_xcol(c, i, r);
			glp_set_col_kind(lp, j, GLP_BV);
			glp_set_col_bnds(lp, j, GLP_FX, 0.0, 0.0);
			glp_set_obj_coef(lp, j, pb->regions[r].gain * pb->items[i].value);
		}
	for (int j = c->y0; j < c->ncols + 1; j++)
		glp_set_col_bnds(lp, j, GLP_DB, 0.0, 1.0);
	for (size_t a = 0; a < pb->narcs; a++)
		glp_set_obj_coef(lp, rp_ilp_zcol(c, a), -pb->arcs[a].cycles);
	int rc = load_fixed_rows(md, err);
	return rc ? rc : core_start(md, err);
}

size_t rp_ilp_model_price(rp_ilp_model *md, double zlp, double keep_above)
{
	size_t added = 0;
	double tol = 1e-9 * (fabs(zlp) > 1 ? fabs(zlp) : 1);
	for (size_t i = 0; i < md->pb->nitems; i++) {
		if (md->in_core[i])
			continue;
		for (size_t r = 0; r < md->pb->nregions; r++) {
			double d = glp_get_col_dual(md->lp, rp_ilp_xcol(md->c, i, r));
			if (d > tol || zlp + d >= keep_above) {
				core_add(md, i);
				added++;
				break;
			}
		}
	}
	return added;
}

void rp_ilp_assignment_columns(const rp_ilp_problem *pb, const rp_ilp_cols *c, const int *region, double *x)
{
	memset(x, 0, (size_t)(c->ncols + 1) * sizeof(double));
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			x[rp_ilp_xcol(c, i, (size_t)region[i])] = 1.0;
	unsigned char *need = malloc(pb->nregions * (pb->ntargets ? pb->ntargets : 1));
	if (need && pb->veneer_bytes) {
		rp_ilp_needed_veneers(pb, region, need);
		for (size_t r = 0; r < pb->nregions; r++)
			for (size_t t = 0; t < pb->ntargets; t++)
				x[rp_ilp_ycol(c, r, t)] = need[r * pb->ntargets + t];
	}
	free(need);
	for (size_t a = 0; a < pb->narcs; a++)
		x[rp_ilp_zcol(c, a)] = rp_ilp_arc_crosses(pb, region, a);
}

/* A basis at the assignment: every row basic, every column at the bound the assignment gives
 * it. Primal feasible when the assignment is, and close to the optimum when the assignment is
 * good, so the first LP needs far fewer pivots than from the all-slack basis (n = 2,000: 0.39 s
 * instead of 0.68 s). The assignment's items join the core first, or their x would be fixed. */
void rp_ilp_model_warm_basis(rp_ilp_model *md, const int *region)
{
	glp_prob *lp = md->lp;
	const rp_ilp_problem *pb = md->pb;
	const rp_ilp_cols *c = md->c;
	for (size_t i = 0; i < pb->nitems; i++)
		if (region[i] >= 0)
			core_add(md, i);
	double *x = malloc((size_t)(c->ncols + 1) * sizeof(double));
	if (!x)
		return;   /* the LP starts from the standard basis */
	rp_ilp_assignment_columns(pb, c, region, x);
	for (int i = 1; i <= glp_get_num_rows(lp); i++)
		glp_set_row_stat(lp, i, GLP_BS);
	for (int j = 1; j <= c->ncols; j++)
		glp_set_col_stat(lp, j, glp_get_col_type(lp, j) == GLP_FX ? GLP_NS : x[j] > 0.5 ? GLP_NU : GLP_NL);
	free(x);
}
