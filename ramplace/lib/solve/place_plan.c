/* place_plan.c: the chosen units written as one plan per region (place.h, plan.h): units by
 * samples, each with its input-section patterns (from the map, or guessed from names) and
 * functions, sizes as the linker will lay them out, and the veneers the region must hold. The
 * plans it allocates belong to the placement (rp_placement_release). */
#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"
#include "place.h"

static int add_unit_patterns(const ctx *c, size_t ui, rp_plan_unit *pu, rp_err *err)
{
	size_t cap = 0;
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		if (c->unit_of[i] != ui)
			continue;
		char *pattern = NULL;
		size_t k = c->insec_of[i];
		int dup = 0;
		for (size_t j = 0; j < i && c->map; j++)
			dup |= c->unit_of[j] == ui && c->insec_of[j] == k;
		if (dup)
			continue;
		if (c->map) {
			if (rp_map_insec_pattern(&pattern, &c->map->insecs[k], err))
				return err->code;
		} else {
			const char *name = c->img->funcs[i].name;
			size_t len = 2 * strlen(name) + 32;
			if (!(pattern = malloc(len)))
				return rp_err_nomem(err, "writing patterns");
			snprintf(pattern, len, "*(.text.%s .text.*.%s)", name, name);
		}
		if (rp_grow((void **)&pu->patterns, &cap, pu->npatterns + 1, sizeof(char *), err)) {
			free(pattern);
			return err->code;
		}
		pu->patterns[pu->npatterns++] = pattern;
	}
	return 0;
}

static int add_unit_funcs(const ctx *c, size_t ui, rp_plan_unit *pu, rp_err *err)
{
	size_t cap = 0;
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		if (c->unit_of[i] != ui)
			continue;
		if (rp_grow((void **)&pu->funcs, &cap, pu->nfuncs + 1, sizeof(rp_plan_func), err))
			return err->code;
		rp_plan_func *pf = &pu->funcs[pu->nfuncs++];
		memset(pf, 0, sizeof(*pf));
		if (rp_strdup(&pf->name, c->img->funcs[i].name, err) ||
		    rp_strdup(&pf->file, c->img->funcs[i].file, err))
			return err->code;
	}
	return 0;
}

static int cmp_chosen(const ctx *c, size_t a, size_t b)
{
	const unit *x = &c->units[a], *y = &c->units[b];
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(c->img->funcs[x->root].name, c->img->funcs[y->root].name);
}

static int in_region(const unit *u, int r)
{
	return u->chosen && u->region == r;
}

static int fill_plan_units(const ctx *c, int r, rp_plan *plan, rp_err *err)
{
	size_t n = 0;
	for (size_t u = 0; u < c->nunits; u++)
		n += in_region(&c->units[u], r);
	size_t *order = malloc((n ? n : 1) * sizeof(size_t));
	plan->units = calloc(n ? n : 1, sizeof(rp_plan_unit));
	if (!order || !plan->units) {
		free(order);
		return rp_err_nomem(err, "writing the plan");
	}
	n = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (in_region(&c->units[u], r))
			order[n++] = u;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_chosen(c, order[j], order[j - 1]) < 0; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	int rc = 0;
	uint64_t offset = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		const unit *u = &c->units[order[k]];
		const rp_func *root = &c->img->funcs[u->root];
		rp_plan_unit *pu = &plan->units[plan->nunits++];
		pu->size = u->size;
		if (c->img->machine == EM_RISCV && c->map)
			pu->size = pl_layout_unit(c, order[k], &offset);
		pu->weight = pu->size + (uint64_t)pl_relax_delta(c, order[k], 0);
		pu->samples = u->samples;
		plan->used += pu->weight;
		plan->moved_samples += u->samples;
		if (rp_strdup(&pu->name, root->name, err) || rp_strdup(&pu->file, root->file, err))
			rc = err->code;
		else
			rc = add_unit_patterns(c, order[k], pu, err) || add_unit_funcs(c, order[k], pu, err) ? err->code : 0;
	}
	free(order);
	return rc;
}

static int make_plan(ctx *c, size_t r, uint64_t total, rp_err *err)
{
	const region *rg = &c->regions[r];
	rp_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return rp_err_nomem(err, "writing the plan");
	c->out->plans[c->out->nplans++] = plan;
	plan->budget = rg->budget;
	plan->total_samples = total;
	plan->align = rg->align;
	if (rp_strdup(&plan->build_id, c->img->build_id, err) || rp_strdup(&plan->outsec, rg->outsec, err))
		return err->code;
	if (rg->map_region) {
		if (rp_strdup(&plan->region, rg->map_region->name, err))
			return err->code;
		plan->region_origin = rg->map_region->origin;
		plan->region_length = rg->map_region->length;
	}
	int rc = fill_plan_units(c, (int)r, plan, err);
	if (rc)
		return rc;
	plan->nveneers = pl_region_veneers(c, (int)r);
	plan->veneer_reserve = plan->nveneers * c->veneer;
	c->out->nveneers += plan->nveneers;
	return 0;
}

int pl_make_plans(ctx *c, uint64_t total, rp_err *err)
{
	c->out->plans = calloc(c->nregions, sizeof(rp_plan *));
	if (!c->out->plans)
		return rp_err_nomem(err, "writing the plan");
	for (size_t r = 0; r < c->nregions; r++)
		if (make_plan(c, r, total, err))
			return err->code;
	c->out->plan = c->out->plans[0];
	return 0;
}
