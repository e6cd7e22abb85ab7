/* placement.c: profile + image (+ link map) -> one plan per region (see placement.h). Owns the
 * temporary unit table, call graph and reset-path analysis of one placement; the plans it
 * returns are the caller's. Workload: up to tens of thousands of functions, a few thousand
 * with samples. */
#include <elf.h>
#include <fnmatch.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ramplace/boot.h"
#include "ramplace/budget.h"
#include "ramplace/callgraph.h"
#include "ramplace/ilp.h"
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
	int chosen;               /* placed in RAM: region says where */
	int region;
	const char *must_why;     /* non-NULL: must be in RAM (pin, closure) */
	size_t must_func;
} unit;

typedef struct region {
	const char *name;         /* config label, or NULL for the command-line region */
	const char *outsec;
	const rp_map_region *map_region;
	uint64_t budget;
	uint64_t align;
	double speed;
	int memory_guessed;       /* map_region is a fallback (.data's memory, or RAM): no `memory`, and
				     the output section is not in a memory of the map yet */
} region;

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
	region *regions;
	size_t nregions;
	size_t *ufirst, *ufuncs;  /* functions of unit u: ufuncs[ufirst[u] .. ufirst[u+1]) */
	int no_relax;             /* RISC-V linked with --no-relax: calls stay auipc+jalr */
	rp_callgraph *cg;         /* NULL when the architecture cannot be disassembled */
	rp_boot boot;
	int have_boot;
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

