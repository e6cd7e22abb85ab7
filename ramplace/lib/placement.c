/* placement.c: profile + image (+ link map) -> plan (see placement.h). Owns the temporary
 * unit table of one placement; the plan it returns is the caller's.
 * Workload: up to tens of thousands of functions, a few thousand with samples. */
#include <elf.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/calls.h"
#include "ramplace/knapsack.h"
#include "ramplace/placement.h"
#include "ramplace/util.h"

typedef struct unit {
	size_t root;              /* representative function */
	uint64_t size, weight, samples;
	size_t *callees;          /* distinct functions outside the unit it branches to */
	size_t ncallees, callees_cap;
	const char *kept_why;     /* non-NULL: stays in flash */
	size_t kept_func;         /* the function the reason is about */
	int movable;
	int chosen;
} unit;

typedef struct ctx {
	const rp_image *img;
	const rp_map *map;
	const rp_place_opts *opts;
	rp_placement *out;
	uint64_t veneer;
	size_t *parent;           /* union-find over functions */
	size_t *unit_of;          /* function -> unit */
	uint64_t *fsamples;       /* samples per function */
	size_t *insec_of;         /* function -> map input section, SIZE_MAX if none */
	unit *units;
	size_t nunits;
} ctx;

static size_t find(size_t *parent, size_t i)
{
	while (parent[i] != i) {
		parent[i] = parent[parent[i]];
		i = parent[i];
	}
	return i;
}

static void unite(size_t *parent, size_t a, size_t b)
{
	a = find(parent, a);
	b = find(parent, b);
	if (a != b)
		parent[a < b ? b : a] = a < b ? a : b;  /* lowest index is the root: deterministic */
}

static int push_str(char ***list, size_t *n, rp_err *err, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static int push_str(char ***list, size_t *n, rp_err *err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	char **bigger = realloc(*list, (*n + 1) * sizeof(char *));
	if (!bigger)
		return rp_err_nomem(err, "recording a note");
	*list = bigger;
	if (rp_strdup(&bigger[*n], buf, err))
		return err->code;
	(*n)++;
	return 0;
}

static const rp_func *lookup_profiled(const rp_image *img, const rp_func_total *t)
{
	const rp_func *f = rp_image_func_by_name(img, t->func, t->file);
	return f;
}

static int attribute_samples(ctx *c, const rp_db_totals *totals, rp_err *err)
{
	if (!totals)
		return 0;
	for (size_t i = 0; i < totals->nfuncs; i++) {
		const rp_func_total *t = &totals->funcs[i];
		if (strcmp(t->func, "<unknown>") == 0)
			continue;
		const rp_func *f = lookup_profiled(c->img, t);
		if (f) {
			c->fsamples[f - c->img->funcs] += t->count;
			continue;
		}
		c->out->missing_samples += t->count;
		int rc = t->file ? push_str(&c->out->missing, &c->out->nmissing, err, "%s (%s)", t->func, t->file)
				 : push_str(&c->out->missing, &c->out->nmissing, err, "%s", t->func);
		if (rc)
			return rc;
	}
	return 0;
}

static void group_clones(ctx *c)
{
	char parent_name[512];
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		const rp_func *f = &c->img->funcs[i];
		rp_clone_parent(f->name, parent_name, sizeof(parent_name));
		if (strcmp(parent_name, f->name) == 0)
			continue;
		const rp_func *p = f->file ? rp_image_func_by_name(c->img, parent_name, f->file) : NULL;
		if (!p)
			p = rp_image_func_by_name(c->img, parent_name, NULL);
		if (p)
			unite(c->parent, i, (size_t)(p - c->img->funcs));
	}
}

