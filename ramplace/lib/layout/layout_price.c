/* layout_price.c: a candidate layout's addresses (a model of the link) and its price (the
 * trace's runs, or the whole trace, replayed through flashmodel.c); layout.h says the rules.
 * Owns the addresses it computes. Workload: called a few hundred times per search on a trace
 * of a few hundred thousand runs, so pricing allocates only the model. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/callgraph.h"
#include "ramplace/util.h"

static uint64_t align_up(uint64_t v, uint64_t a)
{
	return a > 1 ? (v + a - 1) / a * a : v;
}

static uint64_t piece_align(const rp_map_insec *s)
{
	return s->align ? s->align : 4;
}

static int by_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

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

void rp_layout_link_release(rp_layout_link *link)
{
	free(link->relax);
	free(link->sites);
	free(link->calls);
	free(link->group);
	free(link->code);
	lt_callee_table_free(link);
	link->relax = NULL;
	link->sites = NULL;
	link->calls = NULL;
	link->group = NULL;
	link->code = NULL;
	link->nrelax = link->nsites = link->ncalls = 0;
}

static int link_init(rp_layout_link *link, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
		     const char *ram_outsec, rp_err *err)
{
	memset(link, 0, sizeof(*link));
	link->ram_outsec = ram_outsec;
	link->veneer_size = img->veneer_size;
	link->veneer_block_align = img->veneer_block_align ? img->veneer_block_align : 1;
	/* ldr.w pc, [pc] is one instruction; v6-M's push/ldr/mov/pop/bx five; on RISC-V no veneer,
	 * but a call across is auipc+jalr again where jal did: one instruction more */
	link->veneer_insns = img->veneer_size == 0 ? (img->machine == EM_RISCV ? 1 : 0) : img->veneer_size > 8 ? 5 : 1;
	link->copy_insns = LT_COPY_INSNS_DEFAULT;   /* direct_pairs reads the copy loop's */
	/* the output section with the most fetches (runs of input sections of one output section
	 * summed; the map lists them by address, so an output section's sections are together) */
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
	const rp_map_outsec *o = rp_map_outsec_find(map, ram_outsec);
	if (o && o->lma != o->addr) {
		link->ram_lma = o->lma;
		link->ram_lma_known = 1;
		link->ram_base_size = o->size;
		link->ram_vma = o->addr;
	}
	/* the flash: the memory region holding the text (or, without regions, 256 MiB around it) */
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
	link->rvc_reach = img->machine == EM_RISCV && img->riscv_rvc && img->elfclass == 32 ? 2048 : 0;
	const rp_section *text = rp_image_section(img, link->text_outsec);
	link->rvc_slack = text && text->align > 1 ? text->align : 0;
	if (!(link->group = malloc((t->npieces + 1) * sizeof(uint32_t))))
		return rp_err_nomem(err, "laying out");
	for (size_t i = 0; i < t->npieces; i++) {
		const char *outsec = map->insecs[i].outsec, *before = i ? map->insecs[i - 1].outsec : NULL;
		link->group[i] = outsec && before && strcmp(outsec, before) == 0 ? link->group[i - 1] : (uint32_t)i;
	}
	link->group[t->npieces] = (uint32_t)t->npieces;
	if (!(link->code = calloc(t->npieces + 1, 1)))
		return rp_err_nomem(err, "laying out");
	for (size_t i = 0; i < t->npieces; i++) {
		const rp_map_insec *s = &map->insecs[i];
		/* the object's flag; unread, the name or a function starting there */
		const rp_func *f = s->exec ? NULL : rp_image_func_at(img, s->addr);
		link->code[i] = s->exec ? s->exec == 1 : strncmp(s->name, ".text", 5) == 0 || (f && f->addr == s->addr);
		const rp_map_outsec *out = link->code[i] && s->outsec ? rp_map_outsec_find(map, s->outsec) : NULL;
		if (out && out->empty_code_last)
			link->code[i] |= 2;   /* ld's last code section there is an empty one (lt_stub_order) */
	}
	/* GNU ld writes a stub block per output section; ld.lld shares one thunk per callee
	 * wherever it reaches (placed, for the model, with the text's) */
	link->per_section_veneers = !img->linker_lld;
	for (size_t i = 0; i < t->npieces; i++)
		if (map->insecs[i].outsec && strcmp(map->insecs[i].outsec, link->text_outsec) == 0) {
			link->text_group = link->group[i];
			break;
		}
	return link->veneer_size || img->machine == EM_RISCV ? direct_pairs(link, img, map, t, err) : 0;
}

static int size_as_linked(const rp_layout_trace *t, rp_layout_link *link, rp_err *err);

int rp_layout_link_init(rp_layout_link *link, const rp_image *img, const rp_map *map, const rp_layout_trace *t,
			const char *ram_outsec, rp_err *err)
{
	int rc = link_init(link, img, map, t, ram_outsec, err);
	if (!rc)
		rc = size_as_linked(t, link, err);
	if (rc)
		rp_layout_link_release(link);   /* nothing half-made stays with the caller */
	return rc;
}

/* A stretch of flash: an output section's input sections (by address), or the RAM section's
 * load image. */
typedef struct block {
	uint64_t start, end;      /* old */
	size_t first, last;       /* input sections [first, last) */
	uint64_t align;
	int is_text, is_load;
} block;

/* The flash blocks in address order: runs of input sections of one output section outside the
 * RAM output section, with the load image at its load address when known. */
static int collect_blocks(const rp_layout_trace *t, const rp_layout_link *link, block **out, size_t *n, rp_err *err)
{
	const rp_map *map = t->map;
	block *b = NULL;
	size_t nb = 0, cap = 0;
	for (size_t i = 0; i < map->ninsecs; i++) {
		const rp_map_insec *s = &map->insecs[i];
		if (!s->outsec || strcmp(s->outsec, link->ram_outsec) == 0 || s->addr < link->flash_lo ||
		    s->addr >= link->flash_hi)   /* RAM keeps its addresses */
			continue;
		if (nb && b[nb - 1].last == i && strcmp(map->insecs[b[nb - 1].first].outsec, s->outsec) == 0) {
			b[nb - 1].last = i + 1;
			b[nb - 1].end = s->addr + s->size > b[nb - 1].end ? s->addr + s->size : b[nb - 1].end;
			if (piece_align(s) > b[nb - 1].align)
				b[nb - 1].align = piece_align(s);
			continue;
		}
		if (rp_grow((void **)&b, &cap, nb + 2, sizeof(*b), err)) {
			free(b);
			return err->code;
		}
		const rp_map_outsec *o = rp_map_outsec_find(map, s->outsec);
		b[nb++] = (block){ o && o->addr <= s->addr ? o->addr : s->addr, s->addr + s->size, i, i + 1, piece_align(s),
				   strcmp(s->outsec, link->text_outsec) == 0, 0 };
		if (o && o->addr + o->size > b[nb - 1].end && o->addr <= s->addr)
			b[nb - 1].end = o->addr + o->size;
	}
	if (link->ram_lma_known) {
		size_t at = 0;
		while (at < nb && b[at].start < link->ram_lma)
			at++;
		if (rp_grow((void **)&b, &cap, nb + 1, sizeof(*b), err)) {
			free(b);
			return err->code;
		}
		memmove(b + at + 1, b + at, (nb - at) * sizeof(*b));
		b[at] = (block){ link->ram_lma, link->ram_lma + link->ram_base_size, 0, 0, 4, 0, 1 };
		nb++;
	}
	*out = b;
	*n = nb;
	return 0;
}

