/* layout_link.c: the link as a model (layout.h, rp_layout_link in layout_link.h), one helper a
 * job: what a veneer and the copy cost, the text output section, the RAM section's load address,
 * the flash bounds, the linker's groups and code sections, and the direct calls and their
 * callees from the call graph, read once per `place --trace`; then the relaxed sites sized as
 * GNU ld sized them (layout_relax.c). Owns the link and its tables. Workload: once per search, over
 * every call edge of the image. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/callgraph.h"
#include "ramplace/util.h"

static int by_pair(const void *a, const void *b)
{
	const struct rp_layout_relax *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->to > y->to) - (x->to < y->to);
}

/* The edge's sites of 2 or 4 bytes (relaxed calls and jumps), at their offset in the caller's
 * section (at from_addr), for the relax entry just added. */
static int keep_sites(rp_layout_link *link, const rp_callgraph *cg, const rp_cg_edge *edge, uint64_t from_addr,
		      size_t *cap, rp_err *err)
{
	struct rp_layout_relax *r = &link->relax[link->nrelax - 1];
	for (size_t k = edge->site0; k < edge->site0 + edge->ncalls + edge->nbranches && k < cg->nsites; k++) {
		const rp_cg_site *site = &cg->sites[k];
		if ((site->len != 2 && site->len != 4) || site->addr < from_addr || site->addr - from_addr > UINT32_MAX)
			continue;
		if (rp_grow((void **)&link->sites, cap, link->nsites + 1, sizeof(*link->sites), err))
			return err->code;
		link->sites[link->nsites++] = (struct rp_layout_site){ (uint32_t)(site->addr - from_addr), site->len,
								       !site->wide, !site->cond, site->len };
		r->nsites++;
	}
	return 0;
}