/* What a linker pattern moves moves together: functions sharing an input section are one unit. */
static void group_by_input_section(ctx *c)
{
	size_t n = c->map ? c->map->ninsecs : 0;
	size_t *owner = n ? malloc(n * sizeof(size_t)) : NULL;
	for (size_t k = 0; owner && k < n; k++)
		owner[k] = SIZE_MAX;
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		c->insec_of[i] = SIZE_MAX;
		if (!c->map)
			continue;
		const rp_map_insec *s = rp_map_insec_at(c->map, c->img->funcs[i].addr);
		if (!s)
			continue;
		size_t k = (size_t)(s - c->map->insecs);
		c->insec_of[i] = k;
		if (owner && owner[k] == SIZE_MAX)
			owner[k] = i;
		else if (owner)
			unite(c->parent, i, owner[k]);
	}
	free(owner);
}

static int is_code_section(const ctx *c, const rp_func *f)
{
	if (f->section >= c->img->nsections)
		return 0;
	const rp_section *s = &c->img->sections[f->section];
	if (!s->is_exec)
		return 0;
	return strncmp(s->name, ".text", 5) == 0 || strcmp(s->name, c->opts->outsec) == 0;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* A unit is named after its first non-clone function (by address), else its first function. */
static void name_unit(ctx *c, unit *u, size_t i)
{
	char buf[512];
	const rp_func *cur = &c->img->funcs[u->root], *f = &c->img->funcs[i];
	int cur_is_clone = strcmp(rp_clone_parent(cur->name, buf, sizeof(buf)), cur->name) != 0;
	int f_is_clone = strcmp(rp_clone_parent(f->name, buf, sizeof(buf)), f->name) != 0;
	if (cur_is_clone && !f_is_clone)
		u->root = i;
}

static int build_units(ctx *c, rp_err *err)
{
	size_t nf = c->img->nfuncs;
	size_t *unit_of_root = malloc(nf * sizeof(size_t));
	c->units = calloc(nf, sizeof(unit));
	if (!unit_of_root || !c->units) {
		free(unit_of_root);
		return rp_err_nomem(err, "building placement units");
	}
	for (size_t i = 0; i < nf; i++)
		unit_of_root[i] = SIZE_MAX;
	for (size_t i = 0; i < nf; i++) {
		size_t r = find(c->parent, i);
		if (unit_of_root[r] == SIZE_MAX) {
			unit_of_root[r] = c->nunits;
			c->units[c->nunits++] = (unit){ .root = i, .movable = 1 };
		}
		unit *u = &c->units[unit_of_root[r]];
		c->unit_of[i] = unit_of_root[r];
		name_unit(c, u, i);
		u->samples += c->fsamples[i];
		const rp_func *f = &c->img->funcs[i];
		if (!is_code_section(c, f) || (c->map && c->insec_of[i] == SIZE_MAX))
			u->movable = 0;
	}
	free(unit_of_root);
	return 0;
}

static void size_units(ctx *c)
{
	if (c->map) {
		/* each input section counted once, in the unit of its functions */
		unsigned char *seen = calloc(c->map->ninsecs ? c->map->ninsecs : 1, 1);
		for (size_t i = 0; seen && i < c->img->nfuncs; i++) {
			size_t k = c->insec_of[i];
			if (k == SIZE_MAX || seen[k])
				continue;
			seen[k] = 1;
			c->units[c->unit_of[i]].size += round_up(c->map->insecs[k].size, c->opts->align);
		}
		free(seen);
	} else {
		for (size_t i = 0; i < c->img->nfuncs; i++)
			c->units[c->unit_of[i]].size += round_up(c->img->funcs[i].size, c->opts->align);
	}
	for (size_t u = 0; u < c->nunits; u++)
		c->units[u].weight = c->units[u].size;
}

typedef struct callee_ctx {
	ctx *c;
	unit *u;
	size_t self;
	rp_err *err;
} callee_ctx;

static int note_callee(void *p, uint64_t site, uint64_t target)
{
	callee_ctx *cc = p;
	(void)site;
	const rp_func *f = rp_image_func_at(cc->c->img, target);
	if (!f || f->addr != (cc->c->img->machine == EM_ARM ? target & ~1ull : target))
		return 0;
	size_t fi = (size_t)(f - cc->c->img->funcs);
	if (cc->c->unit_of[fi] == cc->self)
		return 0;
	for (size_t k = 0; k < cc->u->ncallees; k++)
		if (cc->u->callees[k] == fi)
			return 0;
	if (rp_grow((void **)&cc->u->callees, &cc->u->callees_cap, cc->u->ncallees + 1, sizeof(size_t), cc->err))
		return cc->err->code;
	cc->u->callees[cc->u->ncallees++] = fi;
	return 0;
}

/* Callees are needed for candidates (veneers) and for the reset handler (boot path). */
static int scan_callees(ctx *c, size_t ui, rp_err *err)
{
	unit *u = &c->units[ui];
	callee_ctx cc = { c, u, ui, err };
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		if (c->unit_of[i] != ui)
			continue;
		int rc = rp_calls_scan(c->img, &c->img->funcs[i], note_callee, &cc, err);
		if (rc < 0 && rc != RP_EINPUT)
			return rc;   /* functions without file bytes simply have no known calls */
	}
	return 0;
}

