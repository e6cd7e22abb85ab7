/* place_plan.c: the chosen units written as one plan per region (place.h, plan.h): units by
 * samples, each with its input-section patterns (from the map, or guessed from names) and
 * functions, sizes as the linker will lay them out, and the veneers the region must hold. The
 * plans it allocates belong to the placement (rp_placement_release). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"
#include "place.h"

static int push_pattern(rp_plan_unit *pu, size_t *cap, char *pattern, rp_err *err)
{
	if (rp_grow((void **)&pu->patterns, cap, pu->npatterns + 1, sizeof(char *), err)) {
		free(pattern);
		return err->code;
	}
	pu->patterns[pu->npatterns++] = pattern;
	return 0;
}

/* Without a map the input sections are guessed from the name, as -ffunction-sections names
 * them: .text.NAME, and .text.<prefix>.NAME for the prefixes GCC adds (.text.startup.main,
 * .text.unlikely.foo for foo.cold, .text.hot.NAME). One section per pattern: a plain pattern
 * that GNU ld, ld.lld and every other dialect take. */
static int push_guessed_patterns(rp_plan_unit *pu, size_t *cap, const char *name, rp_err *err)
{
	static const char *const forms[] = { "*(.text.%s)", "*(.text.*.%s)" };
	for (size_t f = 0; f < sizeof(forms) / sizeof(forms[0]); f++) {
		char *pattern = NULL;
		if (rp_asprintf(&pattern, err, forms[f], name) || push_pattern(pu, cap, pattern, err))
			return err->code;
	}
	return 0;
}

/* The patterns of unit ui, one per piece in the fragment's order (pl_unit_pieces). */
static int add_unit_patterns(const ctx *c, size_t ui, rp_plan_unit *pu, size_t *pieces, rp_err *err)
{
	size_t cap = 0, n = pl_unit_pieces(c, ui, pieces);
	for (size_t q = 0; q < n; q++) {
		char *pattern = NULL;
		if (!c->map) {
			if (push_guessed_patterns(pu, &cap, c->img->funcs[pieces[q]].name, err))
				return err->code;
		} else if (rp_map_insec_pattern(&pattern, &c->map->insecs[pieces[q]], err)) {
			/* the section is named; the map line says where it came from */
			return rp_err_wrap(err, "%s:%zu", c->map->path, c->map->insecs[pieces[q]].line);
		} else if (push_pattern(pu, &cap, pattern, err)) {
			return err->code;
		}
	}
	return 0;
}

static int add_unit_funcs(const ctx *c, size_t ui, rp_plan_unit *pu, rp_err *err)
{
	size_t cap = 0;
	for (size_t j = c->ufirst[ui]; j < c->ufirst[ui + 1]; j++) {
		size_t i = c->ufuncs[j];
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

/* The fragment's order: by alignment, largest first (so each piece's bytes are its size rounded
 * up to its alignment: pl_size_units), units of mixed alignment after the others of their
 * largest, then by samples and name for the reader. */
static int cmp_chosen(const void *a, const void *b, void *cp)
{
	const ctx *c = cp;
	const unit *x = &c->units[*(const size_t *)a], *y = &c->units[*(const size_t *)b];
	if (x->max_align != y->max_align)
		return x->max_align > y->max_align ? -1 : 1;
	if (x->min_align != y->min_align)
		return x->min_align > y->min_align ? -1 : 1;
	if (x->samples != y->samples)
		return x->samples > y->samples ? -1 : 1;
	return strcmp(c->img->funcs[x->root].name, c->img->funcs[y->root].name);
}

static int in_region(const unit *u, int r)
{
	return u->chosen && u->region == r;
}

/* Each unit's size in the plan is what it adds where the fragment puts it: the section starts
 * at the largest alignment, and each piece is padded to its own. */
static int fill_plan_units(const ctx *c, int r, rp_plan *plan, rp_err *err)
{
	size_t n = 0, most = 1;
	for (size_t u = 0; u < c->nunits; u++) {
		n += in_region(&c->units[u], r);
		if (c->ufirst[u + 1] - c->ufirst[u] > most)
			most = c->ufirst[u + 1] - c->ufirst[u];
	}
	size_t *order = malloc((n ? n : 1) * sizeof(size_t)), *pieces = malloc(most * sizeof(size_t));
	plan->units = calloc(n ? n : 1, sizeof(rp_plan_unit));
	int rc = order && pieces && plan->units ? 0 : rp_err_nomem(err, "writing the plan");
	n = 0;
	for (size_t u = 0; !rc && u < c->nunits; u++)
		if (in_region(&c->units[u], r))
			order[n++] = u;
	if (!rc && n > 1)
		rp_sort_r(order, n, sizeof(size_t), cmp_chosen, (void *)c);
	uint64_t offset = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		const unit *u = &c->units[order[k]];
		const rp_func *root = &c->img->funcs[u->root];
		rp_plan_unit *pu = &plan->units[plan->nunits++];
		pu->size = pl_layout_unit(c, order[k], &offset, pieces);
		pu->weight = pu->size + (uint64_t)pl_relax_delta(c, order[k], 0);
		pu->samples = u->samples;
		plan->used += pu->weight;
		/* counts near 2^63 come from profile.db as rounded doubles: their sum may pass the
		 * (exact) total by the rounding, never by more; the plan says moved <= total */
		if (rp_count_add(&plan->moved_samples, u->samples) || plan->moved_samples > plan->total_samples)
			plan->moved_samples = plan->total_samples;
		if (rp_strdup(&pu->name, root->name, err) || rp_strdup(&pu->file, root->file, err) ||
		    add_unit_patterns(c, order[k], pu, pieces, err) || add_unit_funcs(c, order[k], pu, err))
			rc = err->code;
	}
	free(order);
	free(pieces);
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
	plan->link_reserve = rg->link_reserve;
	plan->allow_boot_path = !c->opts->keep_boot_path;
	plan->total_samples = total;
	plan->align = rg->align;
	if (rp_strdup(&plan->build_id, c->img->build_id, err) || rp_strdup(&plan->outsec, rg->outsec, err))
		return err->code;
	plan->linker_lld = c->img->linker_lld;
	plan->sizes_estimated = c->map == NULL;
	if (r == 0 && c->nhandler_roots) {   /* the first plan records them; check proves their reach */
		if (!(plan->handlers = calloc(c->nhandler_roots, sizeof(*plan->handlers))))
			return rp_err_nomem(err, "writing the plan");
		for (size_t k = 0; k < c->nhandler_roots; k++) {
			const rp_func *f = &c->img->funcs[c->handler_roots[k]];
			plan->nhandlers = k + 1;
			if (rp_strdup(&plan->handlers[k].name, f->name, err) || rp_strdup(&plan->handlers[k].file, f->file, err))
				return err->code;
		}
	}
	if (c->opts->dialect != RP_DIALECT_GNU && rp_strdup(&plan->dialect, rp_dialect_name(c->opts->dialect), err))
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
	plan->veneer_reserve = plan->nveneers * c->veneer + pl_veneer_pad(c, plan->used, plan->nveneers);
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