static int note(ctx *c, rp_err *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int note(ctx *c, rp_err *err, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	return rp_strlist_pushf(&c->out->notes, &c->out->nnotes, err, "%s", buf);
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
		int rc = t->file ? rp_strlist_pushf(&c->out->missing, &c->out->nmissing, err, "%s (%s)", t->func, t->file)
				 : rp_strlist_pushf(&c->out->missing, &c->out->nmissing, err, "%s", t->func);
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
static uint64_t layout_unit(const ctx *c, size_t ui, uint64_t *offset)
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
static int collect_callees(ctx *c, rp_err *err)
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

static void keep(ctx *c, size_t fi, const char *why)
{
	unit *u = &c->units[c->unit_of[fi]];
	if (!u->kept_why) {
		u->kept_why = why;
		u->kept_func = fi;
	}
}

static int boot_notes(ctx *c, rp_err *err)
{
	const rp_boot *b = &c->boot;
	const rp_func *f = c->img->funcs;
	char list[400] = "";
	if (b->reset == SIZE_MAX)
		return note(c, err, "reset path: no reset handler found (no vector table, entry point or Reset_Handler)");
	if (!b->copy_found)
		return note(c, err, "reset path: %s (found by %s); where it copies %s was not found, so all %zu direct callee(s) stay in flash",
			    f[b->reset].name, b->found_by, c->regions[0].outsec, b->npre);
	for (size_t i = 0; i < b->npost; i++)
		snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s", i ? ", " : "", f[b->post[i]].name);
	int rc = note(c, err, "reset path: %s (found by %s) copies the code at 0x%llx; %zu callee(s) before that stay in flash with their closure (%zu functions)",
		      f[b->reset].name, b->found_by, (unsigned long long)b->copy_site, b->npre, b->nkeep - 1);
	if (!rc && b->npost)
		rc = note(c, err, "reset path: called after the copy, free to move: %s", list);
	return rc;
}

static int keep_boot_path(ctx *c, rp_err *err)
{
	const char **outsecs = malloc(c->nregions * sizeof(char *));
	if (!outsecs)
		return rp_err_nomem(err, "analysing the reset path");
	for (size_t r = 0; r < c->nregions; r++)
		outsecs[r] = c->regions[r].outsec;
	int rc = c->cg ? rp_boot_analyze(&c->boot, c->img, c->cg, outsecs, c->nregions, err) : 0;
	free(outsecs);
	if (rc || !c->cg)
		return rc;
	c->have_boot = 1;
	const rp_boot *b = &c->boot;
	if (b->reset == SIZE_MAX)
		return boot_notes(c, err);
	keep(c, b->reset, "the reset handler (or shares its input section): runs before .ramtext is copied");
	for (size_t i = 0; i < b->npre; i++)
		keep(c, b->pre[i], b->copy_found ? "called by the reset handler before the code is copied to RAM"
						 : "called by the reset handler, which may run it before .ramtext is copied");
	for (size_t i = 0; i < c->img->nfuncs; i++)
		if (b->keep[i])
			keep(c, i, "reached from a call the reset handler makes before the code is copied to RAM");
	return boot_notes(c, err);
}

/* The first function of unit ui matching one of the globs, or SIZE_MAX. */
static size_t unit_matches(const ctx *c, size_t ui, const char *const *globs, size_t n)
{
	for (size_t i = 0; n && i < c->img->nfuncs; i++) {
		if (c->unit_of[i] != ui)
			continue;
		for (size_t k = 0; k < n; k++)
			if (fnmatch(globs[k], c->img->funcs[i].name, 0) == 0)
				return i;
	}
	return SIZE_MAX;
}

static void must(ctx *c, size_t ui, size_t fi, const char *why)
{
	if (!c->units[ui].must_why) {
		c->units[ui].must_why = why;
		c->units[ui].must_func = fi;
	}
}

/* The static call closure of every function matching the closure globs must be in RAM. */
static int mark_closures(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	if (!o->nclosure)
		return 0;
	if (!c->cg)
		return rp_err_set(err, RP_EUSAGE, "closure: needs the call graph, which only ARM and RISC-V images have");
	size_t *roots = malloc(c->img->nfuncs * sizeof(size_t) + 1);
	unsigned char *mark = calloc(c->img->nfuncs + 1, 1);
	size_t nroots = 0;
	int rc = roots && mark ? 0 : rp_err_nomem(err, "walking closures");
	for (size_t k = 0; !rc && k < o->nclosure; k++) {
		size_t before = nroots;
		for (size_t i = 0; i < c->img->nfuncs; i++)
			if (fnmatch(o->closure[k], c->img->funcs[i].name, 0) == 0)
				roots[nroots++] = i;
		if (nroots == before)
			rc = rp_err_set(err, RP_EINPUT, "closure: no function in %s matches '%s'", c->img->path, o->closure[k]);
	}
	if (!rc)
		rc = rp_callgraph_reach(c->cg, roots, nroots, mark, err);
	for (size_t i = 0; !rc && i < c->img->nfuncs; i++)
		if (mark[i])
			must(c, c->unit_of[i], i, "in the static call closure of a closure root");
	free(roots);
	free(mark);
	return rc;
}

/* A unit that must be in RAM but cannot move is a contradiction: say which and why. */
static int check_musts(ctx *c, rp_err *err)
{
	uint64_t bytes = 0, room = 0;
	size_t n = 0;
	char names[300] = "";
	for (size_t u = 0; u < c->nunits; u++) {
		const unit *un = &c->units[u];
		if (!un->must_why)
			continue;
		const rp_func *f = &c->img->funcs[un->must_func];
		if (un->kept_why || !un->movable)
			return rp_err_set(err, RP_EINPUT, "'%s' must be in RAM (%s) but cannot move: %s", f->name, un->must_why,
					  un->kept_why ? un->kept_why : "it is not in a .text input section the map can move");
		bytes += un->size;
		if (n++ < 8)
			snprintf(names + strlen(names), sizeof(names) - strlen(names), "%s%s", n > 1 ? ", " : "", f->name);
	}
	for (size_t r = 0; r < c->nregions; r++)
		room += c->regions[r].budget;
	char roots[200] = "";
	for (size_t k = 0; k < c->opts->nclosure; k++)
		snprintf(roots + strlen(roots), sizeof(roots) - strlen(roots), "%s'%s'", k ? ", " : "; closure of ",
			 c->opts->closure[k]);
	if (bytes > room)
		return rp_err_set(err, RP_EINPUT, "infeasible: pinned and closure functions need %llu bytes in %zu unit(s) (%s%s%s), over the %llu-byte budget by %llu",
				  (unsigned long long)bytes, n, names, n > 8 ? ", ..." : "", roots, (unsigned long long)room,
				  (unsigned long long)(bytes - room));
	return 0;
}

static int apply_exclusions(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	int rc = o->keep_boot_path ? keep_boot_path(c, err) : 0;
	for (size_t u = 0; !rc && u < c->nunits; u++) {
		size_t fi;
		if (!c->units[u].kept_why && (fi = unit_matches(c, u, o->exclude, o->nexclude)) != SIZE_MAX) {
			c->units[u].kept_why = "excluded by --exclude";
			c->units[u].kept_func = fi;
		}
		if ((fi = unit_matches(c, u, o->pin, o->npin)) != SIZE_MAX)
			must(c, u, fi, "pinned");
	}
	if (!rc)
		rc = mark_closures(c, err);
	for (size_t u = 0; !rc && u < c->nunits; u++) {
		if (c->units[u].kept_why && c->units[u].samples) {
			const rp_func *f = &c->img->funcs[c->units[u].kept_func];
			if (rp_strlist_pushf(&c->out->kept, &c->out->nkept, err, "%s: %s", f->name, c->units[u].kept_why))
				return err->code;
		}
	}
	return rc ? rc : check_musts(c, err);
}

static int is_candidate(const unit *u)
{
	return u->movable && !u->kept_why && (u->samples > 0 || u->must_why);
}

static int location(const unit *u)
{
	return u->chosen ? u->region : -1;
}

/* RISC-V linker relaxation, which makes code size depend on where it ends up. A call between
 * flash and RAM (far apart) cannot stay jal or c.jal, so ld keeps auipc+jalr: +4 or +6 bytes
 * for each such site in moved code. Inside a RAM section of at most 2 KiB (RV32C), every call
 * reaches as c.jal/c.j: -2 per jal site, -6 per auipc+jalr pair. upper: the growth with every
 * callee elsewhere (a bound for the solvers). Other architectures: 0. */
static int64_t relax_delta(const ctx *c, size_t ui, int upper)
{
	if (c->img->machine != EM_RISCV || !c->cg)
		return 0;
	const unit *u = &c->units[ui];
	int small = !upper && u->chosen && c->regions[u->region].budget <= 2046 && c->img->elfclass == 32 &&
		    !c->no_relax;
	int64_t d = 0;
	for (size_t j = c->ufirst[ui]; j < c->ufirst[ui + 1]; j++) {
		size_t i = c->ufuncs[j];
		for (size_t k = c->cg->first[i]; k < c->cg->first[i + 1]; k++) {
			const rp_cg_edge *e = &c->cg->edges[k];
			const unit *t = &c->units[c->unit_of[e->to]];
			if (t == u)
				continue;
			if (upper || location(t) != location(u))
				d += 4 * (int64_t)e->sites4 + 6 * (int64_t)e->sites2;
			else if (small)
				d -= 2 * (int64_t)e->sites4 + 6 * (int64_t)e->sites8;
		}
	}
	return d;
}

/* Bytes of the chosen units at their true, placement-dependent size (RISC-V relaxation). */
static uint64_t bytes_used(const ctx *c)
{
	uint64_t used = 0;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->units[u].chosen)
			used += c->units[u].size + (uint64_t)relax_delta(c, u, 0);
	return used;
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

static int by_density_sort(const void *a, const void *b, void *c)
{
	return by_density(c, *(const size_t *)a, *(const size_t *)b);
}

/* Insertion by density into the room the knapsack's full-length call sites left over (RISC-V;
 * on Cortex-M the ILP's local search fills the room its veneer upper bound left). */
static void fill_remaining(ctx *c, size_t *cand, size_t n)
{
	qsort_r(cand, n, sizeof(size_t), by_density_sort, c);
	uint64_t used = bytes_used(c);
	for (size_t k = 0; k < n; k++) {
		unit *u = &c->units[cand[k]];
		if (u->chosen || used + u->size > c->regions[0].budget)
			continue;
		u->chosen = 1;
		uint64_t with = bytes_used(c);
		if (with > c->regions[0].budget)
			u->chosen = 0;
		else
			used = with;
	}
}

/* Whether a unit's size in RAM depends on where other units go: a veneer it may need (shared
 * by every caller of one callee), or a RISC-V call site that linker relaxation resizes. */
static int size_depends_on_placement(const ctx *c, size_t ui)
{
	if (c->veneer)
		return c->units[ui].ncallees > 0;
	if (relax_delta(c, ui, 1) != 0)
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

/* The knapsack sees each unit at its largest (every veneer, every call site at full length), so
 * its answer fits. When sizes depend on placement it is then not proven optimal: on Cortex-M
 * the ILP starts from it (solve()); on RISC-V, units that fit at their true size are added by
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
		if (!is_candidate(&c->units[u]))
			continue;
		c->units[u].weight = c->units[u].size + c->units[u].ncallees * c->veneer + (uint64_t)relax_delta(c, u, 1);
		items[n] = (rp_ks_item){ c->units[u].weight, c->units[u].samples };
		cand[n++] = u;
	}
	c->out->ncandidates = n;
	rp_ks_result res;
	if ((rc = rp_knapsack_solve(items, n, c->regions[0].budget, chosen, &res, err)))
		goto out;
	int exact = 1;
	for (size_t k = 0; k < n; k++) {
		c->units[cand[k]].chosen = chosen[k];
		exact = exact && !size_depends_on_placement(c, cand[k]);
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

static double region_gain(const ctx *c, size_t r)
{
	if (!c->opts->have_cost)
		return c->regions[r].speed;   /* no cost model: samples moved, weighted by region speed */
	return c->opts->cost.flash_fetch_cycles - 1.0 / c->regions[r].speed;
}

static double veneer_cycles(const ctx *c)
{
	double v = c->opts->cost.veneer_cycles;
	return v >= 0 ? v : c->veneer ? 4.0 : 0.0;   /* ldr.w pc, [pc, #-0] on Cortex-M: about 4 */
}

/* Sampled arcs between units (with the cost model and veneers): the cycles a crossing costs. */
static int build_arcs(const ctx *c, const size_t *item_of, rp_ilp_arc **out, size_t *n, rp_err *err)
{
	*out = NULL;
	*n = 0;
	if (!c->opts->have_cost || !c->veneer || !c->opts->narcs || veneer_cycles(c) <= 0)
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
		(*out)[(*n)++] = (rp_ilp_arc){ ia, ib, (double)a->count * veneer_cycles(c) };
	}
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
		if (!is_candidate(&c->units[u]))
			continue;
		p->item_of[u] = n;
		p->items[n] = (rp_ilp_item){ c->units[u].size + (uint64_t)relax_delta(c, u, 1), (double)c->units[u].samples,
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
		double g = region_gain(c, r);
		if (g <= 0)
			return rp_err_set(err, RP_EINPUT, "region '%s' (speed %g) is not faster than flash at %g cycles per fetch: nothing to gain there",
					  c->regions[r].name ? c->regions[r].name : c->regions[r].outsec, c->regions[r].speed,
					  c->opts->cost.flash_fetch_cycles);
		p->regions[r] = (rp_ilp_region){ c->regions[r].budget, g };
	}
	int rc = build_arcs(c, p->item_of, &p->arcs, &p->narcs, err);
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
static int solve(ctx *c, rp_err *err)
{
	int arcs_matter = c->opts->have_cost && c->veneer && c->opts->narcs;
	if (c->nregions == 1 && !has_musts(c) && !arcs_matter && !c->opts->force_ilp) {
		int rc = solve_knapsack(c, err);
		return rc || c->out->optimal || !c->veneer ? rc : solve_ilp(c, 1, err);
	}
	return solve_ilp(c, 0, err);
}

/* Veneers the plan of region r expects: distinct callees outside r called from units in r. */
static size_t region_veneers(const ctx *c, int r)
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
static void count_cycles(ctx *c, uint64_t total)
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
			saved -= (double)a->count * veneer_cycles(c);
	}
	c->out->cycles_saved = saved;
}