static const rp_func *reset_handler(const rp_image *img)
{
	const rp_func *f = img->entry ? rp_image_func_at(img, img->entry) : NULL;
	return f ? f : rp_image_func_by_name(img, "Reset_Handler", NULL);
}

static int keep_boot_path(ctx *c, rp_err *err)
{
	const rp_func *entry = reset_handler(c->img);
	if (!entry)
		return 0;
	size_t eu = c->unit_of[entry - c->img->funcs];
	int rc = scan_callees(c, eu, err);
	if (rc)
		return rc;
	c->units[eu].kept_why = "the reset handler (or shares its input section): runs before .ramtext is copied";
	c->units[eu].kept_func = (size_t)(entry - c->img->funcs);
	for (size_t k = 0; k < c->units[eu].ncallees; k++) {
		size_t callee = c->units[eu].callees[k];
		unit *u = &c->units[c->unit_of[callee]];
		if (!u->kept_why) {
			u->kept_why = "called by the reset handler, which may run it before .ramtext is copied";
			u->kept_func = callee;
		}
	}
	return 0;
}

static int matches_exclude(const ctx *c, size_t ui)
{
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		if (c->unit_of[i] != ui)
			continue;
		for (size_t k = 0; k < c->opts->nexclude; k++)
			if (fnmatch(c->opts->exclude[k], c->img->funcs[i].name, 0) == 0)
				return 1;
	}
	return 0;
}

static int apply_exclusions(ctx *c, rp_err *err)
{
	if (c->opts->keep_boot_path) {
		int rc = keep_boot_path(c, err);
		if (rc)
			return rc;
	}
	for (size_t u = 0; u < c->nunits; u++) {
		if (!c->units[u].kept_why && c->opts->nexclude && matches_exclude(c, u)) {
			c->units[u].kept_why = "excluded by --exclude";
			c->units[u].kept_func = c->units[u].root;
		}
		if (c->units[u].kept_why && c->units[u].samples) {
			const rp_func *f = &c->img->funcs[c->units[u].kept_func];
			if (push_str(&c->out->kept, &c->out->nkept, err, "%s: %s", f->name, c->units[u].kept_why))
				return err->code;
		}
	}
	return 0;
}

static int is_candidate(const unit *u)
{
	return u->movable && !u->kept_why && u->samples > 0;
}

/* Veneers in RAM: one per distinct flash function called from the chosen units. */
static size_t count_veneers(const ctx *c)
{
	size_t n = 0;
	unsigned char *counted = calloc(c->img->nfuncs ? c->img->nfuncs : 1, 1);
	for (size_t u = 0; counted && u < c->nunits; u++) {
		if (!c->units[u].chosen)
			continue;
		for (size_t k = 0; k < c->units[u].ncallees; k++) {
			size_t fi = c->units[u].callees[k];
			if (!c->units[c->unit_of[fi]].chosen && !counted[fi]) {
				counted[fi] = 1;
				n++;
			}
		}
	}
	free(counted);
	return n;
}

static uint64_t bytes_used(const ctx *c, size_t *nveneers)
{
	uint64_t used = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].chosen)
			used += c->units[u].size;
	*nveneers = c->veneer ? count_veneers(c) : 0;
	return used + *nveneers * c->veneer;
}

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