static int by_call(const void *a, const void *b)
{
	const struct rp_layout_call *x = a, *y = b;
	if (x->from != y->from)
		return x->from < y->from ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* The edge's sites as calls from section from (at from_addr) to the function at to_off in
 * section to. */
static int keep_calls(rp_layout_link *link, const rp_callgraph *cg, const rp_cg_edge *edge, uint32_t from,
		      uint64_t from_addr, uint32_t to, uint32_t to_off, size_t *cap, rp_err *err)
{
	for (size_t k = edge->site0; k < edge->site0 + edge->ncalls + edge->nbranches && k < cg->nsites; k++) {
		uint64_t addr = cg->sites[k].addr;
		if (addr < from_addr || addr - from_addr > UINT32_MAX)
			continue;
		if (rp_grow((void **)&link->calls, cap, link->ncalls + 1, sizeof(*link->calls), err))
			return err->code;
		link->calls[link->ncalls++] = (struct rp_layout_call){ from, (uint32_t)(addr - from_addr), to, to_off };
	}
	return 0;
}

/* direct_pairs' reading of the call graph. */
static int direct_edges(rp_layout_link *link, const rp_image *img, const rp_map *map, lt_callees *callees,
			rp_err *err)
{
	rp_callgraph *cg = NULL;
	rp_err cg_err = RP_ERR_INIT;
	if (rp_callgraph_build(&cg, img, &cg_err)) {
		if (cg_err.code == RP_ENOMEM)
			return rp_err_nomem(err, "laying out");
		link->all_direct = 1;
		return 0;
	}
	size_t rcap = 0, scap = 0, ccap = 0;
	int rc = 0;
	for (size_t e = 0; !rc && e < cg->nedges; e++) {
		const rp_cg_edge *edge = &cg->edges[e];
		const rp_map_insec *a = rp_map_insec_at(map, img->funcs[edge->from].addr);
		const rp_map_insec *b = rp_map_insec_at(map, img->funcs[edge->to].addr);
		if (!a || !b || a == b)
			continue;
		uint32_t from = (uint32_t)(a - map->insecs), to = (uint32_t)(b - map->insecs);
		uint32_t to_off = (uint32_t)(img->funcs[edge->to].addr - b->addr);
		if (link->veneer_size)
			rc = lt_callee_note(link, callees, from, to, &img->funcs[edge->to], b, err);
		/* an alias (vfprintf, __d_vfprintf) has the same sites: the first one's are kept */
		int alias = edge->from > 0 && img->funcs[edge->from - 1].addr == img->funcs[edge->from].addr;
		if (!rc && img->machine != EM_RISCV && !alias)   /* RISC-V: no veneers to replay */
			rc = keep_calls(link, cg, edge, from, a->addr, to, to_off, &ccap, err);
		if (!rc && img->machine == EM_RISCV && !alias && (edge->sites2 || edge->sites4) &&
		    !(rc = rp_grow((void **)&link->relax, &rcap, link->nrelax + 1, sizeof(*link->relax), err))) {
			link->relax[link->nrelax++] = (struct rp_layout_relax){ from, to,
										to_off, (uint32_t)link->nsites, 0 };
			rc = keep_sites(link, cg, edge, a->addr, &scap, err);
		}
	}
	if (!rc)
		link->copy_insns = lt_copy_insns_per_word(img, cg, link->ram_outsec);
	rp_callgraph_free(cg);
	if (link->ncalls)   /* by (from, off), for the warm replay's veneers */
		qsort(link->calls, link->ncalls, sizeof(*link->calls), by_call);
	if (link->nrelax)   /* by (from, to), for rp_layout_was_relaxed */
		qsort(link->relax, link->nrelax, sizeof(*link->relax), by_pair);
	return rc;
}

/* The direct calls and their callees from the image's call graph (none when it cannot be
 * disassembled), with the trace's entries into sections (t). */
static int direct_pairs(rp_layout_link *link, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
			rp_err *err)
{
	lt_callees callees = { 0 };
	int rc = direct_edges(link, img, map, &callees, err);
	if (!rc)
		rc = lt_callees_finish(link, &callees, img, t, err);
	lt_callees_release(&callees);
	return rc;
}

int rp_layout_was_relaxed(const rp_layout_link *link, uint32_t from, uint32_t to)
{
	struct rp_layout_relax key = { from, to, 0, 0, 0 };
	return link->relax && bsearch(&key, link->relax, link->nrelax, sizeof(*link->relax), by_pair) != NULL;
}

void rp_layout_link_free(rp_layout_link *link)
{
	if (!link)
		return;
	free(link->relax);
	free(link->sites);
	free(link->calls);
	free(link->group);
	free(link->code);
	lt_callee_table_free(link);
	free(link);
}

/* What a veneer and the boot copy cost: ldr.w pc, [pc] is one instruction; v6-M's
 * push/ldr/mov/pop/bx five; on RISC-V no veneer, but a call across is auipc+jalr again where jal
 * did: one instruction more. */
static void link_costs(rp_layout_link *link, const rp_image *img)
{
	link->veneer_size = img->veneer_size;
	link->veneer_block_align = img->veneer_block_align ? img->veneer_block_align : 1;
	link->veneer_insns = img->veneer_size == 0 ? (img->machine == EM_RISCV ? 1 : 0) : img->veneer_size > 8 ? 5 : 1;
	link->copy_insns = LT_COPY_INSNS_DEFAULT;   /* direct_pairs reads the copy loop's */
	link->rvc_reach = img->machine == EM_RISCV && img->riscv_rvc && img->elfclass == 32 ? 2048 : 0;
}

/* The text output section: the one with the most fetches (runs of input sections of one output
 * section summed; the map lists them by address, so an output section's sections are together). */
static int link_text_outsec(rp_layout_link *link, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
			    rp_err *err)
{
	uint64_t best = 0, sum = 0;
	for (size_t i = 0; i < t->npieces; i++) {
		const char *o = map->insecs[i].outsec;
		sum = i && o && map->insecs[i - 1].outsec && strcmp(map->insecs[i - 1].outsec, o) == 0 ? sum : 0;
		sum += t->piece_fetches[i];
		if (o && sum > best) {
			best = sum;
			link->text_outsec = o;
		}
	}
	if (!link->text_outsec)
		return rp_err_set(err, RP_EINPUT, "%s: no fetch of the trace falls in an input section of the map: "
				  "the trace is of another build", map->path ? map->path : "the map");
	const rp_section *text = rp_image_section(img, link->text_outsec);
	link->rvc_slack = text && text->align > 1 ? text->align : 0;
	return 0;
}

/* The RAM output section's load address and what it holds already, when the map says. */
static void link_ram_outsec(rp_layout_link *link, const rp_map *map, const char *ram_outsec)
{
	link->ram_outsec = ram_outsec;
	const rp_map_outsec *o = rp_map_outsec_find(map, ram_outsec);
	if (o && o->lma != o->addr) {
		link->ram_lma = o->lma;
		link->ram_lma_known = 1;
		link->ram_base_size = o->size;
		link->ram_vma = o->addr;
	}
}

/* The flash: the memory region holding the text (or, without regions, 256 MiB around it). */
static void link_flash(rp_layout_link *link, const rp_map *map)
{
	const rp_map_insec *first_text = NULL;
	for (size_t i = 0; !first_text && i < map->ninsecs; i++)
		if (map->insecs[i].outsec && strcmp(map->insecs[i].outsec, link->text_outsec) == 0)
			first_text = &map->insecs[i];
	const rp_map_region *flash = first_text ? rp_map_region_find(map, NULL, first_text->addr) : NULL;
	if (flash) {
		link->flash_lo = flash->origin;
		link->flash_hi = flash->origin + flash->length > flash->origin ? flash->origin + flash->length : UINT64_MAX;
	} else if (first_text) {
		link->flash_lo = first_text->addr > 0x8000000u ? first_text->addr - 0x8000000u : 0;
		link->flash_hi = first_text->addr + 0x8000000u;
	}
}

/* The linker's groups (each input section's first one of its run of one output section) and
 * which sections hold code: where GNU ld writes each output section's stubs. GNU ld writes a
 * stub block per output section; ld.lld shares one thunk per callee wherever it reaches
 * (placed, for the model, with the text's). */
static int link_groups(rp_layout_link *link, const rp_image *img, const rp_map *map, size_t npieces, rp_err *err)
{
	if (!(link->group = malloc((npieces + 1) * sizeof(uint32_t))) || !(link->code = calloc(npieces + 1, 1)))
		return rp_err_nomem(err, "laying out");
	for (size_t i = 0; i < npieces; i++) {
		const char *outsec = map->insecs[i].outsec, *before = i ? map->insecs[i - 1].outsec : NULL;
		link->group[i] = outsec && before && strcmp(outsec, before) == 0 ? link->group[i - 1] : (uint32_t)i;
	}
	link->group[npieces] = (uint32_t)npieces;
	for (size_t i = 0; i < npieces; i++) {
		const rp_map_insec *s = &map->insecs[i];
		/* the object's flag; unread, the name or a function starting there */
		const rp_func *f = s->exec ? NULL : rp_image_func_at(img, s->addr);
		link->code[i] = s->exec ? s->exec == 1 : strncmp(s->name, ".text", 5) == 0 || (f && f->addr == s->addr);
		const rp_map_outsec *out = link->code[i] && s->outsec ? rp_map_outsec_find(map, s->outsec) : NULL;
		if (out && out->empty_code_last)
			link->code[i] |= 2;   /* ld's last code section there is an empty one (lt_stub_order) */
	}
	link->per_section_veneers = !img->linker_lld;
	for (size_t i = 0; i < npieces; i++)
		if (map->insecs[i].outsec && strcmp(map->insecs[i].outsec, link->text_outsec) == 0) {
			link->text_group = link->group[i];
			break;
		}
	return 0;
}

int rp_layout_link_new(rp_layout_link **out, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
		       const char *ram_outsec, rp_err *err)
{
	rp_layout_link *link = calloc(1, sizeof(*link));
	*out = NULL;
	if (!link)
		return rp_err_nomem(err, "laying out");
	link_costs(link, img);
	link_ram_outsec(link, map, ram_outsec);
	int rc = link_text_outsec(link, img, map, t, err);
	if (!rc) {
		link_flash(link, map);
		rc = link_groups(link, img, map, t->npieces, err);
	}
	if (!rc && (link->veneer_size || img->machine == EM_RISCV))
		rc = direct_pairs(link, img, map, t, err);
	if (!rc)
		rc = lt_size_as_linked(t, link, err);
	if (rc) {
		rp_layout_link_free(link);   /* nothing half-made stays with the caller */
		return rc;
	}
	*out = link;
	return 0;
}
