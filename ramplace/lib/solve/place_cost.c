/* place_cost.c: what a choice costs beyond its code (place.h): Cortex-M veneers for calls
 * between locations, RISC-V call sites that linker relaxation resizes, and under a cost model
 * the cycles saved per sample in a region and lost per executed veneer on a sampled arc. Owns no
 * state: every function reads the units and regions of the placement. */
#include <elf.h>
#include <stdlib.h>

#include "place.h"

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* RISC-V linker relaxation, which makes code size depend on where it ends up. A call between
 * flash and RAM (far apart) cannot stay jal or c.jal, so ld keeps auipc+jalr: +4 or +6 bytes
 * for each such site in moved code. Between two units in the same RAM region ld starts again
 * from each object's auipc+jalr: with compressed code (RVC, RV32) in a region of at most
 * 2 KiB every call reaches as c.jal/c.j (-2 per jal site, -6 per pair), except a call linking
 * another register than ra (jal t0: -msave-restore's millicode), which stays jal (-4 per pair),
 * and a c.beqz/c.bnez may no longer reach (+2, a bound); in a larger region a c.jal of the
 * flash build may no longer reach (+2, a bound), and a pair becomes jal (-4); without RVC a
 * pair becomes jal (-4), a jal stays. An auipc+jalr already within jal's reach in the flash
 * build was assembled under `.option norelax` (startup code) and stays 8 bytes. upper: the
 * growth with every callee elsewhere (a bound for the solvers). Other architectures: 0. */
int pl_in_jal_reach(const ctx *c, const rp_cg_edge *e)
{
	uint64_t to = c->img->funcs[e->to].addr;
	uint64_t dist = to > e->first_site ? to - e->first_site : e->first_site - to;
	return dist < (1u << 20) - 4096;
}

static int64_t shrinkable8(const ctx *c, const rp_cg_edge *e, int64_t *wide)
{
	int fixed = pl_in_jal_reach(c, e);
	*wide = fixed ? 0 : e->wide8;
	return fixed ? 0 : e->sites8;
}

static int64_t same_region_delta(const ctx *c, const rp_cg_edge *e, int cjal, uint64_t budget)
{
	int64_t wide8, pairs = shrinkable8(c, e, &wide8);
	if (cjal && budget <= 2046)
		return -2 * ((int64_t)e->sites4 - e->wide4) - 6 * (pairs - wide8) - 4 * wide8 + 2 * (int64_t)e->wide2;
	return (cjal ? 2 * (int64_t)e->sites2 : 0) - 4 * pairs;
}

int64_t pl_relax_delta(const ctx *c, size_t ui, int upper)
{
	if (c->img->machine != EM_RISCV || !c->cg)
		return 0;
	const unit *u = &c->units[ui];
	uint64_t budget = u->chosen ? c->regions[u->region].budget : 0;
	int relaxed = !upper && u->chosen && !c->no_relax && budget < (1u << 20);
	int cjal = c->img->riscv_rvc && c->img->elfclass == 32;
	int64_t d = 0;
	for (size_t j = c->ufirst[ui]; j < c->ufirst[ui + 1]; j++) {
		size_t i = c->ufuncs[j];
		for (size_t k = c->cg->first[i]; k < c->cg->first[i + 1]; k++) {
			const rp_cg_edge *e = &c->cg->edges[k];
			const unit *t = &c->units[c->unit_of[e->to]];
			if (t == u)
				continue;
			if (upper || pl_location(t) != pl_location(u))
				d += 4 * (int64_t)e->sites4 + 6 * (int64_t)e->sites2;
			else if (relaxed)
				d += same_region_delta(c, e, cjal, budget);
		}
	}
	return d;
}

/* Bytes of the chosen units at their true, placement-dependent size (RISC-V relaxation). */
uint64_t pl_bytes_used(const ctx *c)
{
	uint64_t used = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].chosen)
			used += c->units[u].size + (uint64_t)pl_relax_delta(c, u, 0);
	return used;
}

/* Whether a unit's size in RAM depends on where other units go: a veneer it may need (shared
 * by every caller of one callee), or a RISC-V call site that linker relaxation resizes. */
int pl_size_depends_on_placement(const ctx *c, size_t ui)
{
	if (c->veneer)
		return c->units[ui].ncallees > 0;
	if (pl_relax_delta(c, ui, 1) != 0)
		return 1;
	if (c->img->machine != EM_RISCV || !c->cg || c->no_relax)
		return 0;
	for (size_t j = c->ufirst[ui]; j < c->ufirst[ui + 1]; j++) {
		size_t i = c->ufuncs[j];
		for (size_t k = c->cg->first[i]; k < c->cg->first[i + 1]; k++)
			if (c->unit_of[c->cg->edges[k].to] != ui)
				return 1;
	}
	return 0;
}