/* The map region a configured region lives in: its `memory`, else the one holding its output
 * section or (first region only, guessed) .data, else one called RAM. */
static int find_map_region(ctx *c, size_t r, const char *memory, rp_err *err)
{
	region *rg = &c->regions[r];
	rg->map_region = NULL;
	if (!c->map)
		return 0;
	if (memory) {
		rg->map_region = rp_map_region_find(c->map, memory, 0);
		return rg->map_region ? 0 : rp_err_set(err, RP_EUSAGE, "%s: no memory region '%s' in the map", c->map->path, memory);
	}
	const rp_section *own = rp_image_section(c->img, rg->outsec);
	rg->map_region = own ? rp_map_region_find(c->map, NULL, own->vma) : NULL;
	if (rg->map_region || r != 0)
		return 0;
	rg->memory_guessed = 1;
	const rp_section *data = own ? NULL : rp_image_section(c->img, ".data");
	rg->map_region = data ? rp_map_region_find(c->map, NULL, data->vma) : NULL;
	if (!rg->map_region)
		rg->map_region = rp_map_region_find(c->map, "RAM", 0);
	return 0;
}

/* The room map_region has for code (`budget: auto`): every region's output section is code
 * being placed, not data, also after a relink put it there. */
static int free_ram(const ctx *c, const rp_map_region *m, uint64_t reserve, uint64_t align, rp_ram_map *ram, rp_err *err)
{
	const char **outsecs = malloc(c->nregions * sizeof(char *));
	if (!outsecs)
		return rp_err_nomem(err, "computing the RAM map");
	for (size_t r = 0; r < c->nregions; r++)
		outsecs[r] = c->regions[r].outsec;
	int rc = rp_budget_auto(c->img, m, outsecs, c->nregions, reserve, align, ram, err);
	free(outsecs);
	return rc;
}

