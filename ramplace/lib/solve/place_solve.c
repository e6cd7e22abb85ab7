/* place_solve.c: the solver driver (place.h). One region without pins, closures or crossing
 * costs is a 0/1 knapsack (knapsack.h); with veneers its answer (veneers as an upper bound) is
 * the ILP's start; anything else is the GLPK ILP (ilp.h). Owns the translation of units to solver
 * items and back. Workload: a few thousand candidate units. */
#include <stdlib.h>
#include <string.h>

#include "ramplace/knapsack.h"
#include "ramplace/util.h"
#include "place.h"

static int by_density(const ctx *c, size_t a, size_t b)
{
	const unit *x = &c->units[a], *y = &c->units[b];
	/* x->samples / x->size > y->samples / y->size, without division */
	unsigned __int128 lx = (unsigned __int128)x->samples * (y->size ? y->size : 1);
	unsigned __int128 ly = (unsigned __int128)y->samples * (x->size ? x->size : 1);
	if (lx != ly)
		return lx > ly ? -1 : 1;
	return a < b ? -1 : 1;
}

static int by_density_sort(const void *a, const void *b, void *c)
{
	return by_density(c, *(const size_t *)a, *(const size_t *)b);
}

/* Insertion by density into the room the knapsack's full-length call sites left over (RISC-V;
 * on Cortex-M the ILP's local search fills the room its veneer upper bound left). */
static void fill_remaining(ctx *c, size_t *cand, size_t n)
{
	rp_sort_r(cand, n, sizeof(size_t), by_density_sort, c);
	uint64_t used = pl_bytes_used(c);
	for (size_t k = 0; k < n; k++) {
		unit *u = &c->units[cand[k]];
		if (u->chosen || used + u->size > pl_usable_budget(c, 0))
			continue;
		u->chosen = 1;
		uint64_t with = pl_bytes_used(c);
		if (with > pl_usable_budget(c, 0))
			u->chosen = 0;
		else
			used = with;
	}
}

/* The knapsack sees each unit at its largest (every veneer, every call site at full length), so
 * its answer fits. When sizes depend on placement it is then not proven optimal: on Cortex-M
 * the ILP starts from it (pl_solve()); on RISC-V, units that fit at their true size are added by
 * value density. */
static int solve_knapsack(ctx *c, rp_err *err)
{
	size_t *cand = malloc((c->nunits ? c->nunits : 1) * sizeof(size_t));
	rp_ks_item *items = malloc((c->nunits ? c->nunits : 1) * sizeof(rp_ks_item));
	unsigned char *chosen = malloc(c->nunits ? c->nunits : 1);
	size_t n = 0;
	int rc = 0;
	if (!cand || !items || !chosen) {
		rc = rp_err_nomem(err, "solving the placement");
		goto out;
	}
	for (size_t u = 0; u < c->nunits; u++) {
		if (!pl_is_candidate(&c->units[u]))
			continue;
		c->units[u].weight = c->units[u].size + c->units[u].ncallees * c->veneer + (uint64_t)pl_relax_delta(c, u, 1);
		items[n] = (rp_ks_item){ c->units[u].weight, c->units[u].samples };
		cand[n++] = u;
	}
	c->out->ncandidates = n;
	rp_ks_result res;
	if ((rc = rp_knapsack_solve(items, n, pl_solver_budget(c, 0), chosen, &res, err)))
		goto out;
	int exact = 1;
	for (size_t k = 0; k < n; k++) {
		c->units[cand[k]].chosen = chosen[k];
		exact = exact && !pl_size_depends_on_placement(c, cand[k]);
	}
	c->out->solver = "knapsack (expanding core)";
	c->out->optimal = exact;
	if (!exact && !c->veneer) {
		fill_remaining(c, cand, n);
		c->out->solver = "knapsack (expanding core; call sites at full length, then filled by density)";
	}
out:
	free(cand);
	free(items);
	free(chosen);
	return rc;
}

static int has_musts(const ctx *c)
{
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].must_why)
			return 1;
	return 0;
}

typedef struct ilp_parts {
	size_t *cand, *item_of, *target_of;
	rp_ilp_item *items;
	rp_ilp_region *regions;
	rp_ilp_call *calls;
	size_t ncalls, calls_cap, ntargets;
	rp_ilp_arc *arcs;
	size_t narcs;
} ilp_parts;

