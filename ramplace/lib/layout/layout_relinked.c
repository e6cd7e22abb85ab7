/* layout_relinked.c: the layout a relink made, read back from its ELF and, for sections
 * without a function, its map (layout.h: rp_layout_addrs_relinked), so that the flash-only
 * trace prices the relinked firmware with the link model out of the way. Owns the addresses it
 * fills. Workload: once per relink measured (bench/bench_layout_eval), a few thousand
 * sections. */
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/util.h"

/* The first function of old inside [s->addr, s->addr + s->size), or NULL. */
static const rp_func *first_func(const rp_image *old, const rp_map_insec *s)
{
	const rp_func *f = rp_image_func_at(old, s->addr);
	if (f && f->addr == s->addr)
		return f;
	for (size_t i = 0; i < old->nfuncs; i++)
		if (old->funcs[i].addr >= s->addr && old->funcs[i].addr - s->addr < s->size)
			return &old->funcs[i];
	return NULL;
}

/* The function of old a veneer reaches (a callee's entry, at: section << 32 | offset; off
 * no function's entry, its section's first function), or NULL. */
static const rp_func *callee_func(const rp_image *old, const rp_map *map, uint64_t at)
{
	const rp_map_insec *s = &map->insecs[(uint32_t)(at >> 32)];
	const rp_func *f = rp_image_func_at(old, s->addr + (uint32_t)at);
	return f && f->addr == s->addr + (uint32_t)at ? f : first_func(old, s);
}

/* Where the relink put the output section named name, less where the map had it. */
static int64_t section_shift(const rp_map *map, const rp_image *relinked, const char *name)
{
	const rp_map_outsec *o = rp_map_outsec_find(map, name);
	const rp_section *n = rp_image_section(relinked, name);
	return o && n ? (int64_t)(n->vma - o->addr) : 0;
}

/* In flash: in the text's memory region as the link model took it from the map. */
static int in_flash(const rp_layout_link *link, uint64_t addr)
{
	return addr >= link->flash_lo && addr < link->flash_hi;
}

static int fill(const rp_layout_trace *t, const rp_layout_link *link, const rp_image *old, const rp_image *relinked,
		const rp_map *relinked_map, unsigned char *in_ram, rp_layout_addrs *out, rp_err *err);

/* Section s of the old map in the relink's map (same file and name; the first from hint on,
 * as both maps list an object's sections in one order), or NULL. */
static const rp_map_insec *same_section(const rp_map *relinked_map, const rp_map_insec *s, size_t *hint)
{
	for (size_t n = 0; relinked_map && n < relinked_map->ninsecs; n++) {
		size_t k = (*hint + n) % relinked_map->ninsecs;
		const rp_map_insec *r = &relinked_map->insecs[k];
		if (strcmp(r->name, s->name) == 0 && strcmp(r->file, s->file) == 0) {
			*hint = k + 1;
			return r;
		}
	}
	return NULL;
}

/* GNU ld's veneer named name (a local symbol of no file, one per output section that calls
 * across) after from, the nearest: the one of the output section starting at from. */
static uint64_t veneer_after(const rp_image *relinked, const char *name, uint64_t from)
{
	uint64_t at = UINT64_MAX, any = UINT64_MAX;
	for (size_t k = 0; k < relinked->nfuncs; k++) {
		const rp_func *f = &relinked->funcs[k];
		if (strcmp(f->name, name) != 0)
			continue;
		any = f->addr < any ? f->addr : any;
		if (f->addr >= from && f->addr < at)
			at = f->addr;
	}
	return at != UINT64_MAX ? at : any;
}

int rp_layout_addrs_relinked(const rp_layout_trace *t, const rp_layout_link *link, const rp_image *old,
			     const rp_image *relinked, const rp_map *relinked_map, unsigned char *in_ram,
			     rp_layout_addrs *out, rp_err *err)
{
	int rc = fill(t, link, old, relinked, relinked_map, in_ram, out, err);
	if (rc)
		rp_layout_addrs_release(out);   /* nothing half-made stays with the caller */
	return rc;
}

static int fill(const rp_layout_trace *t, const rp_layout_link *link, const rp_image *old, const rp_image *relinked,
		const rp_map *relinked_map, unsigned char *in_ram, rp_layout_addrs *out, rp_err *err)
{
	size_t hint = 0;
	const rp_map *map = t->map;
	memset(out, 0, sizeof(*out));
	memset(in_ram, 0, t->npieces);
	if (!(out->addr = malloc((t->npieces + 1) * sizeof(uint64_t))))
		return rp_err_nomem(err, "reading a relinked layout");
	for (size_t i = 0; i < t->npieces; i++) {
		const rp_map_insec *s = &map->insecs[i];
		const rp_func *f = first_func(old, s);
		const rp_func *g = f ? rp_image_func_by_name(relinked, f->name, f->file) : NULL;
		const rp_map_insec *r = g ? NULL : same_section(relinked_map, s, &hint);
		if (g) {
			out->addr[i] = g->addr - (f->addr - s->addr);
			in_ram[i] = !in_flash(link, g->addr);
		} else if (r) {
			out->addr[i] = r->addr;
			in_ram[i] = in_flash(link, s->addr) && !in_flash(link, r->addr);   /* not .data's */
		} else {
			out->addr[i] = (uint64_t)((int64_t)s->addr + section_shift(map, relinked, s->outsec));
		}
	}
	out->addr[t->npieces] = 0;
	rp_layout_plan lp = { in_ram, NULL, 0, 0, 0, 0, NULL, 0 };
	uint64_t ram_veneer_bytes;
	if (lt_assign_veneers(t, link, &lp, out, &ram_veneer_bytes, err))
		return err->code;
	for (size_t k = 0; k < out->nveneers; k++) {
		uint32_t group = (uint32_t)(out->veneer_key[k] >> 32), callee = (uint32_t)out->veneer_key[k];
		const rp_func *f = callee < link->ncallees ? callee_func(old, map, link->callees[callee].at) : NULL;
		char *name = NULL;
		if (rp_asprintf(&name, err, "__%s_veneer", f ? f->name : "?"))
			return err->code;
		/* from the start of the caller's output section in the relink (its first input
		 * section may be one that moved) */
		const rp_section *sec = map->insecs[group].outsec ? rp_image_section(relinked, map->insecs[group].outsec) : NULL;
		out->veneer_addr[k] = veneer_after(relinked, name, sec ? sec->vma : out->addr[group]);
		free(name);
	}
	const rp_section *ram = rp_image_section(relinked, link->ram_outsec);
	if (ram && ram->size) {
		out->load_addr = ram->lma;
		out->load_size = ram->size;
	}
	return 0;
}