/* Insertion by density into the room the knapsack's veneer upper bound left over. */
static int fill_remaining(ctx *c, size_t *cand, size_t n, rp_err *err)
{
	(void)err;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && by_density(c, cand[j], cand[j - 1]) < 0; j--) {
			size_t t = cand[j];
			cand[j] = cand[j - 1];
			cand[j - 1] = t;
		}
	size_t nveneers;
	uint64_t used = bytes_used(c, &nveneers);
	for (size_t k = 0; k < n; k++) {
		unit *u = &c->units[cand[k]];
		if (u->chosen || used + u->size > c->opts->budget)
			continue;
		u->chosen = 1;
		uint64_t with = bytes_used(c, &nveneers);
		if (with > c->opts->budget)
			u->chosen = 0;
		else
			used = with;
	}
	return 0;
}

/* The knapsack sees each unit with all its veneers (an upper bound, so its answer fits); then
 * units that fit with their true veneer cost are added by value density. */
static int solve(ctx *c, rp_err *err)
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
		if (!is_candidate(&c->units[u]))
			continue;
		if (c->veneer && (rc = scan_callees(c, u, err)))
			goto out;
		c->units[u].weight = c->units[u].size + c->units[u].ncallees * c->veneer;
		items[n] = (rp_ks_item){ c->units[u].weight, c->units[u].samples };
		cand[n++] = u;
	}
	c->out->ncandidates = n;
	rp_ks_result res;
	if ((rc = rp_knapsack_solve(items, n, c->opts->budget, chosen, &res, err)))
		goto out;
	for (size_t k = 0; k < n; k++)
		c->units[cand[k]].chosen = chosen[k];
	rc = fill_remaining(c, cand, n, err);
out:
	free(cand);
	free(items);
	free(chosen);
	return rc;
}

static const rp_map_region *ram_region(const ctx *c, rp_err *err, int *rc)
{
	*rc = 0;
	if (!c->map)
		return NULL;
	if (c->opts->region) {
		const rp_map_region *r = rp_map_region_find(c->map, c->opts->region, 0);
		if (!r)
			*rc = rp_err_set(err, RP_EUSAGE, "%s: no memory region '%s' in the map", c->map->path, c->opts->region);
		return r;
	}
	const rp_section *s = rp_image_section(c->img, c->opts->outsec);
	if (!s)
		s = rp_image_section(c->img, ".data");
	const rp_map_region *r = s ? rp_map_region_find(c->map, NULL, s->vma) : NULL;
	return r ? r : rp_map_region_find(c->map, "RAM", 0);
}

static int check_budget(const ctx *c, const rp_map_region *region, rp_err *err)
{
	if (c->opts->budget == 0)
		return rp_err_set(err, RP_EUSAGE, "--budget: 0 bytes leaves no room to move anything");
	if (region && region->length && c->opts->budget > region->length)
		return rp_err_set(err, RP_EUSAGE, "--budget: %llu bytes is larger than the %s region (%llu bytes at 0x%llx)",
				  (unsigned long long)c->opts->budget, region->name,
				  (unsigned long long)region->length, (unsigned long long)region->origin);
	return 0;
}

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

static int fill_plan_units(const ctx *c, rp_plan *plan, rp_err *err)
{
	size_t n = 0;
	for (size_t u = 0; u < c->nunits; u++)
		n += c->units[u].chosen;
	size_t *order = malloc((n ? n : 1) * sizeof(size_t));
	plan->units = calloc(n ? n : 1, sizeof(rp_plan_unit));
	if (!order || !plan->units) {
		free(order);
		return rp_err_nomem(err, "writing the plan");
	}
	n = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].chosen)
			order[n++] = u;
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && cmp_chosen(c, order[j], order[j - 1]) < 0; j--) {
			size_t t = order[j];
			order[j] = order[j - 1];
			order[j - 1] = t;
		}
	int rc = 0;
	for (size_t k = 0; k < n && !rc; k++) {
		const unit *u = &c->units[order[k]];
		const rp_func *root = &c->img->funcs[u->root];
		rp_plan_unit *pu = &plan->units[plan->nunits++];
		pu->size = u->size;
		pu->weight = u->size;
		pu->samples = u->samples;
		plan->used += u->size;
		plan->moved_samples += u->samples;
		if (rp_strdup(&pu->name, root->name, err) || rp_strdup(&pu->file, root->file, err))
			rc = err->code;
		else
			rc = add_unit_patterns(c, order[k], pu, err) || add_unit_funcs(c, order[k], pu, err) ? err->code : 0;
	}
	free(order);
	return rc;
}