/* Whether region r is known to be in memory m (not just guessed to be). */
static int in_memory(const ctx *c, size_t r, const rp_map_region *m)
{
	return m && c->regions[r].map_region == m && !c->regions[r].memory_guessed;
}

static const char *region_label(const ctx *c, size_t r)
{
	return c->regions[r].name ? c->regions[r].name : "--budget";
}

/* Budgets given as numbers are checked, per memory, against what it leaves free after .data,
 * .bss, stack and heap (the `budget: auto` figure): more is only caught at link time otherwise,
 * and two regions in one memory may each fit while their sum does not. A warning, not a
 * refusal: the RAM map is only as good as the symbols the ELF declares. */
static int warn_over_free_ram(ctx *c, size_t first, rp_err *err)
{
	const rp_map_region *m = c->regions[first].map_region;
	uint64_t sum = 0;
	size_t shared = 0;
	char names[256] = "";
	for (size_t r = first; r < c->nregions; r++)
		if (r == first || (in_memory(c, r, m) && !c->regions[first].memory_guessed)) {
			sum += c->regions[r].budget;
			size_t len = strlen(names);
			if ((size_t)snprintf(names + len, sizeof(names) - len, "%s%s", shared++ ? ", " : "", region_label(c, r)) >= sizeof(names) - len)
				memcpy(names + sizeof(names) - 4, "...", 4);   /* cut: say so, the sum has them all */
		}
	rp_ram_map ram;
	rp_err ignored = RP_ERR_INIT;   /* no map of the RAM: nothing to compare against */
	if (free_ram(c, m, 0, 1, &ram, &ignored))
		return 0;
	int rc = 0;
	if (sum > ram.budget)
		rc = note(c, err, "warning: %s: %llu bytes%s is more than the %llu bytes %s has free after its data, bss, stack and heap (see --budget auto); a plan that uses it all will not link",
			  names, (unsigned long long)sum, shared > 1 ? " together" : "", (unsigned long long)ram.budget, m->name);
	rp_ram_map_release(&ram);
	return rc;
}