static void ilp_parts_release(ilp_parts *p)
{
	free(p->cand);
	free(p->item_of);
	free(p->target_of);
	free(p->items);
	free(p->regions);
	free(p->calls);
	free(p->arcs);
}

static int build_ilp(ctx *c, ilp_parts *p, rp_ilp_problem *pb, rp_err *err)
{
	size_t nu = c->nunits ? c->nunits : 1, nf = c->img->nfuncs ? c->img->nfuncs : 1;
	p->cand = malloc(nu * sizeof(size_t));
	p->item_of = malloc(nu * sizeof(size_t));
	p->target_of = malloc(nf * sizeof(size_t));
	p->items = calloc(nu, sizeof(rp_ilp_item));
	p->regions = calloc(c->nregions, sizeof(rp_ilp_region));
	if (!p->cand || !p->item_of || !p->target_of || !p->items || !p->regions)
		return rp_err_nomem(err, "building the ILP");
	size_t n = 0;
	for (size_t u = 0; u < c->nunits; u++) {
		p->item_of[u] = SIZE_MAX;
		if (!pl_is_candidate(&c->units[u]))
			continue;
		p->item_of[u] = n;
		p->items[n] = (rp_ilp_item){ c->units[u].size + (uint64_t)pl_relax_delta(c, u, 1), (double)c->units[u].samples,
					     c->units[u].must_why != NULL };
		p->cand[n++] = u;
	}
	for (size_t i = 0; i < c->img->nfuncs; i++)
		p->target_of[i] = SIZE_MAX;
	for (size_t k = 0; c->veneer && k < n; k++) {
		const unit *u = &c->units[p->cand[k]];
		for (size_t e = 0; e < u->ncallees; e++) {
			size_t fi = u->callees[e];
			if (p->target_of[fi] == SIZE_MAX)
				p->target_of[fi] = p->ntargets++;
			if (rp_grow((void **)&p->calls, &p->calls_cap, p->ncalls + 1, sizeof(rp_ilp_call), err))
				return err->code;
			p->calls[p->ncalls++] = (rp_ilp_call){ k, p->item_of[c->unit_of[fi]], p->target_of[fi] };
		}
	}
	for (size_t r = 0; r < c->nregions; r++) {
		double g = pl_region_gain(c, r);
		if (g <= 0)
			return rp_err_set(err, RP_EINPUT, "region '%s' (speed %g) is not faster than flash at %g cycles per fetch: nothing to gain there",
					  c->regions[r].name ? c->regions[r].name : c->regions[r].outsec, c->regions[r].speed,
					  c->opts->cost.flash_fetch_cycles);
		p->regions[r] = (rp_ilp_region){ pl_solver_budget(c, r), g };
	}
	int rc = pl_build_arcs(c, p->item_of, &p->arcs, &p->narcs, err);
	*pb = (rp_ilp_problem){ p->items, n, p->regions, c->nregions, p->calls, p->ncalls, p->ntargets,
				p->arcs, p->narcs, c->veneer, c->opts->time_limit_s, NULL };
	c->out->ncandidates = n;
	return rc;
}

/* seeded: start from the units already chosen (the knapsack's answer, all in region 0). */
static int solve_ilp(ctx *c, int seeded, rp_err *err)
{
	ilp_parts parts;
	memset(&parts, 0, sizeof(parts));
	rp_ilp_problem pb;
	rp_ilp_result res;
	int *start = NULL;
	int rc = build_ilp(c, &parts, &pb, err);
	if (!rc && seeded) {
		if (!(start = malloc((pb.nitems ? pb.nitems : 1) * sizeof(int))))
			rc = rp_err_nomem(err, "solving the placement");
		for (size_t k = 0; start && k < pb.nitems; k++)
			start[k] = c->units[parts.cand[k]].chosen ? 0 : -1;
		pb.start = start;
	}
	if (!rc)
		rc = rp_ilp_solve(&pb, &res, err);
	if (!rc) {
		for (size_t k = 0; k < pb.nitems; k++) {
			unit *u = &c->units[parts.cand[k]];
			u->region = res.region[k];
			u->chosen = res.region[k] >= 0;
		}
		c->out->solver = seeded ? "knapsack (expanding core), then ILP (GLPK) for the veneers" : "ILP (GLPK)";
		c->out->optimal = res.optimal;
		c->out->gap = res.gap;
		c->out->seconds = res.seconds;
		rp_ilp_result_release(&res);
	}
	free(start);
	ilp_parts_release(&parts);
	return rc;
}

