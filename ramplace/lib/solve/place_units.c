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

int pl_attribute_samples(ctx *c, const rp_db_totals *totals, rp_err *err)
{
	if (!totals)
		return 0;
	c->total_samples = totals->total;
	for (size_t i = 0; i < totals->nfuncs; i++) {
		const rp_func_total *t = &totals->funcs[i];
		if (strcmp(t->func, "<unknown>") == 0)
			continue;
		const rp_func *f = rp_db_totals_func(totals, c->img, i);
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
		if (!rp_is_clone(f->name))
			continue;
		rp_clone_parent(f->name, parent_name, sizeof(parent_name));
		const rp_func *p = f->file ? rp_image_func_by_name(c->img, parent_name, f->file) : NULL;
		if (!p)
			p = rp_image_func_by_name(c->img, parent_name, NULL);
		if (p)
			unite(c->parent, i, (size_t)(p - c->img->funcs));
	}
}

static int by_name(const void *a, const void *b, void *img)
{
	const rp_func *f = ((const rp_image *)img)->funcs;
	return strcmp(f[*(const size_t *)a].name, f[*(const size_t *)b].name);
}

/* Without a map a pattern names a section by the function's name, and so moves every static of
 * that name in every file: they are one unit. So are aliases, names at one address (a C++ C1
 * and C2 constructor, a weak handler alias): one piece of code, moved by whichever pattern
 * matches its section. */
static int unite_same_names(ctx *c, rp_err *err)
{
	size_t n = c->img->nfuncs;
	for (size_t i = 1; i < n; i++)   /* funcs are sorted by address */
		if (c->img->funcs[i].addr == c->img->funcs[i - 1].addr)
			unite(c->parent, i, i - 1);
	size_t *order = malloc((n ? n : 1) * sizeof(size_t));
	if (!order)
		return rp_err_nomem(err, "grouping functions by name");
	for (size_t i = 0; i < n; i++)
		order[i] = i;
	if (n > 1)
		rp_sort_r(order, n, sizeof(size_t), by_name, (void *)c->img);
	for (size_t k = 1; k < n; k++)
		if (strcmp(c->img->funcs[order[k]].name, c->img->funcs[order[k - 1]].name) == 0)
			unite(c->parent, order[k], order[k - 1]);
	free(order);
	return 0;
}

/* RISC-V without a map: a jump into another function's entry (j, c.j, a branch) may be one of
 * fixed reach (R_RISCV_JAL from a hand-written `j other`) or a tail call relaxation shortened;
 * only the objects' relocations tell (map_align.c binds them with --map). A compiler writes a
 * sibling call as `tail`, which the relink relaxes again or not, so a jump out of a function its
 * debug information shows compiled (with or without -ffunction-sections) is free; one out of
 * assembly, or of code no debug information covers, binds its two ends: a plan that splits a
 * fixed jump does not link (binding every tail call halved what the RISC-V example moved). */
static int bind_image_jumps(ctx *c, rp_err *err)
{
	if (c->img->machine != EM_RISCV || !c->cg)
		return 0;
	size_t nbound = 0;
	for (size_t e = 0; e < c->cg->nedges; e++) {
		const rp_cg_edge *ed = &c->cg->edges[e];
		int compiled = c->funcsec && (c->funcsec[ed->from] == RP_FUNCSEC_OWN || c->funcsec[ed->from] == RP_FUNCSEC_SHARED);
		if (!ed->nbranches || compiled || find(c->parent, ed->from) == find(c->parent, ed->to))
			continue;
		unite(c->parent, ed->from, ed->to);
		nbound++;
	}
	if (!nbound)
		return 0;
	return pl_note(c, err, "no --map: %zu jump(s) into another function (j, c.j, a branch) out of assembly or code "
		       "without debug information tie their two ends to one memory: a jump of fixed reach split by the "
		       "move would not link, and only the objects' relocations (--map) tell one from a tail call the "
		       "linker shortened", nbound);
}

/* What a linker pattern moves moves together: functions sharing an input section (or, without a
 * map, a name) are one unit. */