/* The veneers of block b: its group's, when b is the group's last block (an output section the
 * map shows in pieces gets them once, in its last piece). */
static size_t block_veneers(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_addrs *a,
			    const block *b, size_t *lo)
{
	uint32_t g = link->group[b->first];
	if (b->last < t->npieces && link->group[b->last] == g) {
		*lo = 0;
		return 0;
	}
	return lt_group_veneers(a, g, lo);
}

/* Lays out block b's veneers from cur (aligned to the veneer block's alignment), after its
 * group's last code section link_sec (SIZE_MAX: unknown); returns the end. */
static uint64_t lay_veneers(const rp_layout_trace *t, const rp_layout_link *link, rp_layout_addrs *a, const block *b,
			    uint64_t cur, size_t link_sec)
{
	size_t lo, hi = block_veneers(t, link, a, b, &lo);
	if (lo == hi)
		return cur;
	cur = align_up(cur, link->veneer_block_align);
	/* ld's table key is led by the id of the group's last code section; unknown where that is
	 * an empty one */
	uint32_t id = link_sec < t->npieces && !(link->code[link_sec] & 2) ? t->map->insecs[link_sec].bfd_id : 0;
	lt_stub_order(link, a, lo, hi, id);
	for (size_t k = lo; k < hi; k++, cur += link->veneer_size)
		a->veneer_addr[lo + (uint32_t)a->veneer_slot[k - lo]] = cur;
	return cur;
}

/* RV32C: where GNU ld (2.40) meets the relaxed sites. It sizes a call when it first relaxes it,
 * section by section in link order, and never revisits one made jal. Then the sections before
 * the caller's are relaxed and laid again, those after it not yet; the caller's section still
 * starts where it did unrelaxed (ldlang.c relaxes an input section before it lays it) and keeps
 * the bytes it sheds until its end (R_RISCV_DELETE). So a forward call's distance is its final
 * one plus what the sites from it to its target shed, its own included; a backward call's
 * plus what every site before it shed. Measured on the RISC-V example's flash-only build and
 * 82 relinks of two benchmark runs (rp_layout_rvc_check): 46 of 12,082 narrowable calls sized
 * otherwise than ld did, none in the flash-only build (a backward call's shed counted from its
 * section's start instead, 8 more; none, 29 more; the rest: calls within one section,
 * alignment padding and, in the relinks, calls between moved sections, which that check reads
 * against the flash table). Calls between two moved sections: the same rule where they run in
 * RAM, with a table of their own (ram_addrs). */
typedef struct pending {
	uint64_t *addr;               /* the relaxed sites' addresses in one output section, sorted */
	uint64_t *shed;               /* shed[i]: bytes the sites before addr[i] shed (8 - length) */
	size_t n;
	uint64_t slack;               /* the output section's alignment */
} pending;

static int by_u64_pair(const void *a, const void *b)
{
	const uint64_t *x = a, *y = b;
	return (x[0] > y[0]) - (x[0] < y[0]);
}

/* Whether r's sites go in the table: flash (ram NULL) the sections that stay there (in_ram
 * NULL: all), but for calls into RAM (auipc+jalr again, they shed nothing); RAM (ram: where
 * the moved sections run) the calls between two moved ones. */
static int pending_has(const rp_layout_trace *t, const rp_layout_link *link, const unsigned char *in_ram,
		       const uint64_t *ram, const struct rp_layout_relax *r)
{
	if (r->from >= t->npieces || r->to >= t->npieces)
		return 0;
	if (ram)
		return in_ram[r->from] && in_ram[r->to];
	uint64_t old = t->map->insecs[r->from].addr;   /* code already in RAM: another order */
	return !(in_ram && (in_ram[r->from] || in_ram[r->to])) && old >= link->flash_lo && old < link->flash_hi;
}

/* The sites, each at its linked length, at at (NULL: as linked), or where they run in RAM
 * (ram, with in_ram; slack: the RAM section's alignment). */
static int pending_build(const rp_layout_trace *t, const rp_layout_link *link, const unsigned char *in_ram,
			 const uint64_t *at, const uint64_t *ram, uint64_t slack, pending *p, rp_err *err)
{
	memset(p, 0, sizeof(*p));
	p->slack = ram ? slack : link->rvc_slack;
	uint64_t *pairs = malloc((link->nsites ? link->nsites : 1) * 2 * sizeof(uint64_t));
	if (!pairs)
		return rp_err_nomem(err, "laying out");
	for (size_t k = 0; k < link->nrelax; k++) {
		const struct rp_layout_relax *r = &link->relax[k];
		if (!pending_has(t, link, in_ram, ram, r))
			continue;
		uint64_t base = ram ? ram[r->from] : at ? at[r->from] : t->map->insecs[r->from].addr;
		for (uint32_t j = r->site0; j < r->site0 + r->nsites && j < link->nsites; j++)
			if (link->sites[j].relaxed) {
				pairs[2 * p->n] = base + link->sites[j].off;
				pairs[2 * p->n++ + 1] = 8u - link->sites[j].len;
			}
	}
	qsort(pairs, p->n, 2 * sizeof(uint64_t), by_u64_pair);
	p->addr = malloc((p->n + 1) * sizeof(uint64_t));
	p->shed = malloc((p->n + 1) * sizeof(uint64_t));
	if (!p->addr || !p->shed) {
		free(pairs);
		return rp_err_nomem(err, "laying out");
	}
	uint64_t sum = 0;
	for (size_t i = 0; i < p->n; i++) {
		p->addr[i] = pairs[2 * i];
		p->shed[i] = sum;
		sum += pairs[2 * i + 1];
	}
	p->shed[p->n] = sum;
	free(pairs);
	return 0;
}