static int resolve_budget(ctx *c, size_t r, const rp_region_cfg *cfg, rp_err *err)
{
	region *rg = &c->regions[r];
	const char *what = region_label(c, r);
	if (cfg && cfg->budget_auto) {
		if (!rg->map_region)
			return rp_err_set(err, RP_EUSAGE, "%s%s%sbudget auto needs the link map (--map) to know the RAM region",
					  cfg->name ? "region '" : "", cfg->name ? cfg->name : "", cfg->name ? "': " : "--budget: ");
		rp_ram_map ram;
		int rc = free_ram(c, rg->map_region, cfg->reserve, rg->align, &ram, err);
		if (rc)
			return rc;
		rg->budget = ram.budget;
		for (size_t i = 0; !rc && i < ram.nlines; i++)
			rc = note(c, err, "%s", ram.lines[i]);
		rp_ram_map_release(&ram);
		return rc;
	}
	if (rg->budget == 0)
		return rp_err_set(err, RP_EUSAGE, "%s: 0 bytes leaves no room to move anything", what);
	const rp_map_region *m = rg->map_region;
	if (m && m->length && rg->budget > m->length)
		return rp_err_set(err, RP_EUSAGE, "%s: %llu bytes is larger than the %s region (%llu bytes at 0x%llx)", what,
				  (unsigned long long)rg->budget, m->name, (unsigned long long)m->length,
				  (unsigned long long)m->origin);
	return 0;
}