int pl_group_by_input_section(ctx *c, rp_err *err)
{
	if (!c->map) {
		for (size_t i = 0; i < c->img->nfuncs; i++)
			c->insec_of[i] = SIZE_MAX;
		int rc = unite_same_names(c, err);
		return rc ? rc : bind_image_jumps(c, err);
	}
	size_t n = c->map->ninsecs;
	size_t *owner = malloc((n ? n : 1) * sizeof(size_t));
	if (!owner)
		return rp_err_nomem(err, "grouping functions by input section");
	for (size_t k = 0; k < n; k++)
		owner[k] = SIZE_MAX;
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		c->insec_of[i] = SIZE_MAX;
		const rp_map_insec *s = rp_map_insec_at(c->map, c->img->funcs[i].addr);
		/* a veneer of an earlier relink: the linker's, no pattern moves it (not movable) */
		if (!s || (s->file && strcmp(s->file, "linker stubs") == 0))
			continue;
		size_t k = (size_t)(s - c->map->insecs);
		c->insec_of[i] = k;
		if (owner[k] == SIZE_MAX)
			owner[k] = i;
		else
			unite(c->parent, i, owner[k]);
	}
	/* RISC-V jumps of fixed reach (a hand-written `j other`, a vector table's `jal`): split by
	 * the move, they would not link ("relocation truncated to fit: R_RISCV_JAL"), so their two
	 * ends are one unit: they move together or stay together */
	for (size_t b = 0; b < c->map->nbinds; b++) {
		const rp_map_bind *bd = &c->map->binds[b];
		size_t from = bd->from < n ? owner[bd->from] : SIZE_MAX, to = SIZE_MAX;
		if (bd->to != SIZE_MAX && bd->to < n)
			to = owner[bd->to];
		else if (bd->to_name) {
			const rp_func *f = rp_image_func_by_name(c->img, bd->to_name, NULL);
			to = f ? (size_t)(f - c->img->funcs) : SIZE_MAX;
		}
		if (from != SIZE_MAX && to != SIZE_MAX)
			unite(c->parent, from, to);
	}
	free(owner);
	return 0;
}

const char pl_why_shared_text[] =
	"no --map, and it shares its input section with other functions (compiled without -ffunction-sections, or a section attribute): no name pattern moves it";
const char pl_why_no_debug[] =
	"no --map, and its debug information (assembly, or no compiler switches recorded) does not say it has a section of its own";

/* Why no pattern can move function i (NULL: one can, or nobody can tell): without a map, a
 * section its name does not give; with one, a section of a compiler temporary that shares its
 * name with others (a pattern naming the temporary would not match after the next build). */
static const char *unguessable(const ctx *c, size_t i)
{
	if (c->map) {
		const rp_map_insec *s = c->insec_of[i] == SIZE_MAX ? NULL : &c->map->insecs[c->insec_of[i]];
		return s && s->temporary && !s->name_unique
			       ? "its section is in a compiler temporary (a one-step compile-and-link) and other sections share its name: compile its source file to an object of its own, or with -ffunction-sections"
			       : NULL;
	}
	if (!c->funcsec)
		return NULL;
	if (c->funcsec[i] == RP_FUNCSEC_SHARED)
		return pl_why_shared_text;
	if (c->funcsec[i] == RP_FUNCSEC_UNKNOWN)
		return pl_why_no_debug;
	/* RP_FUNCSEC_NONE, no debug information for its object: guessed from its name, as in an ELF
	 * without any; refusing it kept a port built without -g (libgcc's DWARF only) in flash */
	return NULL;
}

/* Code in flash, or in the plan's output section. pico-sdk's .data also holds the SDK's own RAM
 * code (__not_in_flash_func's .time_critical.NAME, libgcc and the mem* functions its script
 * keeps out of flash): in RAM whatever the plan says, so no candidate; only what an earlier plan
 * renamed there is (RP_PICO_SECTION_PREFIX, known from the map). */
static int is_code_section(const ctx *c, const rp_func *f)
{
	if (f->section >= c->img->nsections)
		return 0;
	const rp_section *s = &c->img->sections[f->section];
	if (!s->is_exec)
		return 0;
	/* ESP-IDF's generated script calls the flash-mapped code .flash.text */
	if (strncmp(s->name, ".text", 5) == 0 || strcmp(s->name, ".flash.text") == 0)
		return 1;
	if (strcmp(s->name, c->opts->outsec) != 0)
		return 0;
	/* ESP-IDF's .iram0.text likewise holds its IRAM_ATTR code (.iram1.*), no candidate; a
	 * noflash_text entry keeps the section's own .text name */
	const char *ours = rp_dialect_own_sections(c->opts->dialect);
	if (!ours)
		return 1;
	size_t k = c->map ? c->insec_of[f - c->img->funcs] : SIZE_MAX;
	return k != SIZE_MAX && strncmp(c->map->insecs[k].name, ours, strlen(ours)) == 0;
}