/* One region without pins or arcs is a knapsack; with veneers its answer (veneers as an upper
 * bound) is not proven optimal, so the ILP starts from it and proves or improves it within the
 * time limit (its local search also fills the room the upper bound left). */
static int solve_once(ctx *c, rp_err *err)
{
	int arcs_matter = c->opts->have_cost && c->veneer && c->opts->narcs;
	if (c->nregions == 1 && !has_musts(c) && !arcs_matter && !c->opts->force_ilp) {
		int rc = solve_knapsack(c, err);
		return rc || c->out->optimal || !c->veneer ? rc : solve_ilp(c, 1, err);
	}
	return solve_ilp(c, 0, err);
}

/* Marks each region whose choice, with its veneers and the padding before GNU ld's veneer
 * block, is over its budget (the solvers count veneers but not that padding); returns how many. */
static size_t mark_overflows(ctx *c)
{
	size_t n = 0;
	for (size_t r = 0; r < c->nregions; r++) {
		uint64_t code = 0;
		for (size_t u = 0; u < c->nunits; u++)
			if (c->units[u].chosen && c->units[u].region == (int)r)
				code += c->units[u].size + (uint64_t)pl_relax_delta(c, u, 0);
		size_t nv = pl_region_veneers(c, (int)r);
		if (code + nv * c->veneer + pl_veneer_pad(c, code, nv) > pl_usable_budget(c, r)) {
			c->regions[r].budget_round = 1;
			n++;
		}
	}
	return n;
}

/* What the solvers maximise, without the arcs: samples weighted by each region's gain. */
static double value(const ctx *c)
{
	double v = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].chosen)
			v += (double)c->units[u].samples * pl_region_gain(c, (size_t)c->units[u].region);
	return v;
}

/* With veneers, code + veneers + padding to the block's alignment A fits budget B exactly when
 * code + veneers <= B rounded down to A (veneers are whole multiples of A). So the solvers see
 * B first, a relaxation; an answer that the padding pushes over B is solved again with B rounded
 * down, which holds every fitting answer with veneers. It stays proven optimal when it is worth
 * as much as the relaxation's (an answer without veneers above the rounded budget could beat it
 * otherwise). */
/* The candidates as the knapsack weighs them, kept for the budget curve (curve.h). */
static int keep_items(ctx *c, rp_err *err)
{
	rp_placement *o = c->out;
	o->items = malloc((c->nunits ? c->nunits : 1) * sizeof(rp_ks_item));
	if (!o->items)
		return rp_err_nomem(err, "solving the placement");
	for (size_t u = 0; u < c->nunits; u++)
		if (pl_is_candidate(&c->units[u]))
			o->items[o->nitems++] = (rp_ks_item){ c->units[u].size + c->units[u].ncallees * c->veneer +
							      (uint64_t)pl_relax_delta(c, u, 1), c->units[u].samples };
	return 0;
}

int pl_solve(ctx *c, rp_err *err)
{
	int rc = keep_items(c, err);
	if (rc)
		return rc;
	rc = solve_once(c, err);
	if (rc || c->veneer_block_align <= 2 || !mark_overflows(c))
		return rc;
	double relaxed = value(c);
	int was_optimal = c->out->optimal;
	for (size_t u = 0; u < c->nunits; u++)
		c->units[u].chosen = 0;
	rc = solve_once(c, err);
	c->out->optimal = c->out->optimal && was_optimal && value(c) >= relaxed - 1e-9 * (relaxed > 1 ? relaxed : 1);
	if (!rc && mark_overflows(c))   /* cannot happen when veneers are whole blocks: never a plan */
		rc = rp_err_set(err, RP_EIO, "placement: the veneer block's padding still exceeds a budget after rounding it (a bug: please report it)");
	return rc;
}
