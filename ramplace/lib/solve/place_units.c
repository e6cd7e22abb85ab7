/* place_units.c: placement units (place.h). A unit is a function with its compiler clones
 * (foo.part.0, foo.cold, foo.isra.0 ...) and every function that shares a link-map input section
 * with them: what a linker pattern moves moves together. Owns the grouping (union-find over
 * functions), each unit's samples, size in RAM and distinct outside callees. Workload: up to
 * tens of thousands of functions, a few thousand with samples. */
#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/util.h"
#include "place.h"

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

static const rp_func *lookup_profiled(const rp_image *img, const rp_func_total *t)
{
	const rp_func *f = rp_image_func_by_name(img, t->func, t->file);
	return f;
}

int pl_attribute_samples(ctx *c, const rp_db_totals *totals, rp_err *err)
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
		int rc = t->file ? rp_strlist_pushf(&c->out->missing, &c->out->nmissing, err, "%s (%s)", t->func, t->file)
				 : rp_strlist_pushf(&c->out->missing, &c->out->nmissing, err, "%s", t->func);
		if (rc)
			return rc;
	}
	return 0;
}

void pl_group_clones(ctx *c)
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
void pl_group_by_input_section(ctx *c)
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

int pl_build_units(ctx *c, rp_err *err)
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

/* Functions grouped by unit (a counting sort), so per-unit walks do not scan every function. */
int pl_index_units(ctx *c, rp_err *err)
{
	c->ufirst = calloc(c->nunits + 1, sizeof(size_t));
	c->ufuncs = malloc((c->img->nfuncs ? c->img->nfuncs : 1) * sizeof(size_t));
	if (!c->ufirst || !c->ufuncs)
		return rp_err_nomem(err, "preparing the placement");
	for (size_t i = 0; i < c->img->nfuncs; i++)
		c->ufirst[c->unit_of[i] + 1]++;
	for (size_t u = 0; u < c->nunits; u++)
		c->ufirst[u + 1] += c->ufirst[u];
	size_t *fill = malloc((c->nunits ? c->nunits : 1) * sizeof(size_t));
	if (!fill)
		return rp_err_nomem(err, "preparing the placement");
	memcpy(fill, c->ufirst, c->nunits * sizeof(size_t));
	for (size_t i = 0; i < c->img->nfuncs; i++)
		c->ufuncs[fill[c->unit_of[i]]++] = i;
	free(fill);
	return 0;
}

/* RISC-V code (RVC) is packed at 2-byte alignment: rounding each input section up to 4 would
 * over-count. The map does not give alignments, so a section's is read from the flash link: 4
 * when ld left a 2-byte gap before it to reach a multiple of 4, else 2 (a 4-aligned section
 * that happened to follow a 4-aligned end is the one case this misses, by 2 bytes). */
static uint64_t insec_align(const ctx *c, size_t k)
{
	const rp_map_insec *s = &c->map->insecs[k];
	if (s->addr % 4 || k == 0)
		return 2;
	const rp_map_insec *prev = &c->map->insecs[k - 1];
	uint64_t end = prev->addr + prev->size;
	return end % 4 == 2 && s->addr == end + 2 ? 4 : 2;
}

static uint64_t insec_bytes(const ctx *c, size_t k)
{
	const rp_map_insec *s = &c->map->insecs[k];
	if (c->img->machine != EM_RISCV)
		return round_up(s->size, c->regions[0].align);
	return round_up(s->size, 2) + (insec_align(c, k) > 2 ? 2 : 0);
}

/* RISC-V: the bytes unit ui adds when laid out from *offset in the section (exact padding for
 * the guessed alignments, in the order the fragment lists its input sections). */
uint64_t pl_layout_unit(const ctx *c, size_t ui, uint64_t *offset)
{
	uint64_t start = *offset;
	for (size_t j = c->ufirst[ui]; j < c->ufirst[ui + 1]; j++) {
		size_t i = c->ufuncs[j], k = c->insec_of[i];
		int dup = 0;
		for (size_t q = c->ufirst[ui]; q < j; q++)
			dup |= c->insec_of[c->ufuncs[q]] == k;
		if (k == SIZE_MAX || dup)
			continue;
		*offset = round_up(*offset, insec_align(c, k)) + c->map->insecs[k].size;
	}
	return *offset - start;
}

void pl_size_units(ctx *c)
{
	if (c->map) {
		/* each input section counted once, in the unit of its functions */
		unsigned char *seen = calloc(c->map->ninsecs ? c->map->ninsecs : 1, 1);
		for (size_t i = 0; seen && i < c->img->nfuncs; i++) {
			size_t k = c->insec_of[i];
			if (k == SIZE_MAX || seen[k])
				continue;
			seen[k] = 1;
			c->units[c->unit_of[i]].size += insec_bytes(c, k);
		}
		free(seen);
	} else {
		for (size_t i = 0; i < c->img->nfuncs; i++)
			c->units[c->unit_of[i]].size += round_up(c->img->funcs[i].size, c->opts->align);
	}
	for (size_t u = 0; u < c->nunits; u++)
		c->units[u].weight = c->units[u].size;
}

static int add_callee(unit *u, size_t fi, rp_err *err)
{
	for (size_t k = 0; k < u->ncallees; k++)
		if (u->callees[k] == fi)
			return 0;
	if (rp_grow((void **)&u->callees, &u->callees_cap, u->ncallees + 1, sizeof(size_t), err))
		return err->code;
	u->callees[u->ncallees++] = fi;
	return 0;
}

/* Distinct functions outside each unit that it calls or branches to (veneer targets). */
int pl_collect_callees(ctx *c, rp_err *err)
{
	if (!c->cg)
		return 0;
	for (size_t e = 0; e < c->cg->nedges; e++) {
		const rp_cg_edge *ed = &c->cg->edges[e];
		size_t u = c->unit_of[ed->from];
		if (c->unit_of[ed->to] != u && add_callee(&c->units[u], ed->to, err))
			return err->code;
	}
	return 0;
}