static uint64_t round_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

/* A unit is named after its first non-clone function (by address), else its first function. */
static void name_unit(ctx *c, unit *u, size_t i)
{
	if (i == u->root)   /* most units are one function: no name to read */
		return;
	const rp_func *cur = &c->img->funcs[u->root], *f = &c->img->funcs[i];
	if (rp_is_clone(cur->name) && !rp_is_clone(f->name))
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
		if (!is_code_section(c, f) || (c->map && c->insec_of[i] == SIZE_MAX) || rp_image_is_veneer_name(f->name))
			u->movable = 0;   /* a veneer of an earlier relink follows its calls, it is not placed */
		const char *why = unguessable(c, i);
		if (why && !u->kept_why) {
			u->kept_why = why;
			u->kept_func = i;
		}
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

/* A map section's alignment when its object was not read (rp_map_read_alignments not run): on
 * RISC-V the link's evidence (4 after a 2-byte gap, else 2: RVC packs at 2), elsewhere the
 * --align floor, as before the objects were read. */
static uint64_t guessed_insec_align(const ctx *c, size_t k)
{
	const rp_map_insec *s = &c->map->insecs[k];
	if (c->img->machine != EM_RISCV)
		return c->regions[0].align ? c->regions[0].align : 4;
	if (s->addr % 4 || k == 0)
		return 2;
	const rp_map_insec *prev = &c->map->insecs[k - 1];
	uint64_t end = prev->addr + prev->size;
	return end % 4 == 2 && s->addr == end + 2 ? 4 : 2;
}

/* Without a map, the bytes a function's input section holds: its .size and a literal pool
 * after it that its own loads read (callgraph.h: trailing); for a symbol without .size
 * (assembly such as libgcc's __aeabi_uldivmod) all up to the next function. */
static uint64_t func_bytes(const ctx *c, size_t i)
{
	const rp_func *f = &c->img->funcs[i];
	if (!f->size)
		return rp_image_func_extent(c->img, f);
	return f->size + (c->cg ? c->cg->trailing[i] : 0);
}

/* The largest power of two dividing addr, at most cap. */
static uint64_t addr_align(uint64_t addr, uint64_t cap)
{
	uint64_t a = 1;
	while (a < cap && addr % (a * 2) == 0)
		a *= 2;
	return a;
}

/* Where the code before addr really ends when the function before it has no size (an assembly
 * label): its extent runs to addr, over the zeros the linker filled in front of an aligned
 * section. Each 2-byte zero granule is taken as fill, at most 4 KiB back: 0x0000 is no
 * instruction on RISC-V; on Thumb it is `movs r0, r0`, which no compiler ends a function with,
 * and a zero taken for fill only makes the alignment guessed after it larger (conservative). */
static uint64_t end_before_fill(const ctx *c, uint64_t from, uint64_t addr)
{
	unsigned char g[2];
	rp_err local = RP_ERR_INIT;
	uint64_t end = addr;
	while (end >= from + 2 && addr - end < 4096 && rp_image_read(c->img, end - 2, g, 2, &local) == 0 &&
	       g[0] == 0 && g[1] == 0)
		end -= 2;
	return end;
}

/* Without a map, a function's alignment as its place in the link shows it: 2 past a multiple
 * of 4 is 2-aligned, after a 2-byte gap 4-aligned; after a wider gap the linker filled, as much
 * as its address allows (FreeRTOS's RV32 trap handler is `.align 8`, 256 bytes: guessed at 4,
 * its relink came out 78 bytes over the plan), up to a page; otherwise what most functions show. */
static uint64_t func_align(const ctx *c, size_t i)
{
	const rp_func *f = &c->img->funcs[i];
	if (f->addr % 4)
		return f->addr % 2 ? 1 : 2;
	if (i > 0) {
		const rp_func *prev = &c->img->funcs[i - 1];
		uint64_t end = prev->addr + func_bytes(c, i - 1);
		if (!prev->size && end == f->addr)
			end = end_before_fill(c, prev->addr, f->addr);
		if (end % 4 == 2 && f->addr == end + 2)
			return 4;
		if (end < f->addr && f->addr - end >= 4) {
			uint64_t a = addr_align(f->addr, 4096);
			return a > c->nomap_align ? a : c->nomap_align;
		}
	}
	return c->nomap_align;
}

uint64_t pl_piece_align(const ctx *c, size_t p)
{
	if (!c->map)
		return func_align(c, p);
	uint64_t a = c->map->insecs[p].align;
	return a ? a : guessed_insec_align(c, p);
}

uint64_t pl_piece_size(const ctx *c, size_t p)
{
	return c->map ? c->map->insecs[p].size : func_bytes(c, p);
}

static int by_piece_align(const void *a, const void *b, void *cp)
{
	const ctx *c = cp;
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	uint64_t ax = pl_piece_align(c, x), ay = pl_piece_align(c, y);
	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x < y ? -1 : x > y;
}

size_t pl_unit_pieces(const ctx *c, size_t ui, size_t *out)
{
	size_t n = 0, kept = 0;
	for (size_t j = c->ufirst[ui]; j < c->ufirst[ui + 1]; j++) {
		size_t i = c->ufuncs[j], p = c->map ? c->insec_of[i] : i;
		if (p != SIZE_MAX)
			out[n++] = p;
	}
	/* by_piece_align is a total order, so sorting first and dropping neighbours that repeat
	 * is the same list in O(k log k), also for a unit of thousands of functions */
	if (n > 1)
		rp_sort_r(out, n, sizeof(size_t), by_piece_align, (void *)c);
	for (size_t q = 0; q < n; q++)
		if (!kept || out[kept - 1] != out[q])
			out[kept++] = out[q];
	return kept;
}

uint64_t pl_layout_unit(const ctx *c, size_t ui, uint64_t *offset, size_t *scratch)
{
	uint64_t start = *offset;
	size_t n = pl_unit_pieces(c, ui, scratch);
	for (size_t q = 0; q < n; q++)
		*offset = round_up(*offset, pl_piece_align(c, scratch[q])) + pl_piece_size(c, scratch[q]);
	return *offset - start;
}

/* Without a map: the alignment the link shows for functions it gives no evidence about, 2 when
 * at least a tenth of the code functions sit 2 past a multiple of 4 (-Os Thumb, RVC), else the
 * --align floor. */
static void choose_nomap_align(ctx *c)
{
	size_t odd = 0, n = 0;
	for (size_t i = 0; i < c->img->nfuncs; i++) {
		if (!c->img->funcs[i].size)
			continue;
		n++;
		odd += c->img->funcs[i].addr % 4 == 2;
	}
	uint64_t floor = c->regions[0].align ? c->regions[0].align : 4;
	c->nomap_align = n && odd * 10 >= n ? 2 : floor;
}

/* Each unit's bytes in RAM when the fragment lists every section at its own alignment, largest
 * alignment first (place_plan.c orders units so): the sum of each piece rounded up to its
 * alignment is then exact. A unit whose pieces differ in alignment may leave its successor a
 * gap: it carries the difference as a bound. */
int pl_size_units(ctx *c, rp_err *err)
{
	size_t most = 1;
	for (size_t u = 0; u < c->nunits; u++)
		if (c->ufirst[u + 1] - c->ufirst[u] > most)
			most = c->ufirst[u + 1] - c->ufirst[u];
	size_t *pieces = malloc(most * sizeof(size_t));
	if (!pieces)
		return rp_err_nomem(err, "sizing placement units");
	if (!c->map)
		choose_nomap_align(c);
	for (size_t u = 0; u < c->nunits; u++) {
		unit *un = &c->units[u];
		size_t n = pl_unit_pieces(c, u, pieces);
		un->size = 0;
		un->max_align = un->min_align = n ? pl_piece_align(c, pieces[0]) : 1;
		for (size_t q = 0; q < n; q++) {
			uint64_t a = pl_piece_align(c, pieces[q]);
			un->size += round_up(pl_piece_size(c, pieces[q]), a);
			if (a < un->min_align)
				un->min_align = a;
		}
		un->size += un->max_align - un->min_align;
		un->weight = un->size;
	}
	free(pieces);
	return 0;
}

static int add_callee(unit *un, size_t u, size_t to, size_t *stamp, rp_err *err)
{
	if (stamp[to] == u + 1)
		return 0;
	stamp[to] = u + 1;
	int rc = rp_grow((void **)&un->callees, &un->callees_cap, un->ncallees + 1, sizeof(size_t), err);
	if (!rc)
		un->callees[un->ncallees++] = to;
	return rc;
}

/* The callee, or the names of it that f's input section calls by: GNU ld makes a veneer per
 * symbol called, so a function known under two names (pico-sdk's __wrap___aeabi_uidiv and
 * __wrap___aeabi_uidivmod), called by both, takes two (the map's refs, from the relocations). */
static int add_callee_by_name(ctx *c, unit *un, size_t u, size_t f, size_t to, size_t *stamp, rp_err *err)
{
	size_t nrefs = 0;
	const rp_map_ref *refs = c->map && c->insec_of[f] != SIZE_MAX ? rp_map_refs_of(c->map, c->insec_of[f], &nrefs) : NULL;
	int named = 0, rc = 0;
	for (size_t k = 0; !rc && k < nrefs; k++) {
		const rp_func *alias = rp_image_func_by_name(c->img, refs[k].name, NULL);
		if (alias && alias->addr == c->img->funcs[to].addr) {
			named = 1;
			rc = add_callee(un, u, (size_t)(alias - c->img->funcs), stamp, err);
		}
	}
	return rc || named ? rc : add_callee(un, u, to, stamp, err);
}

/* Distinct functions outside each unit that it calls or branches to (veneer targets), in the
 * order of the call graph's edges. A stamp per function (the unit that last took it, plus one)
 * keeps them distinct in O(edges), where a unit of a whole object's .text calls thousands. */
int pl_collect_callees(ctx *c, rp_err *err)
{
	if (!c->cg)
		return 0;
	size_t *stamp = calloc(c->img->nfuncs ? c->img->nfuncs : 1, sizeof(size_t));
	if (!stamp)
		return rp_err_nomem(err, "collecting the callees of each unit");
	int rc = 0;
	for (size_t u = 0; !rc && u < c->nunits; u++) {
		unit *un = &c->units[u];
		for (size_t k = c->ufirst[u]; !rc && k < c->ufirst[u + 1]; k++) {
			size_t f = c->ufuncs[k];
			for (size_t e = c->cg->first[f]; !rc && e < c->cg->first[f + 1]; e++) {
				size_t to = c->cg->edges[e].to;
				if (c->unit_of[to] != u)
					rc = c->map && c->map->nrefs ? add_callee_by_name(c, un, u, f, to, stamp, err)
								     : add_callee(un, u, to, stamp, err);
			}
		}
	}
	free(stamp);
	return rc;
}

/* An object compiled without -ffunction-sections has one .text for all its functions: they move
 * as one unit, hot or cold. Said once per object holding a sampled unit of several functions. */
int pl_note_shared_text(ctx *c, rp_err *err)
{
	if (!c->map)
		return 0;
	unsigned char *said = calloc(c->map->ninsecs ? c->map->ninsecs : 1, 1);
	if (!said)
		return rp_err_nomem(err, "looking for objects without -ffunction-sections");
	int rc = 0;
	for (size_t u = 0; !rc && u < c->nunits; u++) {
		size_t nf = c->ufirst[u + 1] - c->ufirst[u];
		if (!c->units[u].samples || nf < 2)
			continue;
		size_t k = c->insec_of[c->ufuncs[c->ufirst[u]]];
		const rp_map_insec *s = k == SIZE_MAX ? NULL : &c->map->insecs[k];
		if (!s || s->archive || strcmp(s->name, ".text") != 0 || said[k])
			continue;
		said[k] = 1;
		rc = pl_note(c, err, "note: %s was compiled without -ffunction-sections: its %zu functions (%llu bytes) share one .text and move together, hot or cold; add -ffunction-sections to its flags",
			     s->file, nf, (unsigned long long)s->size);
	}
	free(said);
	return rc;
}