/* `budget: auto` gives a region all the free room of its memory, so no other region can be
 * there. The config refuses this when both name the memory; here the memory may also come from
 * where an output section already is, or --budget auto may override the file. A guessed memory
 * (the first region before its section exists) proves nothing: it may be meant for ITCM. */
static int refuse_shared_auto(const ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	for (size_t r = 0; r < o->nregions; r++)
		for (size_t q = 0; q < c->nregions && o->regions[r].budget_auto && !c->regions[r].memory_guessed; q++)
			if (q != r && in_memory(c, q, c->regions[r].map_region))
				return rp_err_set(err, RP_EUSAGE, "regions '%s' and '%s' are both in memory %s: 'budget: auto' cannot split it; give '%s' a size",
						  region_label(c, r), region_label(c, q), c->regions[r].map_region->name, region_label(c, r));
	return 0;
}

/* Whether no region before r is known to be in its memory: the warning is given once per memory
 * (only the first region can have a guessed one, and it is warned about alone). */
static int first_in_memory(const ctx *c, size_t r)
{
	for (size_t q = 0; q < r; q++)
		if (in_memory(c, q, c->regions[r].map_region))
			return 0;
	return 1;
}

/* The regions to fill: the configured ones, or the single command-line region. */
static int resolve_regions(ctx *c, rp_err *err)
{
	const rp_place_opts *o = c->opts;
	size_t n = o->nregions ? o->nregions : 1;
	c->regions = calloc(n, sizeof(region));
	if (!c->regions)
		return rp_err_nomem(err, "preparing the placement");
	c->nregions = n;
	int rc = 0;
	for (size_t r = 0; r < n && !rc; r++) {
		const rp_region_cfg *cfg = o->nregions ? &o->regions[r] : NULL;
		region *rg = &c->regions[r];
		*rg = cfg ? (region){ cfg->name, cfg->outsec, NULL, cfg->budget, cfg->align, cfg->speed, 0 }
			  : (region){ NULL, o->outsec, NULL, o->budget, o->align, 1.0, 0 };
		rc = find_map_region(c, r, cfg ? cfg->memory : o->region, err);
	}
	if (!rc)
		rc = refuse_shared_auto(c, err);
	for (size_t r = 0; r < n && !rc; r++)
		rc = resolve_budget(c, r, o->nregions ? &o->regions[r] : NULL, err);
	for (size_t r = 0; r < n && !rc; r++) {
		const rp_map_region *m = c->regions[r].map_region;
		int automatic = o->nregions && o->regions[r].budget_auto;
		if (m && m->length && !automatic && first_in_memory(c, r))
			rc = warn_over_free_ram(c, r, err);
	}
	return rc;
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
			pu->size = layout_unit(c, order[k], &offset);
		pu->weight = pu->size + (uint64_t)relax_delta(c, order[k], 0);
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
	plan->nveneers = region_veneers(c, (int)r);
	plan->veneer_reserve = plan->nveneers * c->veneer;
	c->out->nveneers += plan->nveneers;
	return 0;
}