double pl_region_gain(const ctx *c, size_t r)
{
	if (!c->opts->have_cost)
		return c->regions[r].speed;   /* no cost model: samples moved, weighted by region speed */
	return c->opts->cost.flash_fetch_cycles - 1.0 / c->regions[r].speed;
}

double pl_veneer_cycles(const ctx *c)
{
	double v = c->opts->cost.veneer_cycles;
	return v >= 0 ? v : c->veneer ? (double)c->img->veneer_cycles : 0.0;   /* the architecture's (image.h) */
}

/* Sampled arcs between units (with the cost model and veneers): the cycles a crossing costs. */
int pl_build_arcs(const ctx *c, const size_t *item_of, rp_ilp_arc **out, size_t *n, rp_err *err)
{
	*out = NULL;
	*n = 0;
	if (!c->opts->have_cost || !c->veneer || !c->opts->narcs || pl_veneer_cycles(c) <= 0)
		return 0;
	*out = calloc(c->opts->narcs, sizeof(rp_ilp_arc));
	if (!*out)
		return rp_err_nomem(err, "building the ILP");
	for (size_t k = 0; k < c->opts->narcs; k++) {
		const rp_arc_total *a = &c->opts->arcs[k];
		const rp_func *fa = rp_image_func_by_name(c->img, a->caller, a->caller_file);
		const rp_func *fb = rp_image_func_by_name(c->img, a->callee, a->callee_file);
		if (!fa || !fb)
			continue;
		size_t ua = c->unit_of[fa - c->img->funcs], ub = c->unit_of[fb - c->img->funcs];
		size_t ia = item_of[ua], ib = item_of[ub];
		if (ua == ub || (ia == SIZE_MAX && ib == SIZE_MAX))
			continue;
		if (ia == SIZE_MAX) {
			ia = ib;
			ib = SIZE_MAX;
		}
		(*out)[(*n)++] = (rp_ilp_arc){ ia, ib, (double)a->count * pl_veneer_cycles(c) };
	}
	return 0;
}

/* Veneers the plan of region r expects: distinct callees outside r called from units in r. */
size_t pl_region_veneers(const ctx *c, int r)
{
	if (!c->veneer)
		return 0;
	size_t n = 0;
	unsigned char *counted = calloc(c->img->nfuncs ? c->img->nfuncs : 1, 1);
	for (size_t u = 0; counted && u < c->nunits; u++) {
		if (!c->units[u].chosen || c->units[u].region != r)
			continue;
		for (size_t k = 0; k < c->units[u].ncallees; k++) {
			size_t fi = c->units[u].callees[k];
			const unit *t = &c->units[c->unit_of[fi]];
			if ((!t->chosen || t->region != r) && !counted[fi]) {
				counted[fi] = 1;
				n++;
			}
		}
	}
	free(counted);
	return n;
}

/* Expected cycles under the cost model: each sample is one instruction fetch. */
void pl_count_cycles(ctx *c, uint64_t total)
{
	if (!c->opts->have_cost)
		return;
	c->out->have_cycles = 1;
	c->out->cycles_flash = (double)total * c->opts->cost.flash_fetch_cycles;
	double saved = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].chosen)
			saved += (double)c->units[u].samples *
				 (c->opts->cost.flash_fetch_cycles - 1.0 / c->regions[c->units[u].region].speed);
	for (size_t k = 0; c->veneer && k < c->opts->narcs; k++) {
		const rp_arc_total *a = &c->opts->arcs[k];
		const rp_func *fa = rp_image_func_by_name(c->img, a->caller, a->caller_file);
		const rp_func *fb = rp_image_func_by_name(c->img, a->callee, a->callee_file);
		if (!fa || !fb)
			continue;
		const unit *ua = &c->units[c->unit_of[fa - c->img->funcs]], *ub = &c->units[c->unit_of[fb - c->img->funcs]];
		int la = ua->chosen ? ua->region : -1, lb = ub->chosen ? ub->region : -1;
		if (ua != ub && la != lb)
			saved -= (double)a->count * pl_veneer_cycles(c);
	}
	c->out->cycles_saved = saved;
}

uint64_t pl_veneer_pad(const ctx *c, uint64_t code_bytes, size_t nveneers)
{
	if (!nveneers || c->veneer_block_align <= 1)
		return 0;
	return round_up(code_bytes, c->veneer_block_align) - code_bytes;
}

uint64_t pl_usable_budget(const ctx *c, size_t r)
{
	uint64_t b = c->regions[r].budget;
	return b > c->regions[r].link_reserve ? b - c->regions[r].link_reserve : 0;
}

uint64_t pl_solver_budget(const ctx *c, size_t r)
{
	uint64_t b = pl_usable_budget(c, r);
	return c->regions[r].budget_round && c->veneer_block_align > 1 ? b - b % c->veneer_block_align : b;
}
