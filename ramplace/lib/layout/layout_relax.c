/* layout_relax.c: RISC-V relaxation in the link model: the length GNU ld gives each narrowable
 * call or jump (RV32C c.jal/c.j, jal) in the layout as linked and in a candidate's, and what each
 * section grows or shrinks by when the move puts a call's two ends apart (auipc+jalr again) or
 * together. Owns the lt_growth it computes. Workload: per pricing, over the relaxed sites. */
#include <elf.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "layout_internal.h"
#include "ramplace/callgraph.h"
#include "ramplace/util.h"

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
	return rp_count_below(p->addr, p->n, sizeof(*p->addr), 0, sizeof(*p->addr), addr, 0);
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
int lt_size_as_linked(const rp_layout_trace *t, rp_layout_link *link, rp_err *err)
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

static int resize(lt_growth *g, uint32_t piece, uint32_t off, int64_t delta, rp_err *err)
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
int lt_relax_growth(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
		    const uint64_t *at, const uint64_t *ram, uint64_t ram_slack, lt_growth *g, rp_err *err)
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

uint64_t lt_grown(const rp_layout_trace *t, const int64_t *grow, size_t i)
{
	int64_t size = (int64_t)t->map->insecs[i].size + (grow ? grow[i] : 0);
	return size > 0 ? (uint64_t)size : 0;
}

/* Where each moved section runs (*ram, npieces, UINT64_MAX elsewhere; the caller frees it),
 * as the fragment lays them: by alignment, the largest first, within one in lp's order; and
 * the largest alignment (*slack). NULL when nothing moves or the map does not say. */
int lt_ram_addrs(const rp_layout_trace *t, const rp_layout_link *link, const rp_layout_plan *lp,
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
			uint64_t a = lt_piece_align(&t->map->insecs[i]);
			if (a == al) {
				at[i] = lt_align_up(cur, a);
				cur = at[i] + lt_grown(t, grow, i);
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

void lt_growth_release(lt_growth *g)
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
int lt_keep_shifts(const rp_layout_trace *t, lt_growth *g, rp_layout_addrs *out, rp_err *err)
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