static void pending_release(pending *p)
{
	free(p->addr);
	free(p->shed);
	memset(p, 0, sizeof(*p));
}

/* The sites at or above addr: the index of the first. */
static size_t pending_from(const pending *p, uint64_t addr)
{
	size_t lo = 0, hi = p->n;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (p->addr[mid] < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* RV32C: the length GNU ld gives a narrowable call or jump from site to target: c.jal or c.j
 * within its reach as ld measured it (the bytes not yet shed, above; the output section's
 * alignment added, as a later alignment could widen it), else jal or j. */
static int64_t rvc_len(const rp_layout_link *link, const pending *p, uint64_t site, uint64_t target)
{
	int64_t slack = (int64_t)p->slack, reach = (int64_t)link->rvc_reach;
	int64_t foff = (int64_t)target - (int64_t)site;
	if (foff > 0)
		foff += (int64_t)(p->shed[pending_from(p, target)] - p->shed[pending_from(p, site)]);
	else
		foff -= (int64_t)p->shed[pending_from(p, site)];
	foff += foff < 0 ? -slack : slack;
	return foff >= -reach && foff < reach ? 2 : 4;
}

/* Each narrowable site's as_linked: the rule applied to the layout as linked, once per link
 * (what a layout's length is compared with, and what rp_layout_rvc_check counts). */
static int size_as_linked(const rp_layout_trace *t, rp_layout_link *link, rp_err *err)
{
	if (!link->rvc_reach)
		return 0;
	pending was;
	int rc = pending_build(t, link, NULL, NULL, NULL, 0, &was, err);
	for (size_t k = 0; !rc && k < link->nrelax; k++) {
		const struct rp_layout_relax *r = &link->relax[k];
		if (r->from >= t->npieces || r->to >= t->npieces)
			continue;
		uint64_t from = t->map->insecs[r->from].addr, to = t->map->insecs[r->to].addr + r->to_off;
		for (uint32_t j = r->site0; j < r->site0 + r->nsites && j < link->nsites; j++)
			if (link->sites[j].narrow)
				link->sites[j].as_linked = (unsigned char)rvc_len(link, &was, from + link->sites[j].off, to);
	}
	pending_release(&was);
	return rc;
}

void rp_layout_rvc_check(const rp_layout_link *link, size_t *wrong, size_t *checked)
{
	*wrong = *checked = 0;
	for (size_t j = 0; link->rvc_reach && j < link->nsites; j++) {
		if (!link->sites[j].narrow)
			continue;
		(*checked)++;
		*wrong += link->sites[j].as_linked != link->sites[j].len;
	}
}

/* What relaxation changes: per section, the bytes it grows by, and each site resized. */
typedef struct growth {
	int64_t *by;                  /* per section */
	struct resized {
		uint32_t piece, off;
		int32_t delta;
	} *sites;
	size_t n, cap;
} growth;

static int resize(growth *g, uint32_t piece, uint32_t off, int64_t delta, rp_err *err)
{
	if (!delta)
		return 0;
	if (rp_grow((void **)&g->sites, &g->cap, g->n + 1, sizeof(*g->sites), err))
		return err->code;
	g->sites[g->n++] = (struct resized){ piece, off, (int32_t)delta };
	g->by[piece] += delta;
	return 0;
}

/* A site's new length minus its old: apart (flash and RAM), auipc+jalr again; in flash, with
 * RVC, each narrowable site by its own distance to the callee's entry (a section's calls lie
 * across it: qsort's calls to swapfunc reach differently from its start and its end). at:
 * the addresses of a first pass, or NULL. Unmoved, nothing. */
static int64_t site_change(const rp_layout_link *link, const struct rp_layout_relax *r,
			   const struct rp_layout_site *site, int apart, const uint64_t *at, const pending *now)
{
	if (apart)   /* a branch cannot grow: the map binds it to its target (rp_map_bind) */
		return site->relaxed ? 8 - (int64_t)site->len : 0;
	if (!at || !now->addr || !link->rvc_reach || !site->narrow)
		return 0;
	return rvc_len(link, now, at[r->from] + site->off, at[r->to] + r->to_off) - site->as_linked;
}

/* RISC-V: what each section grows by, and where. A call the linker relaxed (jal, c.jal) to a
 * section on the other side of flash and RAM is auipc+jalr again; with RVC, a call between
 * two flash sections is c.jal when it ends up within its 2 KiB reach (at) and jal when not.
 * at: the addresses of a first pass, or NULL. */
static int relax_growth(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			const uint64_t *at, const uint64_t *ram, uint64_t ram_slack, growth *g, rp_err *err)
{
	if (!link->nrelax || (!lp->in_ram && !at))
		return 0;
	if (!(g->by = calloc(t->npieces + 1, sizeof(int64_t))))
		return rp_err_nomem(err, "laying out");
	pending now = { 0 }, now_ram = { 0 };
	int rc = 0;
	if (at && link->rvc_reach)
		rc = pending_build(t, link, lp->in_ram, at, NULL, 0, &now, err);
	if (!rc && at && link->rvc_reach && ram)
		rc = pending_build(t, link, lp->in_ram, NULL, ram, ram_slack, &now_ram, err);
	for (size_t k = 0; !rc && k < link->nrelax; k++) {
		const struct rp_layout_relax *r = &link->relax[k];
		if (r->from >= t->npieces || r->to >= t->npieces)
			continue;
		int from_ram = lp->in_ram && lp->in_ram[r->from], to_ram = lp->in_ram && lp->in_ram[r->to];
		/* between two moved sections: their distance in RAM */
		const uint64_t *where = from_ram && to_ram ? ram : at;
		const pending *table = from_ram && to_ram ? &now_ram : &now;
		for (uint32_t j = r->site0; !rc && j < r->site0 + r->nsites && j < link->nsites; j++) {
			int64_t d = site_change(link, r, &link->sites[j], from_ram != to_ram, where, table);
			rc = resize(g, r->from, link->sites[j].off, d, err);
		}
	}
	pending_release(&now);
	pending_release(&now_ram);
	return rc;
}

static uint64_t grown(const rp_layout_trace *t, const int64_t *grow, size_t i)
{
	int64_t size = (int64_t)t->map->insecs[i].size + (grow ? grow[i] : 0);
	return size > 0 ? (uint64_t)size : 0;
}

/* Where each moved section runs (*ram, npieces, UINT64_MAX elsewhere; the caller frees it),
 * as the fragment lays them: by alignment, the largest first, within one in lp's order; and
 * the largest alignment (*slack). NULL when nothing moves or the map does not say. */
static int ram_addrs(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		     const int64_t *grow, uint64_t **ram, uint64_t *slack, rp_err *err)
{
	*ram = NULL;
	*slack = 0;
	if (!lp->in_ram || !link->ram_lma_known)
		return 0;
	uint64_t *at = malloc((t->npieces + 1) * sizeof(uint64_t));
	if (!at)
		return rp_err_nomem(err, "laying out");
	for (size_t i = 0; i <= t->npieces; i++)
		at[i] = UINT64_MAX;
	uint64_t cur = link->ram_vma + link->ram_base_size;
	for (uint64_t al = UINT64_MAX, next; al > 0; al = next) {
		next = 0;
		size_t n = lp->ram_secs ? lp->nram_secs + t->npieces : t->npieces;
		for (size_t k = 0; k < n; k++) {   /* lp's order, then any moved section it missed */
			size_t i = lp->ram_secs && k < lp->nram_secs ? lp->ram_secs[k] : lp->ram_secs ? k - lp->nram_secs : k;
			if (i >= t->npieces || !lp->in_ram[i] || at[i] != UINT64_MAX)
				continue;
			uint64_t a = piece_align(&t->map->insecs[i]);
			if (a == al) {
				at[i] = align_up(cur, a);
				cur = at[i] + grown(t, grow, i);
				*slack = a > *slack ? a : *slack;   /* the output section's, as ld aligns it */
			} else if (a < al && a > next) {
				next = a;
			}
		}
	}
	if (*slack <= 1)
		*slack = 0;
	*ram = at;
	return 0;
}

static void growth_release(growth *g)
{
	free(g->by);
	free(g->sites);
	memset(g, 0, sizeof(*g));
}

static int by_resized(const void *a, const void *b)
{
	const struct resized *x = a, *y = b;
	if (x->piece != y->piece)
		return x->piece < y->piece ? -1 : 1;
	return (x->off > y->off) - (x->off < y->off);
}

/* out->shift from g: where the trace's offsets within a section move. */
static int keep_shifts(const rp_layout_trace *t, growth *g, rp_layout_addrs *out, rp_err *err)
{
	if (!g->n)
		return 0;
	qsort(g->sites, g->n, sizeof(*g->sites), by_resized);
	out->shift = malloc(g->n * sizeof(*out->shift));
	out->shift_first = calloc(t->npieces + 2, sizeof(size_t));
	if (!out->shift || !out->shift_first)
		return rp_err_nomem(err, "laying out");
	size_t k = 0;
	for (size_t i = 0; i <= t->npieces; i++) {
		out->shift_first[i] = k;
		for (; k < g->n && g->sites[k].piece == i; k++)
			out->shift[k] = (struct rp_layout_shift){ g->sites[k].off, g->sites[k].delta };
	}
	out->shift_first[t->npieces + 1] = k;
	return 0;
}

/* The RAM section's load image: the moved sections at their alignment, the RAM-side veneers. */
static uint64_t load_size(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			  const int64_t *grow, uint64_t ram_veneer_bytes)
{
	uint64_t size = link->ram_base_size;   /* what the section already holds (attributes) */
	/* by alignment, the largest first, as the fragment orders its units (place_plan.c; within
	 * an alignment, and for a unit of mixed alignments, a few bytes of padding may differ):
	 * the padding between them depends on it */
	for (uint64_t al = UINT64_MAX, next; lp->in_ram && al > 0; al = next) {
		next = 0;
		for (size_t i = 0; i < t->npieces; i++) {
			uint64_t a = piece_align(&t->map->insecs[i]);
			if (!lp->in_ram[i] || a > al)
				continue;
			if (a == al)
				size = align_up(size, a) + grown(t, grow, i);
			else if (a > next)
				next = a;   /* the next alignment down */
		}
	}
	if (!size)
		return 0;
	/* the RAM side's stub block is aligned like the flash side's (phasevm: 4 bytes of fill
	 * that shifted everything after the load image) */
	if (ram_veneer_bytes)
		size = align_up(size, link->veneer_block_align) + ram_veneer_bytes;
	return align_up(size, 4);
}

/* Lays section i from *cur: at its alignment, or, when it starts inside what the sections laid
 * before it held in the old link (ld's map gives a merged string section the address of the
 * copy it shares), by the shift of the one laid last. *laid: the last one laid (SIZE_MAX: none),
 * *old_end: the furthest old end laid so far. */
static void lay_one(const rp_layout_trace *t, const int64_t *grow, size_t i, uint64_t *cur, size_t *laid,
		    uint64_t *old_end, rp_layout_addrs *a)
{
	const rp_map_insec *s = &t->map->insecs[i];
	if (*laid != SIZE_MAX && s->addr < *old_end) {
		const rp_map_insec *p = &t->map->insecs[*laid];
		a->addr[i] = a->addr[*laid] + (s->addr - p->addr);
	} else {
		a->addr[i] = align_up(*cur, piece_align(s));
	}
	uint64_t end = a->addr[i] + grown(t, grow, i);
	*cur = end > *cur ? end : *cur;
	*old_end = s->addr + s->size > *old_end ? s->addr + s->size : *old_end;
	*laid = i;
}

/* Where block b's veneer block goes among the sections left in flash (not placed, not moved):
 * before section i, returned (b->last: at the end). GNU ld puts an output section's stubs after
 * its last code section, so the strings and tables after that follow the stubs; ld.lld's are
 * laid at the text's end. */
static size_t veneers_after(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			    const block *b, const unsigned char *placed)
{
	if (!link->per_section_veneers)
		return b->last;
	size_t at = b->first;   /* no code left but ordered sections: right after them */
	for (size_t i = b->first; i < b->last && i < t->npieces; i++)
		if (link->code[i] && !(placed && placed[i]) && !(lp->in_ram && lp->in_ram[i]))
			at = i + 1;
	return at;
}

/* The last of the plan's ordered sections in block b (SIZE_MAX: none), after which ld puts the
 * stubs when no other code section is left in it. */
static size_t last_ordered(const rp_layout_trace *t, const rp_layout_plan *lp, const block *b)
{
	size_t last = SIZE_MAX;
	for (size_t k = 0; k < lp->norder; k++) {
		size_t i = lp->order[k];
		if (i >= b->first && i < b->last && i < t->npieces && !(lp->in_ram && lp->in_ram[i]))
			last = i;
	}
	return last;
}

/* The unordered sections of the text block from cur (the ordered ones' end) after pad (the
 * fragment's `. += pad` after the ordered sections), the veneer block after the last code
 * section: before the pad when that is an ordered one (ld inserts the stubs right after it);
 * returns the end. *rest_align: the largest alignment the pad moves (what it must be a
 * multiple of to move them all by itself). */
static uint64_t lay_rest(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			 const int64_t *grow, const block *b, uint64_t cur, uint64_t pad, const unsigned char *placed,
			 rp_layout_addrs *a, uint64_t *rest_align)
{
	const rp_map *map = t->map;
	uint64_t last_old_end = b->start;
	*rest_align = 1;
	size_t laid = SIZE_MAX, stubs_after = veneers_after(t, link, lp, b, placed);
	uint64_t laid_old_end = 0;
	size_t lo, hi = block_veneers(t, link, a, b, &lo);
	int stubs_first = stubs_after == b->first && hi > lo;
	if (!stubs_first)
		cur += pad;
	for (size_t i = b->first; i <= b->last; i++) {
		if (i == stubs_after && hi > lo) {
			a->veneer_base = align_up(cur, link->veneer_block_align);
			cur = lay_veneers(t, link, a, b, cur, stubs_first ? last_ordered(t, lp, b) : stubs_after - 1);
			if (stubs_first)
				cur += pad;
			else
				*rest_align = link->veneer_block_align > *rest_align ? link->veneer_block_align : *rest_align;
		}
		if (i == b->last)
			break;
		const rp_map_insec *s = &map->insecs[i];
		last_old_end = s->addr + s->size > last_old_end ? s->addr + s->size : last_old_end;
		if (placed[i] || (lp->in_ram && lp->in_ram[i]))
			continue;
		lay_one(t, grow, i, &cur, &laid, &laid_old_end, a);
		*rest_align = piece_align(s) > *rest_align ? piece_align(s) : *rest_align;
	}
	return cur + (b->end - last_old_end);
}

/* The text output section: ordered sections first, the rest in the old order, the veneers
 * after the last code section; with tail_line, a pad after the ordered sections so that what
 * follows the text keeps its offset within a line (as near as the rest's alignment allows). */
static uint64_t lay_text(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			 const int64_t *grow, const block *b, uint64_t start, unsigned char *placed, rp_layout_addrs *a)
{
	const rp_map *map = t->map;
	uint64_t cur = align_up(start + (map->insecs[b->first].addr - b->start), lp->text_align);
	for (size_t k = 0; k < lp->norder; k++) {
		size_t i = lp->order[k];
		if (i < b->first || i >= b->last || placed[i] || (lp->in_ram && lp->in_ram[i]))
			continue;
		uint64_t al = piece_align(&map->insecs[i]);
		a->addr[i] = align_up(cur, lp->order_align > al ? lp->order_align : al);
		cur = a->addr[i] + grown(t, grow, i);
		placed[i] = 1;
	}
	uint64_t rest_align, end = lay_rest(t, link, lp, grow, b, cur, 0, placed, a, &rest_align);
	a->tail_pad = 0;
	if (lp->tail_line > 1 && rest_align <= lp->tail_line) {
		uint64_t off = (b->end % lp->tail_line + lp->tail_line - end % lp->tail_line) % lp->tail_line;
		a->tail_pad = align_up(off, rest_align) % lp->tail_line;
		if (a->tail_pad)
			end = lay_rest(t, link, lp, grow, b, cur, a->tail_pad, placed, a, &rest_align);
	}
	return end;
}

/* Another output section's block from start: as it was, or, when some of its sections moved
 * to RAM or grow (RISC-V), the rest closed up at their alignment; the veneers of its calls into
 * RAM after its last code section (GNU ld's stub section, 8-aligned, which aligns the output
 * section too), what follows them closed up behind; returns its end. */
static uint64_t lay_other(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			  const int64_t *grow, const block *b, uint64_t start, rp_layout_addrs *out)
{
	const rp_map *map = t->map;
	int changed = 0;
	for (size_t i = b->first; i < b->last; i++)
		changed |= (lp->in_ram && lp->in_ram[i]) || (grow && grow[i]);
	uint64_t cur = start + (map->insecs[b->first].addr - b->start), last_old_end = b->start, laid_old_end = 0;
	size_t laid = SIZE_MAX, stubs_after = veneers_after(t, link, lp, b, NULL);
	for (size_t i = b->first; i <= b->last; i++) {
		if (i == stubs_after) {
			uint64_t end = lay_veneers(t, link, out, b, cur, stubs_after > b->first ? stubs_after - 1 : SIZE_MAX);
			changed |= end != cur;   /* what follows the stubs is laid after them */
			cur = end;
		}
		if (i == b->last)
			break;
		const rp_map_insec *s = &map->insecs[i];
		last_old_end = s->addr + s->size > last_old_end ? s->addr + s->size : last_old_end;
		if (!changed) {
			out->addr[i] = s->addr - b->start + start;
			cur = out->addr[i] + s->size > cur ? out->addr[i] + s->size : cur;
			laid = i;   /* merged strings after the stubs keep their overlap with it */
			laid_old_end = s->addr + s->size > laid_old_end ? s->addr + s->size : laid_old_end;
		} else if (!lp->in_ram || !lp->in_ram[i]) {
			lay_one(t, grow, i, &cur, &laid, &laid_old_end, out);
		}
	}
	return cur + (b->end - last_old_end);
}

/* Whether nothing is left of a block in flash: every input section moved to RAM, they spanned
 * the whole output section (no fill or assignment of its own) and it calls nothing across. ld
 * drops the empty output section (a script leaving .text.* orphans has one per function). */
static int emptied(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp, const block *b,
		   const rp_layout_addrs *a)
{
	if (b->is_load || !lp->in_ram || t->map->insecs[b->first].addr != b->start)
		return 0;
	uint64_t end = b->start;
	for (size_t i = b->first; i < b->last; i++) {
		const rp_map_insec *s = &t->map->insecs[i];
		if (!lp->in_ram[i])
			return 0;
		end = s->addr + s->size > end ? s->addr + s->size : end;
	}
	size_t lo, hi = block_veneers(t, link, a, b, &lo);
	return end >= b->end && hi == lo;
}

/* A block's alignment under the plan: the largest of the sections that stay in it (ld aligns
 * an output section to its input sections' largest alignment; the RISC-V example's .text was
 * 16-aligned by memcpy's, and laid 12 bytes late once memcpy had moved to RAM). */
static uint64_t block_align(const rp_layout_trace *t, const rp_layout_plan *lp, const block *b)
{
	if (b->is_load || !lp->in_ram)
		return b->align;
	uint64_t al = 0;
	for (size_t i = b->first; i < b->last; i++)
		if (!lp->in_ram[i] && piece_align(&t->map->insecs[i]) > al)
			al = piece_align(&t->map->insecs[i]);
	return al ? al : b->align;
}

/* One pass over the flash blocks with the sections' growth; fills out's addresses. */
static void lay_blocks(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		       const int64_t *grow, const block *b, size_t nb, unsigned char *placed, rp_layout_addrs *out)
{
	uint64_t old_end = 0, new_end = 0;
	int text_seen = 0;
	memset(placed, 0, t->npieces + 1);
	for (size_t k = 0; k < nb; k++) {
		if (k && emptied(t, link, lp, &b[k], out)) {
			old_end = b[k].end > old_end ? b[k].end : old_end;
			continue;
		}
		/* the gap before a block stays when it is more than alignment padding */
		uint64_t gap = k && b[k].start > old_end ? b[k].start - old_end : 0;
		size_t lo = 0, hi = b[k].is_load ? 0 : block_veneers(t, link, out, &b[k], &lo);
		uint64_t balign = block_align(t, lp, &b[k]);
		uint64_t al = hi > lo && link->veneer_block_align > balign ? link->veneer_block_align : balign;
		uint64_t start = k ? align_up(new_end + (gap >= b[k].align ? gap : 0), al) : b[k].start;
		if (b[k].is_load) {
			out->load_addr = start;
			new_end = start + out->load_size;
		} else if (b[k].is_text && !text_seen) {
			text_seen = 1;
			new_end = lay_text(t, link, lp, grow, &b[k], start, placed, out);
		} else {
			new_end = lay_other(t, link, lp, grow, &b[k], start, out);
		}
		old_end = b[k].end > old_end ? b[k].end : old_end;
	}
	if (!link->ram_lma_known)   /* after everything in flash */
		out->load_addr = new_end;
}

int rp_layout_arrange(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		      rp_layout_addrs *out, rp_err *err)
{
	memset(out, 0, sizeof(*out));
	const rp_map *map = t->map;
	block *b = NULL;
	size_t nb = 0;
	uint64_t ram_veneer_bytes = 0;
	unsigned char *placed = calloc(t->npieces + 1, 1);
	out->addr = malloc((t->npieces + 1) * sizeof(uint64_t));
	if (!placed || !out->addr) {
		free(placed);
		rp_layout_addrs_release(out);
		return rp_err_nomem(err, "laying out");
	}
	for (size_t i = 0; i < t->npieces; i++)
		out->addr[i] = map->insecs[i].addr;
	out->addr[t->npieces] = 0;
	growth g = { NULL, NULL, 0, 0 };
	int rc = lt_assign_veneers(t, link, lp, out, &ram_veneer_bytes, err);
	if (!rc)
		rc = relax_growth(t, link, lp, NULL, NULL, 0, &g, err);
	if (!rc)
		rc = collect_blocks(t, link, &b, &nb, err);
	if (!rc) {
		out->load_size = load_size(t, link, lp, g.by, ram_veneer_bytes);
		lay_blocks(t, link, lp, g.by, b, nb, placed, out);
	}
	/* RVC: which calls stay c.jal depends on the distances just laid out; a second pass with
	 * those sizes (the linker iterates further; one pass takes the bulk) */
	if (!rc && link->rvc_reach && link->nrelax) {
		uint64_t *ram = NULL, ram_slack = 0;
		rc = ram_addrs(t, link, lp, g.by, &ram, &ram_slack, err);
		growth_release(&g);
		if (!rc)
			rc = relax_growth(t, link, lp, out->addr, ram, ram_slack, &g, err);
		free(ram);
		if (!rc) {
			out->load_size = load_size(t, link, lp, g.by, ram_veneer_bytes);
			lay_blocks(t, link, lp, g.by, b, nb, placed, out);
		}
	}
	if (!rc)
		rc = keep_shifts(t, &g, out, err);
	free(b);
	free(placed);
	growth_release(&g);
	if (rc)
		rp_layout_addrs_release(out);
	return rc;
}

void rp_layout_addrs_release(rp_layout_addrs *a)
{
	free(a->addr);
	free(a->veneer_key);
	free(a->veneer_addr);
	free(a->veneer_slot);
	free(a->shift);
	free(a->shift_first);
	memset(a, 0, sizeof(*a));
}

/* Pricing state shared by the runs' and the full trace's replays. */
typedef struct pricer {
	const rp_layout_trace *t;
	const rp_layout_link *link;
	const rp_layout_plan *lp;
	const rp_layout_addrs *a;
	rp_fm *m;
	uint64_t stall, extra;         /* of the runs (scaled at the end, less the cold misses) */
	int warm;                      /* the model is fed a warm-up */
	uint64_t copy_stall, copy_extra;   /* of the boot copy */
	size_t window;                 /* the full replay: the window it is in (SIZE_MAX: none yet) */
	uint64_t in_window;            /*   and accesses into it */
	const rp_image *img;           /* rp_layout_attribute: the functions credited, */
	double *per_func;              /*   per function of img, */
	struct by_new { uint64_t addr; uint32_t piece; } *flash;   /* the flash sections by new address */
	size_t nflash;
} pricer;

static int in_ram(const pricer *p, uint32_t piece)
{
	return p->lp->in_ram && piece < p->t->npieces && p->lp->in_ram[piece];
}

/* The copy of what moved: what the section already held is copied in the trace already. */
static void boot_copy(pricer *p)
{
	uint64_t base = align_up(p->link->ram_base_size, 4);
	if (p->a->load_size <= base)
		return;
	uint64_t bytes = p->a->load_size - base;
	p->copy_stall = rp_fm_access_run(p->m, p->a->load_addr + base, bytes, bytes / 4, 0, RP_FM_READ);
	p->copy_extra = (bytes + 3) / 4 * p->link->copy_insns;
}

/* A fetch entering piece at off from another: the veneer it runs when they end up apart.
 * Returns 1 when the access itself is in RAM (not fed to the model). */
static int cross(pricer *p, uint32_t piece, uint32_t off, uint32_t from, rp_fm_op op)
{
	int to_ram = in_ram(p, piece);
	/* a veneer for a direct call; on RISC-V (no veneers) the auipc of a call the linker had
	 * relaxed to jal */
	int costs = p->link->veneer_size ? from < p->t->npieces && lt_is_direct_callee(p->link, from, piece, off)
					 : rp_layout_was_relaxed(p->link, from, piece);
	if (op != RP_FM_FETCH || from == UINT32_MAX || to_ram == in_ram(p, from) || !costs)
		return to_ram;
	const rp_layout_link *l = p->link;
	p->extra += l->veneer_insns;
	const uint64_t *at = NULL;
	if (to_ram && l->veneer_size >= 4 && from < p->t->npieces && p->a->nveneers) {
		/* the caller's block's veneer to the function entered (lt_assign_veneers' key) */
		uint64_t group = l->per_section_veneers ? l->group[from] : l->text_group;
		uint64_t key = group << 32 | lt_callee_index(l, piece, off);
		at = bsearch(&key, p->a->veneer_key, p->a->nveneers, sizeof(uint64_t), by_u64);
	}
	uint64_t v = at ? p->a->veneer_addr[at - p->a->veneer_key] : UINT64_MAX;
	if (v != UINT64_MAX) {
		/* ldr.w pc, [pc] is one fetch; v6-M's five instructions are spread by bytes */
		p->stall += rp_fm_access_run(p->m, v, l->veneer_size - 4, l->veneer_insns, l->veneer_insns == 1, RP_FM_FETCH);
		p->stall += rp_fm_access_run(p->m, v + l->veneer_size - 4, 4, 1, 0, RP_FM_READ);
	}
	return to_ram;
}

/* What the flash held before a window (a warm run) left out the veneers: the flash-only build
 * has none. A call's veneer was last used when its site last ran, so the veneers of the calls
 * in a warm run's bytes are replayed with it (a short window that found them all evicted
 * would scale their misses as the steady state's: at 1 KiB under cache:esp32 the FreeRTOS
 * demo's relink priced 8 % high without them). */
static void warm_calls(pricer *p, const rp_layout_run *run)
{
	const rp_layout_link *l = p->link;
	if (!l->ncalls || !p->a->nveneers || run->piece >= p->t->npieces || in_ram(p, run->piece))
		return;
	size_t lo = 0, hi = l->ncalls;
	while (lo < hi) {   /* the first call at or past the run's start */
		size_t mid = lo + (hi - lo) / 2;
		const struct rp_layout_call *c = &l->calls[mid];
		if (c->from < run->piece || (c->from == run->piece && c->off < run->off))
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < l->ncalls && l->calls[lo].from == run->piece && l->calls[lo].off < run->off + run->len; lo++)
		cross(p, l->calls[lo].to, l->calls[lo].to_off, run->piece, RP_FM_FETCH);
}

/* RISC-V: how far off moves within its section: the sites before it that relaxation resized. */
static int64_t shifted(const rp_layout_addrs *a, uint32_t piece, uint32_t off)
{
	int64_t by = 0;
	if (a->shift_first)
		for (size_t k = a->shift_first[piece]; k < a->shift_first[piece + 1] && a->shift[k].off < off; k++)
			by += a->shift[k].delta;
	return by;
}

static uint64_t new_addr(const pricer *p, uint32_t piece, uint32_t off)
{
	return piece < p->t->npieces ? p->a->addr[piece] + off + (uint64_t)shifted(p->a, piece, off) : off;
}

/* The bytes a run of len from off spans after the move (a resized site inside it). */
static uint64_t new_len(const pricer *p, uint32_t piece, uint32_t off, uint32_t len)
{
	if (!p->a->shift_first || piece >= p->t->npieces)
		return len;
	int64_t n = (int64_t)len + shifted(p->a, piece, off + len) - shifted(p->a, piece, off);
	return n > 0 ? (uint64_t)n : 1;
}

/* The most lines the layout can touch: the map's sections, the load image and the veneers,
 * each possibly straddling one more line (what the first-touch table is sized for). */
static size_t footprint_lines(const pricer *p, const rp_fm_cfg *cfg)
{
	uint64_t bytes = p->a->load_size + (uint64_t)p->a->nveneers * 16;
	for (size_t i = 0; i < p->t->npieces; i++)
		bytes += p->t->map->insecs[i].size;
	unsigned line = cfg->kind == RP_FM_WS ? 4 : cfg->line;
	uint64_t n = bytes / (line ? line : 4) + p->t->npieces + 4096;
	return n > ((uint64_t)1 << 25) ? (size_t)1 << 25 : (size_t)n;
}

static int pricer_start(pricer *p, const rp_fm_cfg *cfg, rp_err *err)
{
	if (!(p->m = rp_fm_new(cfg)))
		return rp_err_nomem(err, "pricing a layout");
	if (p->t->warmed && rp_fm_first_touch(p->m, footprint_lines(p, cfg))) {
		rp_fm_free(p->m);
		return rp_err_nomem(err, "pricing a layout");
	}
	boot_copy(p);
	return 0;
}

/* A scaled count as a whole number, saturated (2^63 cycles is no price anyone compares). */
static uint64_t scaled(double v)
{
	return v >= 9.2e18 ? (uint64_t)9.2e18 : (uint64_t)(v + 0.5);
}

static void pricer_finish(pricer *p, rp_layout_cost *out)
{
	rp_fm_stats st;
	rp_fm_get_stats(p->m, &st);
	double k = p->t->scale > 0 ? p->t->scale : 1.0;   /* about 2^20 at most (layout_trace.c) */
	/* a sampled trace's misses in sets that never evict are paid once (rp_fm_window), a
	 * warm-up's too: the run pays them somewhere; with what the flash held replayed, each
	 * line's first miss is (rp_fm_first_touch) */
	uint64_t cold_counted, cold_all;
	rp_fm_cold(p->m, &cold_counted, &cold_all);
	uint64_t rest = p->stall >= cold_counted ? p->stall - cold_counted : 0;
	out->stall = p->copy_stall + scaled((double)rest * k) + cold_all;
	out->extra_insns = p->copy_extra + scaled((double)p->extra * k);
	out->misses = st.misses;   /* of the replay: the runs' unscaled, with the copy's and the
				      warm-ups' */
	out->cycles = out->stall + out->extra_insns;
	rp_fm_free(p->m);
}

/* After a run or access fed from stall0/extra0: a warm-up's cost is not counted (the model's
 * tally of cold misses still sees it). */
static void settle(pricer *p, int warm, uint64_t stall0, uint64_t extra0)
{
	if (warm) {
		p->stall = stall0;
		p->extra = extra0;
	}
}

/* Feeds what follows as a window's warm-up or not. */
static void warm_up(pricer *p, int warm)
{
	if (warm != p->warm) {
		rp_fm_set_warm(p->m, warm);
		p->warm = warm;
	}
}

/* The function the trace's build has at section piece's offset off, or SIZE_MAX. */
static size_t func_of(const pricer *p, uint32_t piece, uint64_t off)
{
	if (piece >= p->t->npieces)
		return SIZE_MAX;
	const rp_func *f = rp_image_func_at(p->img, p->t->map->insecs[piece].addr + off);
	return f ? (size_t)(f - p->img->funcs) : SIZE_MAX;
}

/* The function whose code lies at new address addr in flash (an evictor), or SIZE_MAX. */
static size_t func_at_new(const pricer *p, uint64_t addr)
{
	size_t lo = 0, hi = p->nflash;
	while (lo < hi) {   /* the last section starting at or below addr */
		size_t mid = lo + (hi - lo) / 2;
		if (p->flash[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return SIZE_MAX;
	const struct by_new *s = &p->flash[lo - 1];
	uint64_t off = addr - s->addr;
	return off < p->t->map->insecs[s->piece].size ? func_of(p, s->piece, off) : SIZE_MAX;
}

/* rp_layout_attribute: a run's stall to its function, and each miss it had on a line another
 * access evicted to the evicting function (cycles.c's attributed()), scaled by the sampling. */
static void credit(pricer *p, const rp_layout_run *run, uint64_t stall)
{
	double k = p->t->scale > 0 ? p->t->scale : 1.0;
	size_t f = func_of(p, run->piece, run->off);
	if (f != SIZE_MAX)
		p->per_func[f] += (double)stall * k;
	const rp_fm_evict *ev;
	size_t n = rp_fm_last_evictions(p->m, &ev);
	for (size_t i = 0; i < n; i++)
		if ((f = func_at_new(p, ev[i].by)) != SIZE_MAX)
			p->per_func[f] += (double)ev[i].stall * k;
}

static void price_runs(pricer *p)
{
	const rp_layout_trace *t = p->t;
	for (size_t r = 0; r < t->nruns; r++) {
		const rp_layout_run *run = &t->runs[r];
		uint64_t stall = p->stall, extra = p->extra;
		if (run->window)
			rp_fm_window(p->m);
		warm_up(p, run->warm);
		if (!cross(p, run->piece, run->off, run->from, (rp_fm_op)run->op)) {
			uint64_t s = rp_fm_access_run(p->m, new_addr(p, run->piece, run->off),
						      new_len(p, run->piece, run->off, run->len), run->n, run->starts,
						      (rp_fm_op)run->op);
			p->stall += s;
			if (p->per_func && !run->warm)
				credit(p, run, s);
			if (run->warm && run->op == RP_FM_FETCH)
				warm_calls(p, run);
		}
		settle(p, run->warm, stall, extra);
	}
}

int rp_layout_price(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		    const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out, rp_err *err)
{
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0, 0, SIZE_MAX, 0, NULL, NULL, NULL, 0 };
	if (pricer_start(&p, cfg, err))
		return err->code;
	price_runs(&p);
	pricer_finish(&p, out);
	out->pad = a->tail_pad;
	return 0;
}

static int by_new_addr(const void *a, const void *b)
{
	const struct by_new *x = a, *y = b;
	return (x->addr > y->addr) - (x->addr < y->addr);
}

int rp_layout_attribute(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
			const rp_layout_addrs *a, const rp_fm_cfg *cfg, const rp_image *img, double *per_func,
			rp_err *err)
{
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0, 0, SIZE_MAX, 0, img, per_func, NULL, 0 };
	memset(per_func, 0, (img->nfuncs ? img->nfuncs : 1) * sizeof(double));
	if (!(p.flash = malloc((t->npieces + 1) * sizeof(*p.flash))))
		return rp_err_nomem(err, "attributing stall cycles");
	for (size_t i = 0; i < t->npieces; i++)
		if (!(lp->in_ram && lp->in_ram[i]) && t->map->insecs[i].size)
			p.flash[p.nflash++] = (struct by_new){ a->addr[i], (uint32_t)i };
	qsort(p.flash, p.nflash, sizeof(*p.flash), by_new_addr);
	int rc = pricer_start(&p, cfg, err);
	if (!rc) {
		rp_layout_cost cost;
		price_runs(&p);
		pricer_finish(&p, &cost);
	}
	free(p.flash);
	return rc;
}

static int full_visit(void *ctx, const lt_access *a, rp_err *err)
{
	(void)err;
	pricer *p = ctx;
	if (a->window) {
		p->window++;   /* from SIZE_MAX to 0 at the first */
		p->in_window = 0;
		rp_fm_window(p->m);
	}
	/* the same warm-up as the runs': the window's first window_warm[] accesses */
	int warm = (p->window < p->t->nwindow_warm && p->in_window++ < p->t->window_warm[p->window]) || a->warm;
	uint64_t stall = p->stall, extra = p->extra;
	warm_up(p, warm);
	if (!cross(p, a->piece, a->off, a->from, a->op)) {
		p->stall += rp_fm_access(p->m, new_addr(p, a->piece, a->off), new_len(p, a->piece, a->off, a->size), a->op);
		if (a->warm && a->op == RP_FM_FETCH) {
			rp_layout_run run = { a->piece, a->off, a->size, 1, 0, UINT32_MAX, (uint8_t)a->op, 1, 0 };
			warm_calls(p, &run);
		}
	}
	settle(p, warm, stall, extra);
	return 0;
}

int rp_layout_price_full(const char *path, const rp_image *img, const rp_layout_trace *t, const rp_layout_link *link,
			 const rp_layout_plan *lp, const rp_layout_addrs *a, const rp_fm_cfg *cfg, rp_layout_cost *out,
			 rp_err *err)
{
	FILE *f = fopen(path, "re");
	if (!f)
		return rp_err_set(err, RP_EINPUT, "%s: %s", path, strerror(errno));
	pricer p = { t, link, lp, a, NULL, 0, 0, 0, 0, 0, SIZE_MAX, 0, NULL, NULL, NULL, 0 };
	lt_meta meta;
	int rc = pricer_start(&p, cfg, err);
	if (!rc)
		rc = lt_walk(f, path, t->map, img, full_visit, &p, &meta, err);
	fclose(f);
	if (p.m)
		pricer_finish(&p, out);
	out->pad = a->tail_pad;
	return rc;
}