static int make_plans(ctx *c, uint64_t total, rp_err *err)
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

static void ctx_release(ctx *c)
{
	free(c->ufirst);
	free(c->ufuncs);
	rp_callgraph_free(c->cg);
	if (c->have_boot)
		rp_boot_release(&c->boot);
	free(c->regions);
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

/* Functions grouped by unit (a counting sort), so per-unit walks do not scan every function. */
static int index_units(ctx *c, rp_err *err)
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

/* The call graph feeds veneers, closures and the reset path; an architecture libopcodes is
 * not set up for here simply has none. */
static int build_callgraph(ctx *c, rp_err *err)
{
	int rc = rp_callgraph_build(&c->cg, c->img, err);
	if (rc == RP_EINPUT) {
		c->cg = NULL;
		err->code = 0;
		err->msg[0] = '\0';
		return 0;
	}
	/* an auipc+jalr call to a target within jal's 1 MiB means ld did not relax: --no-relax */
	for (size_t k = 0; !rc && c->cg && k < c->cg->nedges; k++) {
		const rp_cg_edge *e = &c->cg->edges[k];
		uint64_t to = c->img->funcs[e->to].addr;
		uint64_t dist = to > e->first_site ? to - e->first_site : e->first_site - to;
		if (e->sites8 && dist < (1u << 20) - 4096)
			c->no_relax = 1;
	}
	return rc;
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
	if ((rc = resolve_regions(&c, err)) || (rc = attribute_samples(&c, totals, err)))
		goto done;
	group_clones(&c);
	group_by_input_section(&c);
	if ((rc = build_units(&c, err)))
		goto done;
	size_units(&c);
	if ((rc = index_units(&c, err)) || (rc = build_callgraph(&c, err)) || (rc = collect_callees(&c, err)))
		goto done;
	if ((rc = apply_exclusions(&c, err)) || (rc = solve(&c, err)))
		goto done;
	count_cycles(&c, totals ? totals->total : 0);
	rc = make_plans(&c, totals ? totals->total : 0, err);
done:
	ctx_release(&c);
	if (rc)
		rp_placement_release(out);
	return rc;
}

void rp_placement_release(rp_placement *p)
{
	for (size_t i = 0; i < p->nplans; i++)
		rp_plan_free(p->plans[i]);
	free(p->plans);
	for (size_t i = 0; i < p->nnotes; i++)
		free(p->notes[i]);
	free(p->notes);
	for (size_t i = 0; i < p->nmissing; i++)
		free(p->missing[i]);
	for (size_t i = 0; i < p->nkept; i++)
		free(p->kept[i]);
	free(p->missing);
	free(p->kept);
	memset(p, 0, sizeof(*p));
}