static int make_plan(ctx *c, const rp_map_region *region, uint64_t total, rp_err *err)
{
	rp_plan *plan = calloc(1, sizeof(*plan));
	if (!plan)
		return rp_err_nomem(err, "writing the plan");
	c->out->plan = plan;
	plan->budget = c->opts->budget;
	plan->total_samples = total;
	if (rp_strdup(&plan->build_id, c->img->build_id, err) || rp_strdup(&plan->outsec, c->opts->outsec, err))
		return err->code;
	if (region) {
		if (rp_strdup(&plan->region, region->name, err))
			return err->code;
		plan->region_origin = region->origin;
		plan->region_length = region->length;
	}
	int rc = fill_plan_units(c, plan, err);
	if (rc)
		return rc;
	plan->veneer_reserve = c->out->nveneers * c->veneer;
	return 0;
}

static void ctx_release(ctx *c)
{
	for (size_t u = 0; c->units && u < c->nunits; u++)
		free(c->units[u].callees);
	free(c->units);
	free(c->parent);
	free(c->unit_of);
	free(c->fsamples);
	free(c->insec_of);
}

static int ctx_init(ctx *c, const rp_image *img, const rp_map *map, const rp_place_opts *opts,
		    rp_placement *out, rp_err *err)
{
	size_t nf = img->nfuncs ? img->nfuncs : 1;
	memset(c, 0, sizeof(*c));
	c->img = img;
	c->map = map;
	c->opts = opts;
	c->out = out;
	c->veneer = opts->veneer_size >= 0 ? (uint64_t)opts->veneer_size : img->machine == EM_ARM ? 8 : 0;
	c->parent = malloc(nf * sizeof(size_t));
	c->unit_of = malloc(nf * sizeof(size_t));
	c->fsamples = calloc(nf, sizeof(uint64_t));
	c->insec_of = malloc(nf * sizeof(size_t));
	if (!c->parent || !c->unit_of || !c->fsamples || !c->insec_of)
		return rp_err_nomem(err, "preparing the placement");
	for (size_t i = 0; i < img->nfuncs; i++)
		c->parent[i] = i;
	return 0;
}

int rp_place(const rp_image *img, const rp_map *map, const rp_db_totals *totals,
	     const rp_place_opts *opts, rp_placement *out, rp_err *err)
{
	ctx c;
	int rc;
	memset(out, 0, sizeof(*out));
	out->guessed_patterns = map == NULL;
	if ((rc = ctx_init(&c, img, map, opts, out, err)))
		goto done;
	const rp_map_region *region = ram_region(&c, err, &rc);
	if (rc || (rc = check_budget(&c, region, err)) || (rc = attribute_samples(&c, totals, err)))
		goto done;
	group_clones(&c);
	group_by_input_section(&c);
	if ((rc = build_units(&c, err)))
		goto done;
	size_units(&c);
	if ((rc = apply_exclusions(&c, err)) || (rc = solve(&c, err)))
		goto done;
	bytes_used(&c, &out->nveneers);
	rc = make_plan(&c, region, totals ? totals->total : 0, err);
done:
	ctx_release(&c);
	if (rc)
		rp_placement_release(out);
	return rc;
}

void rp_placement_release(rp_placement *p)
{
	rp_plan_free(p->plan);
	for (size_t i = 0; i < p->nmissing; i++)
		free(p->missing[i]);
	for (size_t i = 0; i < p->nkept; i++)
		free(p->kept[i]);
	free(p->missing);
	free(p->kept);
	memset(p, 0, sizeof(*p));
}
